"""Tools that environments give the policy (``rlenv.envs.tools``): the sandboxed Python tool."""

from rlenv.envs.tools.python import PYTHON_TOOL_SCHEMA, PythonToolEnv

__all__ = ["PYTHON_TOOL_SCHEMA", "PythonToolEnv"]

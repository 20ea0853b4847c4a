"""CLI subcommands. Each module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``; :data:`COMMAND_MODULES` lists them in ``rlenv --help`` order."""

COMMAND_MODULES = [
    "rlenv.commands.list_envs",
    "rlenv.commands.show",
    "rlenv.commands.score",
    "rlenv.commands.eval",
    "rlenv.commands.compare",
    "rlenv.commands.report",
    "rlenv.commands.demo",
    "rlenv.commands.audit",
    "rlenv.commands.judge",
    "rlenv.commands.sandbox",
    "rlenv.commands.train",
    "rlenv.commands.merge_lora",
    "rlenv.commands.export",
    "rlenv.commands.serve",
]

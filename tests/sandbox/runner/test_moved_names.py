"""The runner's public names from when it was one module still resolve, with a DeprecationWarning."""

import importlib
import warnings

import pytest

import rlenv.sandbox.runner as package
from rlenv.sandbox import protocol
from rlenv.sandbox.runner import grader, scrub, seccomp, verdict


@pytest.mark.parametrize(("name", "new"), [
    ("job_status", verdict.job_status), ("compare_output", protocol.compare_output), ("Grader", grader.Grader),
    ("DENIED_SYSCALLS", seccomp.DENIED_SYSCALLS), ("sweep", scrub.sweep),
])
def test_an_old_name_warns_and_gives_the_object_from_its_new_module(name, new):
    with pytest.warns(DeprecationWarning, match=rf"rlenv\.sandbox\.runner\.{name} is deprecated .*: use rlenv\.sandbox\."):
        assert getattr(package, name) is new


def test_every_old_name_resolves():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for module, names in package._MOVED.items():
            for name in names:
                assert getattr(package, name) is getattr(importlib.import_module(module), name), name


def test_main_and_scrub_are_modules_now_and_other_names_are_missing():
    assert package.scrub is scrub and importlib.import_module("rlenv.sandbox.runner.main").__name__.endswith(".main")
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        package.nothing  # noqa: B018

"""Command-line flags built from settings dataclasses (rlenv.commands.config_flags) and ``rlenv train``'s use of them."""

import argparse
import dataclasses

import pytest

from rlenv.commands.config_flags import add_config_flags, config_values, field_docs


@dataclasses.dataclass
class Inner:
    """Attributes:
    size: how many (``n``).
    """

    size: int = 3


@dataclasses.dataclass
class Base:
    """Settings.

    Attributes:
        rate, decay: the optimizer's
            two numbers, see :class:`~torch.optim.AdamW`.
        cap: a limit (None = off).
    """

    rate: float = 0.1
    decay: float = 0.0
    cap: float | None = None


@dataclasses.dataclass
class Child(Base):
    """Attributes:
    loud: make noise.
    """

    loud: bool = False
    inner: Inner = dataclasses.field(default_factory=lambda: Inner(size=5))
    named: str = dataclasses.field(default="x", metadata={"help": "from the metadata"})


FLAGS = {"rate": {"a": "rate", "b": "rate"}, "cap": {"a": "cap"}, "loud": {"b": "loud"},
         "size": {"b": "inner.size"}, "named": {"b": "named"}}


def test_field_docs_read_grouped_wrapped_inherited_and_metadata_help_as_plain_text():
    docs = field_docs(Child)
    assert docs["rate"] == docs["decay"] == "the optimizer's two numbers, see torch.optim.AdamW."
    assert docs["cap"] == "a limit (None = off)." and docs["loud"] == "make noise."
    assert docs["named"] == "from the metadata"


def test_flags_take_their_type_help_and_every_familys_default_and_set_only_what_is_given():
    parser = argparse.ArgumentParser()
    add_config_flags(parser, {"a": Base, "b": Child}, FLAGS)
    text = parser.format_help()
    assert "0.1 (a), 0.1 (b)" in text and "5 (b)" in text and "--no-loud" in text
    args = parser.parse_args(["--rate", "0.5", "--size", "7", "--loud"])
    assert config_values(args, "b", FLAGS) == {"rate": 0.5, "loud": True, "inner": {"size": 7}}
    assert config_values(parser.parse_args(["--rate", "0.5", "--cap", "2"]), "a", FLAGS) == {"rate": 0.5, "cap": 2.0}
    assert config_values(parser.parse_args([]), "b", FLAGS) == {}
    with pytest.raises(SystemExit):
        parser.parse_args(["--size", "seven"])


def test_a_flag_that_sets_nothing_of_the_family_is_an_error_naming_it():
    parser = argparse.ArgumentParser()
    add_config_flags(parser, {"a": Base, "b": Child}, FLAGS)
    args = parser.parse_args(["--rate", "0.5", "--size", "7", "--loud"])
    with pytest.raises(ValueError, match=r"nothing of the a trainers: --loud \(applies to: b\); --size \(applies to: b\)"):
        config_values(args, "a", FLAGS)


def test_every_train_flag_names_a_field_of_each_of_its_families():
    from rlenv.commands.config_flags import _field
    from rlenv.commands.train import FLAGS as TRAIN_FLAGS
    from rlenv.commands.train import family_configs

    configs = family_configs()
    for paths in TRAIN_FLAGS.values():
        for family, path in paths.items():
            _field(configs[family], path)  # raises KeyError naming a missing field
    parser = argparse.ArgumentParser()
    add_config_flags(parser, configs, TRAIN_FLAGS)
    args = parser.parse_args(["--lr", "0.001", "--max-new-tokens", "12", "--steps", "3"])
    assert config_values(args, "online_preference", TRAIN_FLAGS) == {
        "preference": {"lr": 0.001}, "sampling": {"max_new_tokens": 12}, "rounds": 3}
    assert config_values(args, "policy_gradient", TRAIN_FLAGS) == {"lr": 0.001, "max_new_tokens": 12, "steps": 3}


def test_a_subcommand_gets_its_flags_only_when_it_runs():
    from rlenv.cli import build_parser

    parser = build_parser(["list"])
    train = parser._subparsers._group_actions[0].choices["train"]
    assert not any(action.dest == "lr" for action in train._actions)
    train = build_parser(["train"])._subparsers._group_actions[0].choices["train"]
    assert any(action.dest == "lr" for action in train._actions)

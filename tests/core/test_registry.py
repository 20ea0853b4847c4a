import json
import sys
import textwrap

import gymnasium
import pytest

import rlenv
from rlenv import registry


def test_make_passes_overrides_to_the_entry_point(tmp_path):
    data = tmp_path / "qa.jsonl"
    data.write_text(json.dumps({"question": "Say hi", "answer": "hi"}) + "\n")
    env = rlenv.make("rlenv/ExactMatch-v0", data_files=str(data), fields={"prompt": "question", "reference": "answer"})
    prompt, _ = env.reset(seed=0)
    assert prompt == "Say hi"
    assert env.step("HI")[1] == 1.0


def test_spec_round_trip_and_make_from_spec():
    spec = rlenv.spec("rlenv/ExactMatch-v0")
    again = rlenv.registry.EnvSpec.from_json(spec.to_json())
    assert again == spec
    assert again.make().reset(seed=1)[0] == rlenv.make("rlenv/ExactMatch-v0").reset(seed=1)[0]


def test_register_defaults_overrides_and_gymnasium(clean_registry):
    rlenv.register("test/Chat-v0", "rlenv.exact_match:make_exact_match_env", chat=True, description="chat")
    assert "test/Chat-v0" in rlenv.list_envs()
    assert isinstance(rlenv.make("test/Chat-v0").reset(seed=0)[0], list)
    assert isinstance(rlenv.make("test/Chat-v0", chat=False).reset(seed=0)[0], str)
    assert isinstance(gymnasium.make("test/Chat-v0").reset(seed=0)[0], list)


def test_reregistering_warns(clean_registry):
    rlenv.register("test/Twice-v0", "rlenv.exact_match:make_exact_match_env")
    with pytest.warns(UserWarning, match="re-registering env id 'test/Twice-v0'"):
        rlenv.register("test/Twice-v0", "rlenv.exact_match:make_exact_match_env")


@pytest.mark.parametrize("bad_id", ["NoVersion", "rlenv/Name-v", "rlenv/Bad Name-v0", ""])
def test_invalid_ids_rejected(bad_id):
    with pytest.raises(ValueError, match="invalid env id"):
        rlenv.register(bad_id, "rlenv.exact_match:make_exact_match_env")


def test_unknown_id_suggests_close_names():
    with pytest.raises(KeyError, match="did you mean \\['rlenv/ExactMatch-v0'\\]"):
        rlenv.make("rlenv/ExactMatch-v9")


def test_entry_point_must_be_importable_name():
    with pytest.raises(ValueError, match="module:callable"):
        rlenv.register("test/Lambda-v0", lambda: None)


def test_third_party_plugin_via_entry_point_group(tmp_path, monkeypatch, clean_registry):
    (tmp_path / "acme_envs.py").write_text(textwrap.dedent("""
        import rlenv

        def register_all():
            rlenv.register("acme/Echo-v1", "rlenv.exact_match:make_exact_match_env", description="acme")
    """))
    dist = tmp_path / "acme_envs-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-envs\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[rlenv.envs]\nacme = acme_envs:register_all\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    assert "acme/Echo-v1" in rlenv.list_envs()
    assert rlenv.spec("acme/Echo-v1").description == "acme"
    assert gymnasium.make("acme/Echo-v1").reset(seed=0)[0]
    sys.modules.pop("acme_envs", None)


def test_broken_plugin_warns_with_its_name(tmp_path, monkeypatch, clean_registry):
    dist = tmp_path / "broken-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[rlenv.envs]\nbroken = no_such_module_xyz:register\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    with pytest.warns(UserWarning, match="plugin 'broken'.*ModuleNotFoundError"):
        rlenv.list_envs()

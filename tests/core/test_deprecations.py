"""Every public name that moved keeps working for one release, with a DeprecationWarning naming its new place."""

import importlib

import pytest

#: (module, old name, new place as "module.name")
MOVED = [
    ("rlenv.inference", "make_generate", "rlenv.inference.make_completer"),
    ("rlenv.inference.hf", "HFGenerate", "rlenv.inference.hf.HFCompleter"),
    ("rlenv.inference.vllm_engine", "VLLMGenerate", "rlenv.inference.vllm_engine.VLLMCompleter"),
    ("rlenv.inference.openai_server", "OpenAIGenerate", "rlenv.inference.openai_server.OpenAICompleter"),
    ("rlenv.inference.policy", "HFGenerator", "rlenv.inference.policy.HFRolloutGenerator"),
    ("rlenv.inference.policy", "make_generator", "rlenv.inference.make_rollout_generator"),
    ("rlenv.inference.policy", "SamplingConfig", "rlenv.inference.sampling.SamplingConfig"),
    ("rlenv.inference.policy", "ROLLOUT_BACKENDS", "rlenv.inference.ROLLOUT_BACKENDS"),
    ("rlenv.inference.vllm_policy", "VLLMGenerator", "rlenv.inference.vllm_policy.VLLMRolloutGenerator"),
    ("rlenv.trainers", "HFGenerator", "rlenv.inference.policy.HFRolloutGenerator"),
    ("rlenv.trainers", "SamplingConfig", "rlenv.inference.sampling.SamplingConfig"),
    ("rlenv.worker_pool", "WorkerPool", "rlenv.scoring.worker_pool.WorkerPool"),
    ("rlenv.worker_pool", "WorkerStartError", "rlenv.scoring.worker_pool.WorkerStartError"),
    ("rlenv.worker_pool", "shared_pool", "rlenv.scoring.worker_pool.shared_worker_pool"),
    ("rlenv.scoring.worker_pool", "shared_pool", "rlenv.scoring.worker_pool.shared_worker_pool"),
    ("rlenv.worker_pool", "Outcome", "rlenv.scoring.worker_pool.Outcome"),
    ("rlenv.worker_pool", "default_num_workers", "rlenv.scoring.worker_pool.default_num_workers"),
    ("rlenv.trainers.preference.trainer", "PreferenceTrainer", "rlenv.trainers.preference.offline.PreferenceTrainer"),
    ("rlenv.trainers.preference.trainer", "OnlineDPO", "rlenv.trainers.preference.online.OnlineDPO"),
    ("rlenv.trainers.preference.trainer", "PreferenceBatch", "rlenv.trainers.preference.data.PreferenceBatch"),
    ("rlenv.trainers.preference.trainer", "encode_preference_rows",
     "rlenv.trainers.preference.data.encode_preference_rows"),
    ("rlenv.trainers.preference.trainer", "PreferenceConfig", "rlenv.trainers.preference.config.PreferenceConfig"),
    ("rlenv.ray_executor", "RayExecutor", "rlenv.scoring.ray_backend.RayExecutor"),
    ("rlenv.ray_executor", "NoScoringNodes", "rlenv.scoring.ray_backend.NoScoringNodes"),
    ("rlenv.ray_executor", "connect", "rlenv.scoring.ray_backend.connect"),
    ("rlenv.ray_executor", "shared_executor", "rlenv.scoring.ray_backend.shared_executor"),
]


def resolve(place: str):
    module, _, name = place.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("module", "old", "new"), MOVED, ids=[f"{m}.{o}" for m, o, _ in MOVED])
def test_a_moved_name_warns_and_is_the_new_object(module, old, new):
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        found = getattr(importlib.import_module(module), old)
    assert found is resolve(new)


def test_an_unknown_name_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        importlib.import_module("rlenv.inference").no_such_name  # noqa: B018


def test_sampling_takes_and_reads_its_old_max_tokens_with_a_warning():
    from rlenv.inference import Sampling

    with pytest.warns(DeprecationWarning, match="max_new_tokens"):
        sampling = Sampling(max_tokens=7)
    assert sampling.max_new_tokens == 7
    with pytest.warns(DeprecationWarning, match="max_new_tokens"):
        assert sampling.max_tokens == 7


def test_a_sampling_config_still_drives_the_rollout_settings():
    from rlenv.inference import Sampling
    from rlenv.inference.sampling import SamplingConfig, rollout_settings
    from rlenv.trainers.self_training import self_training_config

    with pytest.warns(DeprecationWarning, match="rlenv.inference.Sampling"):
        old = SamplingConfig(max_new_tokens=5, temperature=0.5, batch_size=2, backend="vllm",
                             backend_options={"seed": 3, "max_model_len": 128})
    assert rollout_settings(old) == (Sampling(max_new_tokens=5, temperature=0.5, seed=3),
                                     {"backend": "vllm", "batch_size": 2, "max_model_len": 128})
    config = self_training_config("raft", sampling=old)
    assert (config.sampling, config.rollout_backend, config.generation_batch_size, config.rollout_options) == (
        Sampling(max_new_tokens=5, temperature=0.5, seed=3), "vllm", 2, {"max_model_len": 128})
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="backend"):
        SamplingConfig(backend="sglang")


@pytest.mark.parametrize("config", ["FitConfig", "RewardModelConfig", "PRMConfig"])
def test_the_scoring_model_configs_take_and_read_num_epochs_as_epochs_with_a_warning(config):
    import dataclasses

    from rlenv.trainers import finetune, reward_models

    cls = getattr(finetune, config, None) or getattr(reward_models, config)
    with pytest.warns(DeprecationWarning, match=rf"{config}\(epochs=\.\.\.\)"):
        made = cls(num_epochs=3)
    assert made.epochs == 3 and dataclasses.replace(made, lr=1.0).epochs == 3
    with pytest.warns(DeprecationWarning, match=rf"{config}\.epochs"):
        assert made.num_epochs == 3


ROOT_MOVED = ["ChatSpace", "TextSpace", "DatasetSource", "ProceduralSource", "TaskSource", "PromptFilteredSource",
              "disjoint_split", "distinct_prompt_indices", "EnvCheckError", "EnvSpec", "load_plugins", "score_tasks",
              "verify_safely"]


def test_the_root_holds_the_contract_and_the_rest_warns_from_its_submodule():
    import rlenv

    assert len(rlenv.__all__) <= 15 and all(hasattr(rlenv, name) for name in rlenv.__all__)
    assert not set(ROOT_MOVED) & set(rlenv.__all__)
    for name in ROOT_MOVED:
        with pytest.warns(DeprecationWarning, match=rf"rlenv\.{name} is deprecated"):
            getattr(rlenv, name)

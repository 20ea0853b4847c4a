"""A small multi-turn env shared by the core tests (module-level so it pickles)."""

from __future__ import annotations

from rlenv.multiturn import MultiTurnEnv, Turn
from rlenv.types import RewardResult, Status


class AskThenAnswer(MultiTurnEnv):
    """The policy may write ``ask`` (the env replies with a hint, worth ``hint_reward``); anything else is final."""

    def __init__(self, *args, hint_reward: float | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.hint_reward = hint_reward
        self.started: list[str] = []
        self.ended = 0

    def start_episode(self, task):
        self.started.append(task.id)

    def end_episode(self):
        self.ended += 1

    def respond(self, task, action):
        if action.strip() != "ask":
            return Turn(final=action)
        hint = f"the answer has {len(task.reference)} digit(s)"
        reward = None if self.hint_reward is None else RewardResult(self.hint_reward, Status.CORRECT, verifier="hint")
        reply = [{"role": "user", "content": hint}] if self.chat else f"\n{hint}\n"
        return Turn(observation=reply, reward=reward, info={"asked": True})

    def gold_episode(self, task):
        return ["ask", task.gold_completion]

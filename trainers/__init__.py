"""Trainers that consume batched episodes: REINFORCE++, RLOO, GRPO, PPO and their variants."""

"""Reward wrappers: shape rewards and flag reward hacking without hiding the verifier's score."""

from rlenv.wrappers.base import RewardWrapper

__all__ = ["RewardWrapper"]

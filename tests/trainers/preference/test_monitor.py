"""The preference monitor: hand-computed metrics and the displacement warning."""

import logging

import pytest
import torch

from rlenv.trainers.preference.monitor import PreferenceMonitor


def t(*values):
    return torch.tensor(values, dtype=torch.float64)


def test_pref_monitor_metrics_by_hand():
    monitor = PreferenceMonitor(beta=0.5)
    # chosen log-ratios [-0.2, 0.4], rejected log-ratios [-1.2, 0.6]; pair margins [1.0, -0.2]
    m = monitor.update(t(-1.2, -2.6), t(-3.2, -1.4), t(-1.0, -3.0), t(-2.0, -2.0))
    assert m["logps/chosen"] == pytest.approx(-1.9)
    assert m["logratio/chosen"] == pytest.approx(0.1)
    assert m["logratio/rejected"] == pytest.approx(-0.3)
    assert m["rewards/margin"] == pytest.approx(0.5 * 0.4)
    assert m["rewards/accuracy"] == 0.5
    assert m["displacement/fraction"] == 0.5            # pair 0: chosen fell (-0.2) yet wins the margin
    assert m["displacement/active"] == 0.0              # batch mean chosen log-ratio is +0.1
    assert m["drift/implicit_reward"] == pytest.approx(0.5 * (0.1 - 0.3) / 2)
    assert m["drift/margin_change"] == 0.0
    m2 = monitor.update(t(-1.5), t(-4.0), t(-1.0), t(-2.0))   # chosen -0.5, rejected -2.0: displaced
    assert m2["displacement/active"] == 1.0
    assert m2["drift/margin_change"] == pytest.approx(0.5 * 1.5 - 0.2)


def test_pref_monitor_warns_once_when_displacement_persists(caplog):
    monitor = PreferenceMonitor(beta=0.1, patience=3)
    displaced = (t(-1.5), t(-4.0), t(-1.0), t(-2.0))
    with caplog.at_level(logging.WARNING, logger="rlenv.trainers.preference.monitor"):
        for _ in range(2):
            monitor.update(*displaced)
        assert not caplog.records
        for _ in range(3):
            monitor.update(*displaced)
    assert len(caplog.records) == 1 and "likelihood displacement" in caplog.records[0].getMessage()
    monitor.update(t(-0.5), t(-4.0), t(-1.0), t(-2.0))            # chosen rose: streak resets
    assert monitor.displaced_streak == 0


def test_pref_monitor_rejects_bad_shapes():
    with pytest.raises(ValueError, match="shape"):
        PreferenceMonitor(beta=0.1).update(t(-1.0, -2.0), t(-1.0), t(-1.0), t(-1.0))
    with pytest.raises(ValueError, match="beta"):
        PreferenceMonitor(beta=0)

"""``deferred_interrupt``: the first Ctrl-C waits for the block, a second one does not."""

import os
import signal
import threading

import pytest

from rlenv.interrupts import deferred_interrupt

pytestmark = pytest.mark.usefixtures("python_sigint")


def _ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)


def test_the_first_ctrl_c_is_raised_after_the_block_finishes(caplog):
    done = []
    with pytest.raises(KeyboardInterrupt), deferred_interrupt("step 7"):
        _ctrl_c()
        done.append("after the signal")
    assert done == ["after the signal"]
    assert "finishing step 7 first" in caplog.text
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_ctrl_c_stops_the_block_at_once():
    done = []
    with pytest.raises(KeyboardInterrupt), deferred_interrupt("step 7"):
        _ctrl_c()
        _ctrl_c()
        done.append("never")
    assert done == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_block_without_ctrl_c_raises_nothing_and_an_error_in_it_passes_through():
    with deferred_interrupt("step 1"):
        pass
    with pytest.raises(ValueError, match="boom"), deferred_interrupt("step 1"):
        raise ValueError("boom")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_application_handler_and_other_threads_are_left_alone():
    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        with deferred_interrupt("step 1"):
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
            _ctrl_c()
        assert seen == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)
    errors = []

    def in_a_thread():
        try:
            with deferred_interrupt("step 1"):
                pass
        except Exception as error:  # signal.signal would raise ValueError outside the main thread
            errors.append(error)

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert errors == []

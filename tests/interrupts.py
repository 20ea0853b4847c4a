"""Starting a child process that a test will interrupt with a real SIGINT (Ctrl-C)."""

import signal


def default_sigint() -> None:
    """``preexec_fn`` of such a child: SIGINT back to its default action before the exec.

    A process started in the background by a non-interactive shell (``cmd &``, as some CI
    runners start the suite) inherits SIGINT *ignored*, and Python keeps an ignored SIGINT
    ignored: without this, the child never sees the test's Ctrl-C.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)

"""The job channel: a unix socket from the host straight to a container's runner.

Jobs and reports would otherwise travel the engine's attach stream (host -> ``dockerd`` ->
containerd shim -> the runner's stdin, and back), which costs the engine ~0.25 ms of CPU per
trivial job, about a tenth of the job. The channel bypasses it:

1. the host binds a listening socket in a private temporary directory (mode 0700) and mounts
   that directory read-only at :data:`MOUNT_POINT` in the container, with the socket's path and a
   random token in the runner's environment;
2. the runner connects first thing, as root and before any job exists, sends the token, and
   serves jobs on the connection;
3. the host accepts exactly one connection, checks the token, then closes the listener and
   removes the directory: from then on the container's mount is empty and nothing can connect.

Where the runner cannot connect (an engine on another machine or in a VM, whose containers do not
see the host's files), it says so in its ready line on the attach stream and jobs use that stream.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import tempfile

#: Where the channel's directory is mounted in the container.
MOUNT_POINT = "/run/rlenv"
SOCKET_NAME = "runner.sock"
#: The runner's environment variables naming the socket and the token it must send first.
PATH_VARIABLE, TOKEN_VARIABLE = "RLENV_CHANNEL", "RLENV_CHANNEL_TOKEN"


class HostChannel:
    """The host's end of one container's job channel (listener until :meth:`accept`)."""

    def __init__(self) -> None:
        self.directory = tempfile.mkdtemp(prefix="rlenv-channel-")
        self.token = secrets.token_hex(16)
        self.listener: socket.socket | None = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.listener.bind(os.path.join(self.directory, SOCKET_NAME))
            self.listener.listen(1)
        except OSError:
            self.close()
            raise

    @property
    def binds(self) -> dict[str, dict[str, str]]:
        """``binds`` of ``docker.APIClient.create_host_config``: the directory, read-only."""
        return {self.directory: {"bind": MOUNT_POINT, "mode": "ro"}}

    @property
    def environment(self) -> dict[str, str]:
        return {PATH_VARIABLE: f"{MOUNT_POINT}/{SOCKET_NAME}", TOKEN_VARIABLE: self.token}

    def accept(self) -> socket.socket:
        """The runner's connection (the listener must be readable); the listener is closed and the
        directory removed whatever happens, so no second process can connect."""
        listener, self.listener = self.listener, None
        if listener is None:
            raise OSError("the job channel was already accepted or closed")
        try:
            connection, _ = listener.accept()
        finally:
            listener.close()
            shutil.rmtree(self.directory, ignore_errors=True)  # the container keeps an empty mount
        return connection

    def close(self) -> None:
        """Close the listener (if not accepted) and remove the directory."""
        if self.listener is not None:
            self.listener.close()
            self.listener = None
        shutil.rmtree(self.directory, ignore_errors=True)


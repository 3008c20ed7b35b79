"""Whether the server can listen where it was told to, asked before it says it listens.

granian binds its socket deep in its supervisor and, when the port is taken, stops with a long
native backtrace. Binding a probe socket first (with the same SO_REUSEADDR granian sets) turns
that into one line; the moment between the probe and granian's own bind is a few milliseconds.
"""

from __future__ import annotations

import contextlib
import errno
import socket


def listen_problem(host: str, port: int) -> str | None:
    """A one-line reason the address cannot be listened on, or None when it can."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with contextlib.closing(socket.socket(family, socket.SOCK_STREAM)) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
            probe.listen(1)
        except OSError as exc:
            where = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
            if exc.errno == errno.EADDRINUSE:
                return (
                    f"{where} is already in use by another program; stop it or choose another "
                    "port (--port or ATRIUM_PORT)"
                )
            return f"cannot listen on {where}: {exc.strerror or exc}"
    return None

"""One server per data directory: the lock `atrium serve` holds in the embedded mode.

Two servers on the same SQLite files would split the requests between them and each keep its own
in-memory event queues and caches, so neither would be right. The lock is an `flock` on
`DATA_DIR/atrium.lock`, which the kernel releases when the last process holding the open file
ends, however it ends (`kill -9` included); the file keeps the holder's process id only to name it.
The scale-out mode relies on PostgreSQL and takes no file lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

LOCK_NAME = "atrium.lock"


class DataDirLocked(Exception):
    """Another process holds the data directory's lock."""

    def __init__(self, path: Path, pid: int | None) -> None:
        self.path = path
        self.pid = pid
        holder = f"process {pid}" if pid else "another process"
        super().__init__(f"{holder} holds {path} (an atrium server runs on this data directory)")


def lock_path(data_dir: Path) -> Path:
    return data_dir / LOCK_NAME


def _holder(fd: int) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(os.pread(fd, 32, 0).decode().strip() or 0) or None
    return None


def acquire(data_dir: Path) -> int:
    """Take the lock; its file descriptor, which holds it for as long as it stays open (in this
    process or any it execs into or forks). Raises DataDirLocked when another process holds it."""
    path = lock_path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = _holder(fd)
        os.close(fd)
        raise DataDirLocked(path, pid) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def release(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
    os.close(fd)

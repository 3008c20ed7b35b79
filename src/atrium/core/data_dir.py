"""The data directory is private to the account that runs the server.

It holds the SQLite databases (plaintext API keys among them), the uploads and the secret keys;
under a default umask of 022 every local user could read them. The commands create everything
with umask 077 (directories 0700, files 0600), and a data directory others may enter is closed
to them, with a notice.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_UMASK = 0o077
PRIVATE_DIR_MODE = 0o700


def secure_data_dir(path: Path) -> str | None:
    """Set the process's umask to 077, and create `path` (mode 0700) or make an existing one
    0700. Returns a notice when an existing directory was open to others, else None."""
    os.umask(PRIVATE_UMASK)
    try:
        path.mkdir(mode=PRIVATE_DIR_MODE, parents=True)
        return None
    except FileExistsError:
        pass
    mode = stat.S_IMODE(path.stat().st_mode)
    if not mode & 0o077:
        return None
    try:
        path.chmod(PRIVATE_DIR_MODE)
    except PermissionError:
        return (
            f"the data directory {path} is open to other users (mode {mode:o}) and could not "
            f"be made private: run chmod 700 {path}"
        )
    return (
        f"the data directory {path} was open to other users (mode {mode:o}); it is now 700, "
        "and files already in it keep their modes"
    )

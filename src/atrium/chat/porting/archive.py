"""Reading an export tarball that nobody vouches for, and writing one that only its owner reads.

An archive is extracted member by member into a fresh folder rather than by `extractall`: only
regular files and folders, every name relative and free of `..`, all under one top folder, and
within limits on the number of members, each file's size and the total. Anything else refuses
the whole archive before a byte reaches the database.
"""

from __future__ import annotations

import os
import stat
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

CHUNK = 1024 * 1024


class UnsafeArchive(Exception):
    """The archive is malformed, hostile or over a limit; nothing was imported."""


@dataclass(frozen=True)
class Limits:
    max_members: int = 2_000_000
    max_file_bytes: int = 1 << 30
    max_total_bytes: int = 50 << 30


DEFAULT_LIMITS = Limits()


def _open(archive: Path) -> tarfile.TarFile:
    try:
        return tarfile.open(archive, mode="r:*")
    except (tarfile.TarError, OSError):
        raise UnsafeArchive(f"{archive.name} is not a readable .tar.gz archive") from None


def _check_name(name: str) -> PurePosixPath:
    if not name or "\\" in name or "\x00" in name:
        raise UnsafeArchive(f"refusing the member name {name!r}")
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts:
        raise UnsafeArchive(f"refusing the member name {name!r} (outside the export)")
    return path


def extract(
    archive: Path,
    dest: Path,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[str], None] = lambda _line: None,
) -> Path:
    """Extract `archive` (a .tar.gz) into the empty folder `dest`; its top folder."""
    top: str | None = None
    total = 0
    count = 0
    with _open(archive) as tar:
        try:
            for member in tar:
                count += 1
                if count > limits.max_members:
                    raise UnsafeArchive(f"more than {limits.max_members} members")
                path = _check_name(member.name.rstrip("/") if member.isdir() else member.name)
                if path.parts in ((), (".",)):
                    continue
                if path.parts[0] == ".":
                    path = PurePosixPath(*path.parts[1:])
                if top is None:
                    top = path.parts[0]
                elif path.parts[0] != top:
                    raise UnsafeArchive("the export has more than one top folder")
                target = dest.joinpath(*path.parts)
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True, mode=0o700)
                    continue
                if not member.isreg():
                    raise UnsafeArchive(f"refusing {member.name!r}: not a regular file")
                if member.size > limits.max_file_bytes:
                    raise UnsafeArchive(f"{member.name!r} is larger than the limit")
                total += member.size
                if total > limits.max_total_bytes:
                    raise UnsafeArchive("the export is larger than the limit")
                _copy_member(tar, member, target, dest)
                if count % 1000 == 0:
                    progress(f"extracted {count} files")
        except (tarfile.TarError, EOFError, OSError) as error:
            raise UnsafeArchive(f"the archive is damaged: {error}") from None
    if top is None:
        raise UnsafeArchive("the archive is empty")
    return dest / top


def _copy_member(tar: tarfile.TarFile, member: tarfile.TarInfo, target: Path, dest: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # The parents were made by us from checked names, but a folder may not be a link: check the
    # resolved place once more before writing.
    if not str(target.parent.resolve()).startswith(str(dest.resolve())):
        raise UnsafeArchive(f"refusing {member.name!r} (outside the export)")
    source = tar.extractfile(member)
    if source is None:
        raise UnsafeArchive(f"cannot read {member.name!r}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags, 0o600)
    except FileExistsError:
        raise UnsafeArchive(f"{member.name!r} appears twice") from None
    written = 0
    with os.fdopen(fd, "wb") as out, source:
        while chunk := source.read(CHUNK):
            written += len(chunk)
            if written > member.size:
                raise UnsafeArchive(f"{member.name!r} is longer than declared")
            out.write(chunk)


def write(source_dir: Path, out: Path) -> None:
    """Pack `source_dir` (its name becomes the top folder) into `out`, readable by its owner."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    fd = os.open(out, flags, 0o600)
    os.fchmod(fd, stat.S_IRUSR | stat.S_IWUSR)
    with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
        tar.add(source_dir, arcname=source_dir.name, filter=_owner_only)


def _owner_only(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o700 if info.isdir() else 0o600
    return info

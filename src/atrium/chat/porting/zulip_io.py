"""The two whole operations behind `atrium chat import-zulip` and `atrium chat export`.

Each works on an open chat database and the chat's blob store, so the CLI and the tests run the
same code: the archive is unpacked into a private temporary folder and checked before anything is
stored, its files go to the blob store, and the rows are written in one transaction.
"""

from __future__ import annotations

import hashlib
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path

from atrium.chat.porting import archive
from atrium.chat.porting.zulip_export import write_export
from atrium.chat.porting.zulip_files import store_files
from atrium.chat.porting.zulip_import import ImportResult, import_export
from atrium.chat.porting.zulip_reader import BadExport, read_export
from atrium.core.blobs import BlobStore
from atrium.core.db import Database

Progress = Callable[[str], None]


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while chunk := source.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def import_archive(
    db: Database,
    blobs: BlobStore,
    path: Path,
    email_domain: str,
    progress: Progress = lambda _line: None,
    limits: archive.Limits | None = None,
) -> ImportResult:
    """Import the Zulip export at `path`. Blocking: call it from a thread or the CLI."""
    sha = file_sha256(path)
    with tempfile.TemporaryDirectory(prefix="atrium-import-") as tmp:
        progress(f"reading {path.name}")
        root = archive.extract(path, Path(tmp), limits or archive.Limits(), progress)
        export = read_export(root)
        try:
            progress("storing uploads, avatars and emoji")
            files = store_files(export, blobs, progress)
            progress("writing the organization")
            return db.write_sync(import_export, export, files, sha, email_domain, progress)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            # A row without an id, or with a string where a number belongs: the transaction
            # rolled back, and the operator hears which value was wrong, not a traceback.
            raise BadExport(f"the export is malformed ({type(error).__name__}: {error})") from None


def export_archive(
    db: Database, blobs: BlobStore, out: Path, progress: Progress = lambda _line: None
) -> dict[str, int]:
    """Write the chat's organization to `out` (.tar.gz, mode 0600). Blocking."""
    with tempfile.TemporaryDirectory(prefix="atrium-export-") as tmp:
        folder = Path(tmp) / f"zulip-export-{secrets.token_hex(4)}"
        folder.mkdir(mode=0o700)
        counts = db.read_sync(lambda conn: write_export(conn, blobs, folder, progress))
        progress(f"packing {out.name}")
        archive.write(folder, out)
    return counts

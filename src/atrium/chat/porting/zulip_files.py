"""The files of a Zulip export (uploads, avatars, custom emoji) copied into the chat's blob store.

They are stored before the import's transaction, by content hash, so a failed import leaves at
most unreferenced blobs. Uploads keep a type guessed from their name, as the upload endpoint
does, and are later served under the same rules as any upload (only safe types inline, never
sniffed). Avatars and emoji must decode as one of the image formats the chat accepts; anything
else (an SVG, an HTML page named .png) is left out and reported.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from atrium.chat.errors import ChatError
from atrium.chat.images import check_image
from atrium.chat.porting import zulip_format as fmt
from atrium.chat.porting.zulip_reader import ZulipExport
from atrium.chat.queries.images import REALM_IMAGE_KINDS
from atrium.core.blobs import BlobStore


@dataclass(frozen=True)
class StoredFile:
    sha256: str
    size: int
    content_type: str
    extension: str = ""


@dataclass
class StoredFiles:
    uploads: dict[str, StoredFile] = field(default_factory=dict)  # by the export's path_id
    avatars: dict[int, StoredFile] = field(default_factory=dict)  # by the export's user id
    emoji: dict[str, StoredFile] = field(default_factory=dict)  # by the export's file_name
    realm_images: dict[str, StoredFile] = field(default_factory=dict)  # icon, logo, night_logo
    missing: list[str] = field(default_factory=list)


def _save(blobs: BlobStore, path: Path) -> tuple[str, int]:
    with path.open("rb") as source:
        return blobs.save(source)


def _image(blobs: BlobStore, path: Path) -> StoredFile | None:
    with path.open("rb") as source:
        try:
            info = check_image(source)
        except ChatError:
            return None
    sha, size = _save(blobs, path)
    return StoredFile(sha, size, info.content_type, info.extension)


def store_files(
    export: ZulipExport, blobs: BlobStore, progress: Callable[[str], None]
) -> StoredFiles:
    stored = StoredFiles()
    for count, row in enumerate(export.attachments, 1):
        path_id = str(row.get("path_id", ""))
        path = export.file("uploads", path_id)
        if path is None:
            stored.missing.append(f"upload {path_id!r}: no file in the export")
            continue
        sha, size = _save(blobs, path)
        guessed, _encoding = mimetypes.guess_type(str(row.get("file_name") or path.name))
        stored.uploads[path_id] = StoredFile(sha, size, guessed or "application/octet-stream")
        if count % 500 == 0:
            progress(f"stored {count} uploads")
    # Zulip keeps each uploaded avatar as `<hash>.original` and resized `<hash>.png` copies; the
    # original is the one to keep, a resized copy the fallback.
    avatar_paths: dict[int, str] = {}
    for record in export.records.get("avatars", []):
        user_id, rel = record.get("user_profile_id"), str(record.get("path", ""))
        if not isinstance(user_id, int):
            continue
        if rel.endswith(".original") or (
            user_id not in avatar_paths and not rel.endswith("-medium.png")
        ):
            avatar_paths[user_id] = rel
    for user_id, rel in avatar_paths.items():
        path = export.file("avatars", rel)
        image = _image(blobs, path) if path else None
        if image is None:
            stored.missing.append(f"avatar of user {user_id}: missing or not an image")
        else:
            stored.avatars[user_id] = image
    realm_id = export.table("zerver_realm")[0].get("id")
    for row in export.table("zerver_realmemoji"):
        file_name = str(row.get("file_name") or "")
        path = export.file("emoji", fmt.EMOJI_PATH.format(realm_id=realm_id, file_name=file_name))
        image = _image(blobs, path) if path else None
        if image is None:
            stored.missing.append(f"emoji :{row.get('name')}:: missing or not an image")
        else:
            stored.emoji[file_name] = image
    # The organization's icon and logos: `<realm_id>/<kind>.original`, beside resized `.png`s.
    for record in export.records.get("realm_icons", []):
        rel = str(record.get("path", ""))
        kind = rel.rsplit("/", 1)[-1].removesuffix(".original")
        if kind not in REALM_IMAGE_KINDS or not rel.endswith(".original"):
            continue
        path = export.file("realm_icons", rel)
        image = _image(blobs, path) if path else None
        if image is None:
            stored.missing.append(f"organization {kind}: missing or not an image")
        else:
            stored.realm_images[kind] = image
    return stored

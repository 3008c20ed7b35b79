"""An extracted Zulip export as data: its tables, its message files, its stored files.

Nothing here writes: the reader checks the shapes the importer relies on (ids are integers, the
tables are lists of objects) so that a malformed export is refused with a message naming what is
wrong, and it hands out stored files only from inside the export's folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

Row = dict[str, Any]
_MESSAGE_FILE = re.compile(r"messages-(\d{6})\.json")


class BadExport(Exception):
    """The folder is not a Zulip organization export this importer can read."""


def _load(path: Path, what: str) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise BadExport(f"the export has no {what}") from None
    except orjson.JSONDecodeError as error:
        raise BadExport(f"{what} is not valid JSON: {error}") from None


def _tables(data: Any, what: str) -> dict[str, list[Row]]:
    if not isinstance(data, dict):
        raise BadExport(f"{what} is not a JSON object of tables")
    for name, rows in data.items():
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise BadExport(f"{what}: table {name} is not a list of rows")
    return data


@dataclass
class ZulipExport:
    root: Path
    realm: dict[str, list[Row]]
    attachments: list[Row]
    message_files: list[Path]
    records: dict[str, list[Row]] = field(default_factory=dict)

    def table(self, name: str) -> list[Row]:
        return self.realm.get(name, [])

    def message_chunks(self) -> Iterator[tuple[list[Row], list[Row]]]:
        """(zerver_message, zerver_usermessage) of each message file, in file order."""
        for path in self.message_files:
            data = _tables(_load(path, path.name), path.name)
            yield data.get("zerver_message", []), data.get("zerver_usermessage", [])

    def message_tables(self) -> set[str]:
        names: set[str] = set()
        for path in self.message_files[:1]:
            names |= set(_tables(_load(path, path.name), path.name))
        return names

    def file(self, folder: str, path: str) -> Path | None:
        """A stored file of `folder` (uploads, avatars, emoji, realm_icons), or None if the
        export lacks it."""
        base = (self.root / folder).resolve()
        candidate = (base / path).resolve()
        if not candidate.is_relative_to(base) or not candidate.is_file():
            return None
        return candidate


def read_export(root: Path) -> ZulipExport:
    realm = _tables(_load(root / "realm.json", "realm.json"), "realm.json")
    realms = realm.get("zerver_realm", [])
    if len(realms) != 1:
        raise BadExport("realm.json must hold exactly one zerver_realm row")
    attachment_path = root / "attachment.json"
    attachments = (
        _tables(_load(attachment_path, "attachment.json"), "attachment.json").get(
            "zerver_attachment", []
        )
        if attachment_path.exists()
        else []
    )
    message_files = sorted(
        (p for p in root.iterdir() if _MESSAGE_FILE.fullmatch(p.name)), key=lambda p: p.name
    )
    records: dict[str, list[Row]] = {}
    for folder in ("uploads", "avatars", "emoji", "realm_icons"):
        path = root / folder / "records.json"
        if path.exists():
            data = _load(path, f"{folder}/records.json")
            if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
                raise BadExport(f"{folder}/records.json is not a list of records")
            records[folder] = data
    return ZulipExport(root, realm, attachments, message_files, records)

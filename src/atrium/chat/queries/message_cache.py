"""Serialised message objects, kept between fetches: the hot path of GET /messages.

A 100-message fetch spends most of its time building and serialising the same message objects
again and again. Here the part of each object that depends on the message alone
(`message_core`) is kept as JSON bytes, keyed by the message's version (id, date_sent,
last_edit_time) and apply_markdown: an edit or a move changes `last_edit_time`, so a changed
message is never served from here, on any worker; `date_sent` keeps the messages of two
databases in one process (tests) apart. The reader-dependent parts (sender fields, display_recipient, flags) are added per
fetch, so renames and personal flags are always current.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

Key = tuple[int, float, float | None, bool]

# About 1 KB each: bounded to some tens of megabytes.
MAX_ENTRIES = 50_000
_cores: dict[Key, bytes] = {}


def core_fragments(
    rows: Sequence[Mapping[str, Any]],
    apply_markdown: bool,
    load_cores: Callable[[list[int]], dict[int, dict[str, Any]]],
) -> dict[int, bytes]:
    """Each row's `message_core` as the inside of a JSON object (no braces), by message id.

    `rows` carry `id`, `date_sent` and `last_edit_time`; `load_cores` builds the cores of the
    ids not cached.
    """
    out: dict[int, bytes] = {}
    missing: dict[int, Key] = {}
    for row in rows:
        key = (row["id"], row["date_sent"], row["last_edit_time"], apply_markdown)
        found = _cores.get(key)
        if found is None:
            missing[row["id"]] = key
        else:
            out[row["id"]] = found
    if missing:
        if len(_cores) + len(missing) > MAX_ENTRIES:
            _cores.clear()
        for message_id, core in load_cores(list(missing)).items():
            inner = orjson.dumps(core)[1:-1]
            _cores[missing[message_id]] = inner
            out[message_id] = inner
    return out


def assemble(core: bytes, reader_part: bytes) -> orjson.Fragment:
    """One message object from its cached core and the per-reader fields (already JSON)."""
    return orjson.Fragment(b"{" + core + b"," + reader_part + b"}")

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

from collections.abc import Callable, Sequence
from typing import Any

import orjson

# (id, date_sent, last_edit_time): what changes when the message object does.
Version = tuple[int, float, float | None]

# About 1 KB each: bounded to some tens of megabytes.
MAX_ENTRIES = 50_000
# By apply_markdown (HTML or raw content), then by message version.
_cores: dict[bool, dict[Version, bytes]] = {True: {}, False: {}}


def core_fragments(
    versions: Sequence[Version],
    apply_markdown: bool,
    load_cores: Callable[[list[int]], dict[int, dict[str, Any]]],
) -> dict[int, bytes]:
    """Each message's `message_core` as the start of a JSON object, by message id.

    A core is `{"id":…,…,` (opening brace, trailing comma): the caller appends the remaining
    fields and the closing brace. `load_cores` builds the cores of the ids not cached.
    """
    cache = _cores[apply_markdown]
    out: dict[int, bytes] = {}
    missing: dict[int, Version] = {}
    for version in versions:
        found = cache.get(version)
        if found is None:
            missing[version[0]] = version
        else:
            out[version[0]] = found
    if missing:
        if len(cache) + len(missing) > MAX_ENTRIES:
            cache.clear()
        for message_id, core in load_cores(list(missing)).items():
            start = orjson.dumps(core)[:-1] + b","
            cache[missing[message_id]] = start
            out[message_id] = start
    return out

"""A Zulip organization export with many messages, for the import scenario.

The organization is the import tests' own (`tests/chat/zulip_export_builder.standard_export`:
Zulip 7.x's layout, taken from its export.py), its messages followed by `count` generated stream
messages in chunks of 1,000 per `messages-NNNNNN.json`, as `manage.py export` splits them. Each
generated message goes to one of the two public streams, from one of its subscribers, in one of
40 topics, with its Markdown and its rendered HTML (as a Zulip server stored them), and a
`zerver_usermessage` row for each subscriber (read for the sender and for all but the newest
1%).
"""

from __future__ import annotations

import html
import io
import random
import tarfile
from pathlib import Path
from typing import Any

import orjson

from bench.datasets import SEED, SUBJECTS, message_text

CHUNK = 1000  # messages per file, as Zulip's export writes them
READ = 1  # Zulip's UserMessage flag bit


def generated_messages(
    count: int, first_id: int, streams: dict[int, list[int]], t0: float
) -> list[tuple[dict[str, Any], list[tuple[int, int]]]]:
    """`count` messages (Zulip's `zerver_message` rows) with their readers' (user, flags):
    `streams` maps a stream's recipient id to its subscribers' user ids."""
    rng = random.Random(SEED + 31)
    texts = [message_text(rng) for _ in range(500)]
    recipients = sorted(streams)
    unread_from = count - count // 100
    topics = [*SUBJECTS, *(f"{s} follow-up" for s in SUBJECTS[:10])]  # 40 topics
    out = []
    for i in range(count):
        recipient = recipients[i % len(recipients)]
        readers = streams[recipient]
        sender = readers[i % len(readers)]
        text = texts[(i * 7) % len(texts)]
        row = {
            "id": first_id + i,
            "sender": sender,
            "recipient": recipient,
            "realm": 2,
            "subject": topics[(i // 3) % len(topics)],
            "content": text,
            "rendered_content": "".join(
                f"<p>{html.escape(part)}</p>" for part in text.split("\n\n")
            ),
            "rendered_content_version": 1,
            "date_sent": t0 + i,
            "sending_client": 1,
            "last_edit_time": None,
            "edit_history": None,
            "has_attachment": False,
            "has_image": False,
            "has_link": False,
        }
        flags = [(uid, READ if uid == sender or i < unread_from else 0) for uid in readers]
        out.append((row, flags))
    return out


def write_export(path: Path, count: int) -> int:
    """Write the export with `count` generated messages to `path` (.tar.gz); how many messages
    it holds in all."""
    from tests.chat.zulip_export_builder import (
        BOT,
        CORDELIA,
        HAMLET,
        IAGO,
        T0,
        standard_export,
    )

    builder = standard_export()
    members = builder.member_bytes()
    del members["messages-000001.json"]
    # The standard organization's public streams (recipients 40 and 41) and their active
    # subscribers, as its own messages have them.
    streams = {40: [IAGO, HAMLET, CORDELIA, BOT], 41: [HAMLET, CORDELIA, BOT]}
    first = max(int(m["id"]) for m in builder.messages) + 1
    rows: list[tuple[dict[str, Any], list[tuple[int, int]]]] = [(m, []) for m in builder.messages]
    rows += generated_messages(count, first, streams, T0 + 10_000)
    user_messages: dict[int, list[dict[str, Any]]] = {}
    for um in builder.user_messages:
        user_messages.setdefault(int(um["message"]), []).append(um)
    next_um = max(int(um["id"]) for um in builder.user_messages) + 1
    for row, flags in rows[len(builder.messages) :]:
        ums = user_messages.setdefault(int(row["id"]), [])
        for uid, mask in flags:
            ums.append(
                {"id": next_um, "user_profile": uid, "message": row["id"], "flags_mask": mask}
            )
            next_um += 1
    for number, start in enumerate(range(0, len(rows), CHUNK), 1):
        chunk = [row for row, _flags in rows[start : start + CHUNK]]
        members[f"messages-{number:06d}.json"] = orjson.dumps(
            {
                "zerver_message": chunk,
                "zerver_usermessage": [
                    um for row in chunk for um in user_messages.get(int(row["id"]), [])
                ],
            }
        )
    with tarfile.open(path, "w:gz", compresslevel=6) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(f"{builder.top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return len(rows)

"""GET /messages/{message_id}/history: a message's edit history as Zulip shows it.

Zulip keeps `edit_history` newest first, each entry holding what an edit replaced (`prev_topic`,
`prev_content`, `prev_stream`, …). The endpoint turns that into snapshots, oldest first: the
original message, then the state after each edit, with the previous values of whatever that edit
changed and, for content edits, `content_html_diff` (Zulip's `highlight_html_differences`: the new
rendering with inserted words in `highlight_text_inserted` spans and removed ones in
`highlight_text_deleted` spans, wrapped in a `<div>`).
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from typing import Any

import orjson

from atrium.chat.errors import ChatError
from atrium.chat.models import User
from atrium.chat.queries.messages import readable_message
from atrium.chat.queries.realm import load_realm
from atrium.core.db import Conn

# An HTML tag, a word with the whitespace after it, or whitespace alone.
_TOKEN = re.compile(r"(<[^>]*>)|([^<\s]+\s*)|(\s+)")


def _tokens(html: str) -> list[tuple[str, str]]:
    out = []
    for match in _TOKEN.finditer(html):
        tag, word, space = match.groups()
        if tag is not None:
            out.append(("tag", tag))
        elif word is not None:
            out.append(("word", word))
        else:
            out.append(("space", space))
    return out


def _span(kind: str, words: list[str]) -> str:
    return f'<span class="highlight_text_{kind}">{"".join(words)}</span>'


def html_diff(old: str, new: str) -> str:
    """The new rendering with word-level insertions and deletions marked, as Zulip shows them."""
    old_words = [text for kind, text in _tokens(old) if kind == "word"]
    new_tokens = _tokens(new)
    new_words = [text for kind, text in new_tokens if kind == "word"]
    matcher = difflib.SequenceMatcher(
        None, [w.strip() for w in old_words], [w.strip() for w in new_words], autojunk=False
    )
    inserted: set[int] = set()
    # Removed words are shown after what replaced them, before the next surviving word.
    deleted: dict[int, list[str]] = defaultdict(list)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in {"insert", "replace"}:
            inserted.update(range(j1, j2))
        if op in {"delete", "replace"}:
            deleted[j2].extend(old_words[i1:i2])
    out: list[str] = []
    run: list[str] = []
    index = 0

    def flush() -> None:
        # An inserted run ends: what it replaced follows it, inside the same element.
        if run:
            out.append(_span("inserted", run))
            run.clear()
        if index in deleted:
            if out and not out[-1][-1:].isspace() and not out[-1].endswith(">"):
                out.append(" ")
            out.append(_span("deleted", deleted.pop(index)))

    for kind, text in new_tokens:
        if kind == "word" and index in inserted:
            run.append(text)
            index += 1
            continue
        if kind == "word" or run:
            flush()
        out.append(text)
        index += kind == "word"
    # Words removed at the very end go inside the last element, before its closing tags.
    tail = len(out)
    while tail > 0 and out[tail - 1].startswith("</"):
        tail -= 1
    closing = out[tail:]
    del out[tail:]
    flush()
    return "<div>" + "".join(out + closing) + "</div>"


def message_history(conn: Conn, user: User, message_id: int) -> list[dict[str, Any]]:
    """Zulip's `message_history`: snapshots, oldest first."""
    if not load_realm(conn, user.realm_id).setting("allow_edit_history"):
        raise ChatError("Message edit history is disabled in this organization")
    row = readable_message(conn, user, message_id)
    if row is None:
        raise ChatError("Invalid message(s)")
    edits: list[dict[str, Any]] = orjson.loads(row["edit_history"]) if row["edit_history"] else []
    content, rendered, topic = row["content"], row["rendered_content"], row["topic"]
    snapshots: list[dict[str, Any]] = []
    for edit in edits:  # newest first: walk back from the current state
        snapshot: dict[str, Any] = {
            "content": content,
            "rendered_content": rendered,
            "timestamp": edit["timestamp"],
            "topic": topic,
            "user_id": edit["user_id"],
        }
        if "prev_topic" in edit:
            topic = edit["prev_topic"]
            snapshot["prev_topic"] = topic
        if "prev_content" in edit:
            snapshot["prev_content"] = content = edit["prev_content"]
            snapshot["prev_rendered_content"] = edit["prev_rendered_content"]
            snapshot["content_html_diff"] = html_diff(
                edit["prev_rendered_content"] or "", snapshot["rendered_content"] or ""
            )
            rendered = edit["prev_rendered_content"]
        if "prev_stream" in edit:
            snapshot["prev_stream"] = edit["prev_stream"]
            snapshot["stream"] = edit["stream"]
        snapshots.append(snapshot)
    snapshots.append(
        {
            "content": content,
            "rendered_content": rendered,
            "timestamp": int(row["date_sent"]),
            "topic": topic,
            "user_id": row["sender_id"],
        }
    )
    return list(reversed(snapshots))

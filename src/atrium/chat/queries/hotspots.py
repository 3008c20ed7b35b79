"""Hotspots: the onboarding hints a client shows one at a time until the user dismisses them."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn

# Zulip 7.0's introductory hotspots, in the order they are offered.
INTRO_HOTSPOTS: dict[str, dict[str, str]] = {
    "intro_streams": {
        "title": "Catch up on a stream",
        "description": "Messages sent to a stream are seen by everyone subscribed to that stream. "
        "Try clicking on one of the stream links below.",
    },
    "intro_topics": {
        "title": "Topics",
        "description": "Every message has a topic. Topics keep conversations easy to follow, "
        "and make it easy to reply to conversations that start while you are offline.",
    },
    "intro_gear": {
        "title": "Settings",
        "description": "Go to Settings to configure your notifications and display settings.",
    },
    "intro_compose": {
        "title": "Compose",
        "description": "Click here to start a new conversation. Pick a topic "
        "(2-3 words is best), and give it a go!",
    },
}


def seen_hotspots(conn: Conn, user_id: int) -> set[str]:
    H = schema.user_hotspot.c
    return set(conn.scalars(sa.select(H.hotspot).where(H.user_id == user_id)))


def next_hotspots(conn: Conn, user_id: int) -> list[dict[str, Any]]:
    """The first introductory hotspot the user has not dismissed, or none."""
    seen = seen_hotspots(conn, user_id)
    for name, text in INTRO_HOTSPOTS.items():
        if name not in seen:
            return [{"name": name, **text, "delay": 0.5}]
    return []

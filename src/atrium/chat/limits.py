"""The size limits Zulip announces in the initial state (`max_*`) and enforces on writes."""

from __future__ import annotations

MAX_MESSAGE_LENGTH = 10000


MAX_TOPIC_LENGTH = 60


MAX_STREAM_NAME_LENGTH = 60


MAX_STREAM_DESCRIPTION_LENGTH = 1024

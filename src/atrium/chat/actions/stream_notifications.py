"""What the Notification Bot posts to a stream's "stream events" topic when its settings change.

Zulip 7 (zerver/actions/streams.py) posts one message per changed setting, in the order PATCH
/streams/{id} applies them: access permissions, message retention, description, name, posting
permissions. Each names the acting user with a silent mention; the texts are Zulip's.
"""

from __future__ import annotations

from typing import Any

from atrium.chat.actions import notification_bot
from atrium.chat.events import Notice
from atrium.chat.models import (
    STREAM_POST_ADMINS,
    STREAM_POST_EVERYONE,
    STREAM_POST_FULL_MEMBERS,
    STREAM_POST_MODERATORS,
    User,
)
from atrium.core.db import Conn

STREAM_EVENTS_TOPIC = "stream events"

UNLIMITED_RETENTION = -1

POST_POLICY_NAMES = {
    STREAM_POST_EVERYONE: "All stream members can post",
    STREAM_POST_ADMINS: "Only organization administrators can post",
    STREAM_POST_MODERATORS: "Only organization administrators and moderators can post",
    STREAM_POST_FULL_MEMBERS: "Only organization full members can post",
}


def permission_policy_name(invite_only: bool, history_public: bool, web_public: bool) -> str:
    """Zulip's `get_stream_permission_policy_name` (Stream.PERMISSION_POLICIES)."""
    if web_public:
        return "Web-public"
    if not invite_only:
        return "Public" if history_public else "Public, protected history"
    return "Private, shared history" if history_public else "Private, protected history"


def permission_text(actor: User, old: str, new: str) -> str:
    return (
        f"{notification_bot.silent_mention(actor)} changed the "
        "[access permissions](/help/stream-permissions) "
        f"for this stream from **{old}** to **{new}**."
    )


def post_policy_text(actor: User, old: int, new: int) -> str:
    return (
        f"{notification_bot.silent_mention(actor)} changed the "
        "[posting permissions](/help/stream-sending-policy) for this stream:\n\n"
        f"* **Old permissions**: {POST_POLICY_NAMES[old]}.\n"
        f"* **New permissions**: {POST_POLICY_NAMES[new]}.\n"
    )


def rename_text(actor: User, old_name: str, new_name: str) -> str:
    return (
        f"{notification_bot.silent_mention(actor)} renamed stream **{old_name}** to **{new_name}**."
    )


def description_text(actor: User, old: str, new: str) -> str:
    old = old or "*No description.*"
    new = new or "*No description.*"
    return (
        f"{notification_bot.silent_mention(actor)} changed the description for this stream."
        "\n\n* **Old description:**"
        f"\n```` quote\n{old}\n````\n"
        "* **New description:**"
        f"\n```` quote\n{new}\n````"
    )


def retention_text(
    actor: User, old: int | None, new: int | None, realm_retention: int | None
) -> str:
    """`None` on the stream means the realm's value; the realm's `None` means unlimited."""
    realm_days = UNLIMITED_RETENTION if realm_retention is None else realm_retention
    old_days = realm_days if old is None else old
    new_days = realm_days if new is None else new
    deleted_after = (
        f"Messages in this stream will now be automatically deleted {new_days} days after "
        "they are sent."
    )
    if old_days == UNLIMITED_RETENTION:
        old_period, new_period, summary = "Forever", f"{new_days} days", deleted_after
    elif new_days == UNLIMITED_RETENTION:
        old_period, new_period = f"{old_days} days", "Forever"
        summary = "Messages in this stream will now be retained forever."
    else:
        old_period, new_period, summary = f"{old_days} days", f"{new_days} days", deleted_after
    return (
        f"{notification_bot.silent_mention(actor)} has changed the "
        "[message retention period](/help/message-retention-policy) for this stream:\n"
        f"* **Old retention period**: {old_period}\n"
        f"* **New retention period**: {new_period}\n\n"
        f"{summary}"
    )


def post_stream_event(conn: Conn, actor: User, stream: Any, content: str) -> list[Notice]:
    """Post `content` as the Notification Bot to the stream's "stream events" topic."""
    _message_id, notices = notification_bot.send_to_stream(
        conn, actor.realm_id, stream, STREAM_EVENTS_TOPIC, content, read_by=()
    )
    return notices

"""Custom emoji: adding one (the realm's add_custom_emoji_policy) and deactivating it.

A deactivated emoji keeps its row and its image: messages that used it still show it, and the
name becomes free for a new emoji. Every change sends the whole `realm_emoji` map, as Zulip does.
"""

from __future__ import annotations

import re
import time

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.markdown.emoji import emoji_table
from atrium.chat.models import POLICY_MEMBERS_ONLY, User
from atrium.chat.queries.emoji import active_emoji_by_name, realm_emoji_dicts
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.users import active_user_ids
from atrium.core.db import Conn

E = schema.realm_emoji.c

_VALID_NAME = re.compile(r"^[0-9a-z\-_]+(?<![\-_])$")
_VALID_CHARACTERS = re.compile(r"^[0-9a-z\-_]+$")


def normalize_emoji_name(name: str) -> str:
    """Zulip strips the name and reads spaces as underscores."""
    return name.strip().replace(" ", "_")


def check_valid_emoji_name(name: str) -> None:
    if not name:
        raise ChatError("Emoji name is missing")
    if _VALID_NAME.match(name):
        return
    if _VALID_CHARACTERS.match(name):
        raise ChatError("Emoji names must end with either a letter or digit.")
    raise ChatError(
        "Emoji names must contain only lowercase English letters, digits, spaces, dashes, "
        "and underscores."
    )


def realm_emoji_notice(conn: Conn, realm_id: int) -> Notice:
    event = {
        "type": "realm_emoji",
        "op": "update",
        "realm_emoji": realm_emoji_dicts(conn, realm_id),
    }
    return Notice(event, active_user_ids(conn, realm_id))


def check_add_emoji(conn: Conn, actor: User, name: str) -> None:
    """The checks that come before the file is read, in Zulip's order."""
    check_valid_emoji_name(name)
    realm = load_realm(conn, actor.realm_id)
    policy = realm.row.get("add_custom_emoji_policy", POLICY_MEMBERS_ONLY)
    if not actor.satisfies_policy(policy, realm, time.time()):
        raise ChatError("Insufficient permission")
    if active_emoji_by_name(conn, actor.realm_id, name) is not None:
        raise ChatError("A custom emoji with this name already exists.")


def check_override(actor: User, name: str) -> None:
    if name in emoji_table().name_to_codepoint and not actor.is_admin:
        raise ChatError("Only administrators can override default emoji.")


def add_emoji(
    conn: Conn, actor: User, name: str, sha256: str, content_type: str, file_ext: str
) -> Outcome[int]:
    check_add_emoji(conn, actor, name)  # again, inside the transaction that inserts
    check_override(actor, name)
    emoji_id: int = conn.scalar(
        sa.insert(schema.realm_emoji)
        .values(
            realm_id=actor.realm_id,
            name=name,
            author_id=actor.id,
            sha256=sha256,
            content_type=content_type,
            file_ext=file_ext,
            deactivated=False,
        )
        .returning(E.id)
    )
    return Outcome(emoji_id, [realm_emoji_notice(conn, actor.realm_id)])


def deactivate_emoji(conn: Conn, actor: User, name: str) -> Outcome[None]:
    row = active_emoji_by_name(conn, actor.realm_id, name)
    if row is None:
        raise ChatError(f"Emoji '{name}' does not exist", status=404)
    if not actor.is_admin and row["author_id"] != actor.id:
        raise ChatError("Must be an organization administrator or emoji author")
    conn.execute(sa.update(schema.realm_emoji).where(E.id == row["id"]).values(deactivated=True))
    return Outcome(None, [realm_emoji_notice(conn, actor.realm_id)])

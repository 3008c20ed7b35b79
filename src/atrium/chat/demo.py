"""The demo organization `make run` starts with: a few people, streams and conversations."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.default_streams import add_default_stream
from atrium.chat.actions.messages import SendRequest, send_message
from atrium.chat.actions.realm import create_realm
from atrium.chat.actions.streams import StreamOptions, subscribe
from atrium.chat.actions.users import NewUser, create_user
from atrium.chat.models import ROLE_ADMINISTRATOR, ROLE_GUEST, ROLE_MEMBER, ROLE_OWNER, User
from atrium.chat.queries.streams import stream_by_name
from atrium.core.db import Conn

DEMO_PASSWORD = "atrium-demo"

DEMO_USERS = (
    ("olivia@atrium.example", "Olivia Owner", ROLE_OWNER),
    ("adam@atrium.example", "Adam Admin", ROLE_ADMINISTRATOR),
    ("maya@atrium.example", "Maya Member", ROLE_MEMBER),
    ("gus@atrium.example", "Gus Guest", ROLE_GUEST),
)
ROLE_LABELS = {
    ROLE_OWNER: "owner",
    ROLE_ADMINISTRATOR: "administrator",
    ROLE_MEMBER: "member",
    ROLE_GUEST: "guest",
}

CONVERSATION = (
    (0, "general", "welcome", "Welcome to **Atrium**! This is the demo organization."),
    (2, "general", "welcome", "Hi all :wave: Where do we keep the meeting notes?"),
    (1, "general", "welcome", "In the wiki, under [[Meeting notes]]; see /wiki/Main_Page."),
    (2, "random", "lunch", "Anyone up for lunch at noon?"),
    (0, "leadership", "planning", "Quarterly planning starts next week."),
)


def _user(conn: Conn, user_id: int) -> User:
    return User.from_row(conn.one(sa.select(schema.user).where(schema.user.c.id == user_id)))


def create_demo(conn: Conn, if_empty: bool) -> list[tuple[str, str, str]] | None:
    """Create the demo organization; None when `if_empty` and one exists already."""
    if if_empty and conn.scalar(sa.select(sa.func.count()).select_from(schema.realm)):
        return None
    realm_id = create_realm(conn, "Atrium Demo", "demo")
    ids = [
        create_user(
            conn, realm_id, NewUser(email=email, full_name=name, password=DEMO_PASSWORD, role=role)
        )
        for email, name, role in DEMO_USERS
    ]
    owner = _user(conn, ids[0])
    everyone = [i for i in ids]
    subscribe(
        conn,
        owner,
        [
            {"name": "general", "description": "Everyone, everything"},
            {"name": "random", "description": "Off-topic"},
        ],
        everyone,
        StreamOptions(),
        True,
    )
    # Someone who joins later (an invitation, a new account) starts in these two.
    for name in ("general", "random"):
        add_default_stream(conn, owner, stream_by_name(conn, realm_id, name)["id"])
    subscribe(
        conn,
        owner,
        [{"name": "leadership", "description": "Owners and admins"}],
        ids[:2],
        StreamOptions(invite_only=True),
        True,
    )
    for sender_index, stream, topic, content in CONVERSATION:
        send_message(
            conn,
            _user(conn, ids[sender_index]),
            SendRequest("stream", stream, content, topic, "Atrium demo"),
        )
    return demo_accounts(conn)


def demo_accounts(conn: Conn) -> list[tuple[str, str, str]]:
    emails = [email for email, _name, _role in DEMO_USERS]
    rows = conn.all(
        sa.select(schema.user.c.email, schema.user.c.role, schema.user.c.api_key)
        .where(schema.user.c.email.in_(emails))
        .order_by(schema.user.c.role)
    )
    return [(r["email"], ROLE_LABELS.get(r["role"], str(r["role"])), r["api_key"]) for r in rows]

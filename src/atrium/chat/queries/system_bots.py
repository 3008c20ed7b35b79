"""The server's own bots (Notification Bot, Welcome Bot), which live in the internal realm.

They are not members of any organization, so the register response lists them apart, as
`cross_realm_bots`, for clients to name the sender of the messages they post.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.models import SYSTEM_BOT_NAMES
from atrium.chat.queries.users import user_dict
from atrium.core.db import Conn

NOTIFICATION_BOT_EMAIL = "notification-bot@zulip.com"
WELCOME_BOT_EMAIL = "welcome-bot@zulip.com"
SYSTEM_BOTS = SYSTEM_BOT_NAMES


def cross_realm_bot_dicts(conn: Conn, client_gravatar: bool) -> list[dict[str, Any]]:
    """The system bots created so far, as User records with `is_system_bot`."""
    U = schema.user.c
    rows = conn.all(sa.select(schema.user).where(U.email.in_(list(SYSTEM_BOTS))).order_by(U.id))
    return [
        {**user_dict(row, client_gravatar=client_gravatar), "is_system_bot": True} for row in rows
    ]

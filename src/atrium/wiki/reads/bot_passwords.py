"""A user's bot names, for `Special:BotPasswords`'s list of existing bot passwords."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema

BP = schema.bot_passwords


def bot_password_names(conn: Conn, user_id: int) -> list[str]:
    query = sa.select(BP.c.bp_app_id).where(BP.c.bp_user == user_id).order_by(BP.c.bp_app_id)
    return [str(name) for (name,) in conn.tuples(query)]

"""The tables of the shared browser-session store (the `core` database or schema).

A session is one browser's sign-in; each service it is signed in to is a row of
`browser_session_login`, so that the chat and the wiki pages share one cookie and one store, and a
later single account only changes what a login row points to.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

browser_session = sa.Table(
    "browser_session",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    # SHA-256 of the cookie's token: a copy of the database does not hand out sign-ins.
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("csrf_token", sa.String(64), nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("expires_at", sa.BigInteger, nullable=False),
    sa.Column("user_agent", sa.String(200), nullable=False, server_default=""),
    sa.Index("browser_session_expires_at", "expires_at"),
)

browser_session_login = sa.Table(
    "browser_session_login",
    metadata,
    sa.Column(
        "session_id",
        sa.Integer,
        sa.ForeignKey("browser_session.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("service", sa.String(20), primary_key=True),
    sa.Column("user_id", sa.BigInteger, nullable=False),
    sa.Index("browser_session_login_user", "service", "user_id"),
)

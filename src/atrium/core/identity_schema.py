"""The tables of people's one account across services (the `core` database or schema).

An identity is a person: their email, their one password and whether they may sign in. Each
service user it owns is a row of `identity_account`, so that this store names no service and a
service added later only adds rows.
"""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.sessions_schema import metadata as metadata

identity = sa.Table(
    "identity",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    # Lower-cased: the sign-in forms and the linking match emails without regard to case.
    sa.Column("email", sa.String(254), nullable=False, unique=True),
    # The one password, as `core.secrets` hashes it ("" for a person without one).
    sa.Column("password_hash", sa.String(255), nullable=False, server_default=""),
    sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("created_at", sa.BigInteger, nullable=False),
)

identity_account = sa.Table(
    "identity_account",
    metadata,
    sa.Column(
        "identity_id",
        sa.Integer,
        sa.ForeignKey("identity.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("service", sa.String(20), primary_key=True),
    # The service's user id, or None while the account is reserved but not yet made.
    sa.Column("user_id", sa.BigInteger, nullable=True),
    # The name the person signs in with on that service (the wiki's user name), if it has one.
    sa.Column("name", sa.String(255), nullable=True),
    sa.UniqueConstraint("service", "user_id", name="identity_account_user"),
    sa.UniqueConstraint("service", "name", name="identity_account_name"),
)

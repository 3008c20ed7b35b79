"""realm.message_display_version: bumped by triggers when what message objects show changes.

A message object shows, beside the message itself, its sender's name, email and avatar and the
realm's linkifiers (`topic_links`). A fetch kept reading them for every window; now it keeps them
between fetches (`chat.queries.message_display`), valid for one value of this counter. Triggers
bump it in the same transaction as any such change, whatever wrote it (a view, the CLI, another
worker): an update of a user's email, full name or avatar, a deleted user, and any insert, update
or delete of a linkifier.

Revision ID: 0007
Revises: 0006
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMN = "message_display_version"
# (trigger name, event, table, the row whose realm changed)
TRIGGERS = (
    (
        "user_profile_display_changed",
        "UPDATE OF email, full_name, avatar_source, avatar_version",
        "user_profile",
        "NEW",
    ),
    ("user_profile_deleted", "DELETE", "user_profile", "OLD"),
    ("realm_filter_inserted", "INSERT", "realm_filter", "NEW"),
    ("realm_filter_updated", "UPDATE", "realm_filter", "NEW"),
    ("realm_filter_deleted", "DELETE", "realm_filter", "OLD"),
)
BUMP = f"UPDATE realm SET {COLUMN} = {COLUMN} + 1 WHERE id = {{row}}.realm_id"


def upgrade() -> None:
    op.add_column("realm", sa.Column(COLUMN, sa.BigInteger(), nullable=False, server_default="0"))
    postgres = op.get_bind().dialect.name == "postgresql"
    for name, event, table, row in TRIGGERS:
        if postgres:
            # `SET search_path FROM CURRENT`: the function finds `realm` in the schema it was
            # created in, whatever the search path of the session that fires it.
            op.execute(
                f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql "
                f"SET search_path FROM CURRENT AS $$ BEGIN "
                f"{BUMP.format(row=row)}; RETURN NULL; END $$"
            )
            op.execute(
                f"CREATE TRIGGER {name} AFTER {event} ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {name}()"
            )
        else:
            op.execute(
                f"CREATE TRIGGER {name} AFTER {event} ON {table} "
                f"FOR EACH ROW BEGIN {BUMP.format(row=row)}; END"
            )


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    for name, _event, table, _row in TRIGGERS:
        if postgres:
            op.execute(f"DROP TRIGGER {name} ON {table}")
            op.execute(f"DROP FUNCTION {name}()")
        else:
            op.execute(f"DROP TRIGGER {name}")
    with op.batch_alter_table("realm") as batch:
        batch.drop_column(COLUMN)

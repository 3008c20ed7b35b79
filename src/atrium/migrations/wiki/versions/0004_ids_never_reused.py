"""page and revision ids are never reused (SQLite AUTOINCREMENT), as MediaWiki's tables

Without AUTOINCREMENT SQLite hands out max(rowid) + 1, so deleting the newest page or revision
freed its id for the next one, and a deleted revision (kept in `archive` with its id) then shared
its id with a live one. PostgreSQL sequences never go back; nothing changes there.

Revision ID: 0004
Revises: 0002, 0003
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | tuple[str, ...] | None = ("0002", "0003")
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# table -> (its id column, the archive column that keeps ids of deleted rows)
_TABLES = {"page": ("page_id", "ar_page_id"), "revision": ("rev_id", "ar_rev_id")}


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    for table, (column, archived) in _TABLES.items():
        with op.batch_alter_table(
            table, recreate="always", table_kwargs={"sqlite_autoincrement": True}
        ):
            pass
        # The counter starts above every id ever handed out, the archived ones included.
        highest = bind.execute(
            sa.text(
                f"SELECT max(coalesce((SELECT max({column}) FROM {table}), 0),"
                f" coalesce((SELECT max({archived}) FROM archive), 0))"
            )
        ).scalar_one()
        bind.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = :t"), {"t": table})
        bind.execute(
            sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES (:t, :seq)"),
            {"t": table, "seq": int(highest)},
        )


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    for table in _TABLES:
        with op.batch_alter_table(
            table, recreate="always", table_kwargs={"sqlite_autoincrement": False}
        ):
            pass

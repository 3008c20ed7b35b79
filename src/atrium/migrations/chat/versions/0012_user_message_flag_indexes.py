"""user_message: partial indexes on (user_id, message_id) for unread, starred and DM rows

POST /register reads a user's unread messages, starred messages and direct-message
conversations. Each was a scan of every row the user has (218,798 for a reader of the
1,000,000-message data set, 210 ms for the DM conversations alone); these indexes hold only the
rows with that flag, as Zulip's zerver_usermessage_unread_message_id, _starred_message_id and
_is_private_message_id do. The flag tests are literal so that SQLite matches a query's terms to
an index's WHERE clause.

Revision ID: 0012
Revises: 0011
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# name -> the rows it holds; the bits are chat.flags' READ (1), STARRED (2), IS_PRIVATE (2048).
INDEXES = {
    "ix_user_message_unread": "(flags & 1) = 0",
    "ix_user_message_starred": "(flags & 2) != 0",
    "ix_user_message_is_private": "(flags & 2048) != 0",
}


def upgrade() -> None:
    for name, where in INDEXES.items():
        op.create_index(
            name,
            "user_message",
            ["user_id", "message_id"],
            sqlite_where=sa.text(where),
            postgresql_where=sa.text(where),
        )


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name="user_message")

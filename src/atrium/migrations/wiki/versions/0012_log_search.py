"""log_search: what log entries are about (the items of a revision deletion, their authors, an
entry's revision), so that Special:RevisionDelete finds the entries about the selected items;
filled for the entries already written.

Revision ID: log_search
Revises: email2
"""

import json
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "log_search"
down_revision: str | Sequence[str] | None = "email2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# RevisionDeleter::getRelationType of each list type, as the log entries' `type` names it.
FIELDS = {
    "revision": "rev_id",
    "oldid": "rev_id",
    "archive": "ar_timestamp",
    "artimestamp": "ar_timestamp",
    "oldimage": "oi_archive_name",
    "filearchive": "fa_id",
    "logging": "log_id",
}
BATCH = 1000

logging = sa.table(
    "logging",
    sa.column("log_id", sa.Integer),
    sa.column("log_type", sa.String),
    sa.column("log_action", sa.String),
    sa.column("log_params", sa.Text),
)
recentchanges = sa.table(
    "recentchanges",
    sa.column("rc_logid", sa.Integer),
    sa.column("rc_this_oldid", sa.Integer),
)
log_search = sa.table(
    "log_search",
    sa.column("ls_field", sa.String),
    sa.column("ls_value", sa.String),
    sa.column("ls_log_id", sa.Integer),
)


def _relations(log_id: int, encoded: str | None) -> Iterator[dict[str, Any]]:
    """The rows of one revision-deletion entry: its items by their list type's field."""
    try:
        params = json.loads(encoded or "{}")
    except ValueError:
        return
    if not isinstance(params, dict):
        return
    field = FIELDS.get(str(params.get("type") or ""))
    ids = params.get("ids")
    if field is None or not isinstance(ids, list):
        return
    for value in dict.fromkeys(str(i) for i in ids):
        if value and len(value) <= 255:
            yield {"ls_field": field, "ls_value": value, "ls_log_id": log_id}


def upgrade() -> None:
    op.create_table(
        "log_search",
        sa.Column("ls_field", sa.String(32), primary_key=True),
        sa.Column("ls_value", sa.String(255), primary_key=True),
        sa.Column("ls_log_id", sa.Integer, primary_key=True),
    )
    op.create_index("ls_log_id", "log_search", ["ls_log_id"])
    conn = op.get_bind()
    last = 0
    while True:
        # By log id in batches, so a large log is never held in memory at once.
        rows = conn.execute(
            sa.select(logging.c.log_id, logging.c.log_params)
            .where(
                logging.c.log_id > last,
                logging.c.log_type.in_(["delete", "suppress"]),
                logging.c.log_action.in_(["revision", "event"]),
            )
            .order_by(logging.c.log_id)
            .limit(BATCH)
        ).all()
        if not rows:
            break
        last = int(rows[-1][0])
        found = [r for log_id, params in rows for r in _relations(int(log_id), params)]
        if found:
            conn.execute(sa.insert(log_search), found)
    # An entry's revision (a move's or protection's null revision) is on its recent change.
    conn.execute(
        sa.insert(log_search).from_select(
            ["ls_field", "ls_value", "ls_log_id"],
            sa.select(
                sa.literal("associated_rev_id", sa.String),
                sa.cast(recentchanges.c.rc_this_oldid, sa.String),
                recentchanges.c.rc_logid,
            )
            .where(recentchanges.c.rc_logid > 0, recentchanges.c.rc_this_oldid > 0)
            .distinct(),
        )
    )


def downgrade() -> None:
    op.drop_index("ls_log_id", table_name="log_search")
    op.drop_table("log_search")

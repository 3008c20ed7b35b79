"""A user's `user_message` rows with one flag, read through the partial index that holds only
those rows (migration 0012), as Zulip reads unread, starred and direct-message rows."""

from __future__ import annotations

from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from atrium.chat import flags, schema
from atrium.core.db import through_index

SelectT = TypeVar("SelectT", bound="sa.Select[Any]")

# The partial index of each flag test, by (bit, set): WHERE (flags & bit) != 0 or = 0.
_INDEXES = {
    (flags.READ, False): "ix_user_message_unread",
    (flags.STARRED, True): "ix_user_message_starred",
    (flags.IS_PRIVATE, True): "ix_user_message_is_private",
}


def _bits(bit: int) -> ColumnElement[Any]:
    # Literal numbers: SQLite uses a partial index only when the query's WHERE clause names the
    # index's own terms, and a bound parameter is not one.
    return sa.Grouping(schema.user_message.c.flags.op("&")(sa.literal_column(str(int(bit)))))


def flag_set(bit: int) -> ColumnElement[bool]:
    return _bits(bit) != sa.literal_column("0")


def flag_clear(bit: int) -> ColumnElement[bool]:
    return _bits(bit) == sa.literal_column("0")


def with_flag(statement: SelectT, bit: int, is_set: bool = True) -> SelectT:
    """`statement` (which reads `user_message` for one user) limited to the rows whose `bit` is
    set (or clear), through that flag's partial index."""
    condition = flag_set(bit) if is_set else flag_clear(bit)
    return through_index(statement.where(condition), schema.user_message, _INDEXES[bit, is_set])

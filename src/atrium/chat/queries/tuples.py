"""Rows as plain tuples, for the few reads that return thousands of rows.

`Conn.all` gives each row as a dict, which costs more than the query itself once there are
tens of thousands of rows. Hot listings (GET /users, subscriptions with subscribers) select the
columns they need with a compiled-once statement (`Prepared`) and unpack tuples.
"""

from __future__ import annotations

from typing import Any

from atrium.core.db import Conn, Prepared


def tuple_rows(conn: Conn, statement: Prepared, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    sql, defaults = statement.compiled(conn.dialect)
    if conn.is_sqlite:
        cursor = conn.raw.cursor()
        cursor.row_factory = None
    else:
        from psycopg.rows import tuple_row

        cursor = conn.raw.cursor(row_factory=tuple_row)
    cursor.execute(sql, {**defaults, **params})
    rows: list[tuple[Any, ...]] = cursor.fetchall()
    return rows

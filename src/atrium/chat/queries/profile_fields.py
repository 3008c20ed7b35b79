"""Reading custom profile fields: the field definitions clients list and edit."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn

F = schema.custom_profile_field.c

SHORT_TEXT = 1
LONG_TEXT = 2
SELECT = 3
DATE = 4
URL = 5
USER = 6
EXTERNAL_ACCOUNT = 7
PRONOUNS = 8
FIELD_TYPES = frozenset(range(1, 9))


def field_dict(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"],
        "type": row["field_type"],
        "hint": row["hint"],
        "field_data": row["field_data"],
        "order": row["order"],
        "display_in_profile_summary": bool(row["display_in_profile_summary"]),
    }


def field_rows(conn: Conn, realm_id: int) -> list[Any]:
    return conn.all(
        sa.select(schema.custom_profile_field).where(F.realm_id == realm_id).order_by(F.order, F.id)
    )


def profile_field_dicts(conn: Conn, realm_id: int) -> list[dict[str, Any]]:
    return [field_dict(row) for row in field_rows(conn, realm_id)]


def field_row(conn: Conn, realm_id: int, field_id: int) -> Any:
    return conn.one(
        sa.select(schema.custom_profile_field).where(F.realm_id == realm_id, F.id == field_id)
    )

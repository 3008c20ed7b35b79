"""Reading the realm's linkifiers and code playgrounds (GET /realm/linkifiers, register state)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.markdown import Linkifier
from atrium.core.db import Conn, Prepared

F = schema.realm_filter.c
P = schema.realm_playground.c

_LINKIFIERS = Prepared(
    sa.select(F.id, F.pattern, F.url_template)
    .where(F.realm_id == sa.bindparam("realm_id"))
    .order_by(F.order, F.id)
)


def realm_linkifiers(conn: Conn, realm_id: int) -> list[Linkifier]:
    """In the order rendering applies them."""
    return [
        Linkifier(r["id"], r["pattern"], r["url_template"])
        for r in conn.all(_LINKIFIERS, {"realm_id": realm_id})
    ]


def linkifier_dicts(conn: Conn, realm_id: int) -> list[dict[str, Any]]:
    return [
        {"pattern": lf.pattern, "url_template": lf.url_template, "id": lf.id}
        for lf in realm_linkifiers(conn, realm_id)
    ]


def playground_dicts(conn: Conn, realm_id: int) -> list[dict[str, Any]]:
    """The `realm_playgrounds` state and event payload (feature level 185: `url_prefix`)."""
    rows = conn.all(sa.select(schema.realm_playground).where(P.realm_id == realm_id).order_by(P.id))
    return [
        {
            "id": r["id"],
            "name": r["name"],
            "pygments_language": r["pygments_language"],
            "url_prefix": r["url_prefix"],
        }
        for r in rows
    ]

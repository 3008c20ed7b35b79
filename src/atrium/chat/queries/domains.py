"""Reading the realm's domains (who may join without an invitation, by email domain)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.core.db import Conn

D = schema.realm_domain.c


def realm_domain_dicts(conn: Conn, realm_id: int) -> list[dict[str, Any]]:
    rows = conn.all(
        sa.select(D.domain, D.allow_subdomains).where(D.realm_id == realm_id).order_by(D.domain)
    )
    return [{"domain": r["domain"], "allow_subdomains": bool(r["allow_subdomains"])} for r in rows]


def realm_domain_row(conn: Conn, realm_id: int, domain: str) -> Any:
    return conn.one(
        sa.select(schema.realm_domain).where(D.realm_id == realm_id, D.domain == domain)
    )


def email_allowed_by_domains(conn: Conn, realm_id: int, email: str) -> bool:
    domain = email.rsplit("@", 1)[-1].lower()
    for row in realm_domain_dicts(conn, realm_id):
        if domain == row["domain"]:
            return True
        if row["allow_subdomains"] and domain.endswith("." + row["domain"]):
            return True
    return False

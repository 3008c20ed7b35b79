"""The realm's domains: administrators add, change and remove them; `realm_domains` events."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError, must_be_admin
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries.domains import realm_domain_row
from atrium.chat.queries.users import active_user_ids
from atrium.core.db import Conn

D = schema.realm_domain.c
_LABEL = re.compile(r"^[a-z0-9-]*$")


def domain_problem(domain: str) -> str | None:
    """Zulip's validate_domain, as the message it would give, or None."""
    if not domain:
        return "Domain can't be empty."
    if "." not in domain:
        return "Domain must have at least one dot (.)"
    if len(domain) > 255:
        return "Domain is too long"
    if domain[0] == "." or domain[-1] == ".":
        return "Domain cannot start or end with a dot (.)"
    for label in domain.split("."):
        if not label:
            return "Consecutive '.' are not allowed."
        if label[0] == "-" or label[-1] == "-":
            return "Subdomains cannot start or end with a '-'."
        if not _LABEL.match(label):
            return "Domain can only have letters, numbers, '.' and '-'s."
    return None


def _notice(conn: Conn, realm_id: int, event: dict[str, Any]) -> Notice:
    return Notice({"type": "realm_domains", **event}, active_user_ids(conn, realm_id))


def add_domain(
    conn: Conn, actor: User, domain: str, allow_subdomains: bool
) -> Outcome[tuple[int, str]]:
    if not actor.is_admin:
        raise must_be_admin()
    domain = domain.strip().lower()
    problem = domain_problem(domain)
    if problem is not None:
        raise ChatError(f"Invalid domain: {problem}")
    if realm_domain_row(conn, actor.realm_id, domain) is not None:
        raise ChatError(f"The domain {domain} is already a part of your organization.")
    domain_id: int = conn.scalar(
        sa.insert(schema.realm_domain)
        .values(realm_id=actor.realm_id, domain=domain, allow_subdomains=allow_subdomains)
        .returning(D.id)
    )
    event = {
        "op": "add",
        "realm_domain": {"domain": domain, "allow_subdomains": allow_subdomains},
    }
    return Outcome((domain_id, domain), [_notice(conn, actor.realm_id, event)])


def _existing(conn: Conn, actor: User, domain: str) -> None:
    if not actor.is_admin:
        raise must_be_admin()
    if realm_domain_row(conn, actor.realm_id, domain) is None:
        raise ChatError(f"No entry found for domain {domain}.")


def change_domain(conn: Conn, actor: User, domain: str, allow_subdomains: bool) -> Outcome[None]:
    _existing(conn, actor, domain)
    conn.execute(
        sa.update(schema.realm_domain)
        .where(D.realm_id == actor.realm_id, D.domain == domain)
        .values(allow_subdomains=allow_subdomains)
    )
    event = {
        "op": "change",
        "realm_domain": {"domain": domain, "allow_subdomains": allow_subdomains},
    }
    return Outcome(None, [_notice(conn, actor.realm_id, event)])


def remove_domain(conn: Conn, actor: User, domain: str) -> Outcome[None]:
    _existing(conn, actor, domain)
    conn.execute(
        sa.delete(schema.realm_domain).where(D.realm_id == actor.realm_id, D.domain == domain)
    )
    return Outcome(None, [_notice(conn, actor.realm_id, {"op": "remove", "domain": domain})])

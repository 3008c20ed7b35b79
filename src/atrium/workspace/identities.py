"""The identity store: SQL over the `core` database, one transaction per function.

A person's identity is found by email (lower-cased) or by any service account it owns; the
public identity id is the person's chat user id, which every member has and which the chat's
answers already carry (`user_id`), so no new field is needed anywhere.
"""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.core.identity_schema import identity as I
from atrium.core.identity_schema import identity_account as A

CHAT = "chat"
WIKI = "wiki"


def by_email(conn: Conn, email: str) -> Any:
    return conn.one(sa.select(I).where(I.c.email == email.strip().lower()))


def by_id(conn: Conn, identity_id: int) -> Any:
    return conn.one(sa.select(I).where(I.c.id == identity_id))


def by_account(conn: Conn, service: str, user_id: int) -> Any:
    return conn.one(
        sa.select(I)
        .join(A, A.c.identity_id == I.c.id)
        .where(A.c.service == service, A.c.user_id == user_id)
    )


def by_account_name(conn: Conn, service: str, name: str) -> Any:
    return conn.one(
        sa.select(I)
        .join(A, A.c.identity_id == I.c.id)
        .where(A.c.service == service, A.c.name == name)
    )


def accounts(conn: Conn, identity_id: int) -> dict[str, Any]:
    """service -> its row (user_id, name) for one identity."""
    rows = conn.all(sa.select(A).where(A.c.identity_id == identity_id))
    return {r["service"]: r for r in rows}


def reserve(conn: Conn, email: str, password_hash: str | None) -> int:
    """The identity of `email`, made if missing (with `password_hash`). An existing identity is
    left as it is: a rerun after a crash finds the same one, and nothing here can set the
    password of someone who already exists."""
    address = email.strip().lower()
    row = by_email(conn, address)
    if row is not None:
        return int(row["id"])
    conn.execute(
        sa.insert(I).values(
            email=address, password_hash=password_hash or "", created_at=int(time.time())
        )
    )
    return int(conn.scalar(sa.select(I.c.id).where(I.c.email == address)))


def name_taken(conn: Conn, service: str, name: str, identity_id: int) -> bool:
    """Whether another identity has reserved this user name on `service`."""
    owner = conn.scalar(sa.select(A.c.identity_id).where(A.c.service == service, A.c.name == name))
    return owner is not None and int(owner) != identity_id


def link(conn: Conn, identity_id: int, service: str, user_id: int | None, name: str | None) -> None:
    """Record (or complete) the identity's account on a service; the user is then its."""
    current = conn.one(sa.select(A).where(A.c.identity_id == identity_id, A.c.service == service))
    if current is None:
        conn.execute(
            sa.insert(A).values(
                identity_id=identity_id, service=service, user_id=user_id, name=name
            )
        )
        return
    values: dict[str, Any] = {}
    if user_id is not None:
        values["user_id"] = user_id
    if name is not None:
        values["name"] = name
    if values:
        conn.execute(
            sa.update(A)
            .where(A.c.identity_id == identity_id, A.c.service == service)
            .values(**values)
        )


def set_password(conn: Conn, identity_id: int, password_hash: str) -> None:
    conn.execute(sa.update(I).where(I.c.id == identity_id).values(password_hash=password_hash))


def set_email(conn: Conn, identity_id: int, email: str) -> None:
    conn.execute(sa.update(I).where(I.c.id == identity_id).values(email=email.lower()))


def set_active(conn: Conn, identity_id: int, active: bool) -> None:
    conn.execute(sa.update(I).where(I.c.id == identity_id).values(active=active))


def companions(conn: Conn, service: str, user_id: int) -> dict[str, int]:
    """Every service account of the person who signed in to one: one sign-in is all of them.
    A deactivated person's other accounts stay out (the service signing in refuses anyway)."""
    row = by_account(conn, service, user_id)
    logins = {service: user_id}
    if row is None or not row["active"]:
        return logins
    for other, account in accounts(conn, int(row["id"])).items():
        if account["user_id"] is not None:
            logins.setdefault(other, int(account["user_id"]))
    return logins


def rename_account(conn: Conn, service: str, user_id: int, name: str) -> None:
    """The service renamed the user: the identity signs in under the new name."""
    conn.execute(
        sa.update(A).where(A.c.service == service, A.c.user_id == user_id).values(name=name)
    )

"""Reading the realm (organization) and its settings."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.models import Realm
from atrium.core.db import Conn, Prepared

_REALM_BY_ID = Prepared(sa.select(schema.realm).where(schema.realm.c.id == sa.bindparam("id")))


def load_realm(conn: Conn, realm_id: int) -> Realm:
    return Realm.from_row(conn.one(_REALM_BY_ID, {"id": realm_id}))


def default_realm(conn: Conn) -> Realm | None:
    """The organization an unauthenticated request (server_settings, fetch_api_key) is about.

    Atrium serves one organization per server, as a single-subdomain Zulip does.
    """
    row = conn.one(sa.select(schema.realm).order_by(schema.realm.c.id).limit(1))
    return None if row is None else Realm.from_row(row)


def realm_id_by_string_id(conn: Conn, string_id: str | None) -> int:
    query = sa.select(schema.realm.c.id).order_by(schema.realm.c.id).limit(1)
    if string_id:
        query = query.where(schema.realm.c.string_id == string_id)
    realm_id = conn.scalar(query)
    if realm_id is None:
        raise ChatError("No such organization; create one with `atrium chat create-realm`.")
    return int(realm_id)

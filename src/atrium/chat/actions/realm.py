"""Creating an organization (realm) with its system groups."""

from __future__ import annotations

import re
import time

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError
from atrium.chat.models import SYSTEM_GROUPS
from atrium.core.db import Conn


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    return slug[:40] or "realm"


def create_realm(conn: Conn, name: str, string_id: str | None = None) -> int:
    string_id = string_id or slugify(name)
    exists = conn.scalar(sa.select(schema.realm.c.id).where(schema.realm.c.string_id == string_id))
    if exists is not None:
        raise ChatError(f"An organization with the subdomain '{string_id}' already exists.")
    realm_id: int = conn.scalar(
        sa.insert(schema.realm)
        .values(string_id=string_id, name=name[:40], date_created=time.time())
        .returning(schema.realm.c.id)
    )
    group_ids: dict[str, int] = {}
    for group_name, description, _roles, _subgroups in SYSTEM_GROUPS:
        group_ids[group_name] = conn.scalar(
            sa.insert(schema.user_group)
            .values(
                realm_id=realm_id, name=group_name, description=description, is_system_group=True
            )
            .returning(schema.user_group.c.id)
        )
    for group_name, _description, _roles, subgroups in SYSTEM_GROUPS:
        for subgroup in subgroups:
            conn.execute(
                sa.insert(schema.user_group_subgroup).values(
                    supergroup_id=group_ids[group_name], subgroup_id=group_ids[subgroup]
                )
            )
    return realm_id


def system_group_id(conn: Conn, realm_id: int, name: str) -> int:
    group_id = conn.scalar(
        sa.select(schema.user_group.c.id).where(
            schema.user_group.c.realm_id == realm_id,
            schema.user_group.c.name == name,
            schema.user_group.c.is_system_group.is_(True),
        )
    )
    assert group_id is not None, f"realm {realm_id} lacks system group {name}"
    return int(group_id)

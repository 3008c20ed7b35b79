"""What `list=users` and `list=allusers` both read of an account.

Every value is read from the accounts: `editcount` (user_editcount), `registration`,
`groups`/`implicitgroups`/`rights` (explicit memberships that have not expired, plus the implicit
groups, and MediaWiki's default group rights), `groupmemberships` with expiries, `blockinfo` from
the account's active block, `emailable` (an address is stored and `disablemail` is off), `gender`
(the preference), `centralids` (the local id, as with no central-auth provider).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.query.pageset import QueryRun
from atrium.wiki.changes import blocks as block_changes
from atrium.wiki.timestamps import now14

UG = schema.user_groups
UP = schema.user_properties
B = schema.ipblocks
# MediaWiki lists `*` among every user's groups (User::getEffectiveGroups).
IMPLICIT = ["*", "user", "autoconfirmed"]


@dataclass
class UserFacts:
    row: Row
    groups: list[tuple[str, str | None]] = field(default_factory=list)  # (group, expiry)
    properties: dict[str, str] = field(default_factory=dict)
    block: block_changes.ActiveBlock | None = None
    hidden: bool = False


def user_facts(conn: Conn, rows: Sequence[Row], props: set[str]) -> dict[int, UserFacts]:
    ids = [int(r["user_id"]) for r in rows]
    facts = {int(r["user_id"]): UserFacts(r) for r in rows}
    if not ids:
        return facts
    now = now14()
    for g in conn.all(
        sa.select(UG.c.ug_user, UG.c.ug_group, UG.c.ug_expiry)
        .where(UG.c.ug_user.in_(ids))
        .where(sa.or_(UG.c.ug_expiry.is_(None), UG.c.ug_expiry > now))
        .order_by(UG.c.ug_user, UG.c.ug_group)
    ):
        expiry = None if g["ug_expiry"] is None else str(g["ug_expiry"])
        facts[int(g["ug_user"])].groups.append((str(g["ug_group"]), expiry))
    if props & {"gender", "emailable"}:
        for p in conn.all(
            sa.select(UP).where(
                UP.c.up_user.in_(ids), UP.c.up_property.in_(("gender", "disablemail"))
            )
        ):
            facts[int(p["up_user"])].properties[str(p["up_property"])] = str(p["up_value"])
    blocked = conn.all(
        sa.select(B.c.ipb_user, B.c.ipb_deleted).where(
            B.c.ipb_user.in_(ids),
            sa.or_(B.c.ipb_expiry == "infinity", B.c.ipb_expiry > now),
        )
    )
    for b in blocked:
        user_id = int(b["ipb_user"])
        if b["ipb_deleted"]:
            facts[user_id].hidden = True
        if "blockinfo" in props:
            found = block_changes.blocks_of(conn, user_id, None)
            facts[user_id].block = found[0] if found else None
    return facts


def add_central_ids(q: QueryRun, data: dict[str, Any], user_id: int) -> None:
    """ApiQueryUserInfo::getCentralUserInfo with only the local provider."""
    data["centralids"] = {"local": user_id}
    q.ctx.out.flag(data.setdefault("attachedlocal", {}), "local", True)

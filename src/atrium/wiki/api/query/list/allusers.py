"""`list=allusers`: accounts by name, with the group, right, edit and activity filters, as
ApiQueryAllUsers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.accounts import rights as group_rights
from atrium.wiki.accounts.rights import ALL_RIGHTS, EXPLICIT_GROUPS
from atrium.wiki.accounts.usernames import normalize_username
from atrium.wiki.api.actions.common import block_info
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.listing import split_page, starts_with
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.api.query.user_facts import IMPLICIT, UserFacts, add_central_ids, user_facts
from atrium.wiki.messages import messages as msg
from atrium.wiki.timestamps import iso, now14

U = schema.user
UG = schema.user_groups
B = schema.ipblocks
ACTIVE_DAYS = 30  # $wgActiveUserDays


ALLUSERS = ModuleSpec(
    "allusers",
    "ApiQueryAllUsers",
    "list",
    "au",
    (
        Param("from"),
        Param("to"),
        Param("prefix"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("group", EXPLICIT_GROUPS, multi=True),
        Param("excludegroup", EXPLICIT_GROUPS, multi=True),
        Param("rights", ALL_RIGHTS, multi=True),
        Param(
            "prop",
            enum(
                "blockinfo",
                "centralids",
                "editcount",
                "groups",
                "implicitgroups",
                "registration",
                "rights",
            ),
            multi=True,
        ),
        limit(default=10),
        Param("witheditsonly", BOOLEAN),
        Param("activeusers", BOOLEAN),
        Param("attachedwiki"),
    ),
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    spec = ALLUSERS
    out = q.ctx.out
    props = set(params["prop"] or ())
    descending = params["dir"] == "descending"
    groups: list[str] = list(params["group"] or [])
    excluded: list[str] = list(params["excludegroup"] or [])
    if groups and excluded:
        raise ApiUsageError(
            "invalidparammix", msg.invalidparammix(["augroup", "auexcludegroup"]), module=spec.path
        )
    if params["rights"]:
        with_rights = [
            g
            for g, granted in group_rights.GROUP_RIGHTS.items()
            if any(r in granted for r in params["rights"])
        ]
        if not with_rights:
            q.data["allusers"] = []
            return
        groups = list(dict.fromkeys(groups + with_rights))
    query = sa.select(U)
    start = params["from"]
    if start is not None:
        start = (normalize_username(start) or start).replace("_", " ")
        query = query.where(U.c.user_name <= start if descending else U.c.user_name >= start)
    end = params["to"]
    if end is not None:
        end = (normalize_username(end) or end).replace("_", " ")
        query = query.where(U.c.user_name >= end if descending else U.c.user_name <= end)
    if params["prefix"] is not None:
        prefix = (normalize_username(params["prefix"]) or params["prefix"]).replace("_", " ")
        query = query.where(starts_with(U.c.user_name, prefix))
    now = now14()
    live = sa.or_(UG.c.ug_expiry.is_(None), UG.c.ug_expiry > now)
    if groups:
        query = query.where(
            sa.exists().where(UG.c.ug_user == U.c.user_id, UG.c.ug_group.in_(groups), live)
        )
    if excluded:
        query = query.where(
            ~sa.exists().where(UG.c.ug_user == U.c.user_id, UG.c.ug_group.in_(excluded), live)
        )
    if params["witheditsonly"]:
        query = query.where(U.c.user_editcount > 0)
    if not q.ctx.caller.allowed("hideuser"):
        query = query.where(
            ~sa.exists().where(
                B.c.ipb_user == U.c.user_id,
                B.c.ipb_deleted == sa.true(),
                sa.or_(B.c.ipb_expiry == "infinity", B.c.ipb_expiry > now),
            )
        )
    since = _days_ago(ACTIVE_DAYS)
    rc, actor = schema.recentchanges, schema.actor
    if params["activeusers"]:
        query = query.where(
            sa.exists().where(
                actor.c.actor_user == U.c.user_id,
                rc.c.rc_actor == actor.c.actor_id,
                rc.c.rc_type != 6,
                rc.c.rc_log_type.is_distinct_from("newusers"),
                rc.c.rc_timestamp >= since,
            )
        )
    limit = params["limit"]
    query = query.order_by(U.c.user_name.desc() if descending else U.c.user_name).limit(limit + 1)

    def read(conn: Conn) -> tuple[list[Row], Row | None, dict[int, UserFacts], dict[int, int]]:
        rows, following = split_page(conn.all(query), limit)
        facts = user_facts(conn, rows, props)
        actions: dict[int, int] = {}
        if params["activeusers"] and rows:
            counted = conn.all(
                sa.select(actor.c.actor_user, sa.func.count().label("n"))
                .select_from(rc.join(actor, actor.c.actor_id == rc.c.rc_actor))
                .where(
                    actor.c.actor_user.in_([int(r["user_id"]) for r in rows]),
                    rc.c.rc_type != 6,
                    rc.c.rc_log_type.is_distinct_from("newusers"),
                    rc.c.rc_timestamp >= since,
                )
                .group_by(actor.c.actor_user)
            )
            actions = {int(c["actor_user"]): int(c["n"]) for c in counted}
        return rows, following, facts, actions

    rows, following, facts, actions = await q.ctx.db.read(read)
    items = []
    for row in rows:
        user_id = int(row["user_id"])
        f = facts[user_id]
        explicit = [g for g, _ in f.groups]
        data: dict[str, Any] = {"userid": user_id, "name": row["user_name"]}
        if "centralids" in props:
            add_central_ids(q, data, user_id)
        if "blockinfo" in props and f.block is not None:
            data.update(block_info(q.ctx, f.block))
        if f.hidden:
            out.flag_if(data, "hidden", True)
        if "editcount" in props:
            data["editcount"] = int(row["user_editcount"])
        if params["activeusers"]:
            data["recentactions"] = actions.get(user_id, 0)
        if "registration" in props:
            registered = row["user_registration"]
            data["registration"] = iso(str(registered)) if registered else ""
        if "groups" in props:
            data["groups"] = IMPLICIT + explicit
        if "implicitgroups" in props:
            data["implicitgroups"] = list(IMPLICIT)
        if "rights" in props:
            data["rights"] = group_rights.rights_of([*IMPLICIT, *explicit])
        items.append(data)
    q.data["allusers"] = items
    if following is not None:
        q.continuation.add(spec, "from", str(following["user_name"]))


def _days_ago(days: int) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y%m%d%H%M%S")


MODULE = QueryModule(ALLUSERS, run)

"""`list=users` (named accounts, in request order) and `list=allusers` (accounts by name, with
the group, right, edit and activity filters), as ApiQueryUsers and ApiQueryAllUsers.

Every value is read from the accounts: `editcount` (user_editcount), `registration`,
`groups`/`implicitgroups`/`rights` (explicit memberships that have not expired, plus the implicit
groups, and MediaWiki's default group rights), `groupmemberships` with expiries, `blockinfo` from
the account's active block, `emailable` (an address is stored and `disablemail` is off), `gender`
(the preference), `centralids` (the local id, as with no central-auth provider).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.accounts import rights as group_rights
from atrium.wiki.accounts.rights import ALL_RIGHTS, EXPLICIT_GROUPS
from atrium.wiki.accounts.usernames import is_creatable, is_ip, normalize_username
from atrium.wiki.api.actions.common import block_info
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
    INTEGER,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.listing import split_page, starts_with
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.changes import blocks as block_changes
from atrium.wiki.changes.expiry import api_expiry
from atrium.wiki.messages import messages as msg
from atrium.wiki.timestamps import iso, now14
from atrium.wiki.titles import NS_MAIN, InvalidTitle

U = schema.user
UG = schema.user_groups
UP = schema.user_properties
B = schema.ipblocks
# MediaWiki lists `*` among every user's groups (User::getEffectiveGroups).
IMPLICIT = ["*", "user", "autoconfirmed"]
ACTIVE_DAYS = 30  # $wgActiveUserDays


@dataclass
class UserFacts:
    row: Row
    groups: list[tuple[str, str | None]] = field(default_factory=list)  # (group, expiry)
    properties: dict[str, str] = field(default_factory=dict)
    block: block_changes.ActiveBlock | None = None
    hidden: bool = False


def _facts(conn: Conn, rows: Sequence[Row], props: set[str]) -> dict[int, UserFacts]:
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


def _central(q: QueryRun, data: dict[str, Any], user_id: int) -> None:
    """ApiQueryUserInfo::getCentralUserInfo with only the local provider."""
    data["centralids"] = {"local": user_id}
    q.ctx.out.flag(data.setdefault("attachedlocal", {}), "local", True)


# list=users


def _listed_name(q: QueryRun, raw: str) -> str | None:
    """UserNameUtils::getCanonical(RIGOR_VALID): `@` and a `:` that names no namespace are valid
    in a user name (such an account cannot be created, but may exist)."""
    if normalize_username(raw.replace("@", "a").replace(":", "a")) is None:
        return None
    spaced = re.sub(r"[ _]+", " ", raw).strip()
    name = spaced[0].upper() + spaced[1:]
    if ":" in name:
        # The name must not read as a title in another namespace ("Talk:Foo").
        try:
            title = q.ctx.site.parser.parse(name)
        except InvalidTitle:
            return None
        if title.ns != NS_MAIN or title.interwiki or title.text != name:
            return None
    return name


# ApiMessage's code for `noname` (ApiMessageTrait::$messageMap).
_NONAME = msg.api("noname")


async def _cancreate(q: QueryRun, entry: dict[str, Any], name: str) -> None:
    """`cancreate` of a missing user and, when false, `cancreateerror`: AuthManager::
    canCreateAccount's status as ApiErrorFormatter::arrayFromStatus shows it."""
    creatable = is_creatable(name)
    q.ctx.out.flag(entry, "cancreate", creatable)
    if creatable:
        return
    formatted = await q.ctx.format_message(_NONAME)
    if isinstance(formatted, str):
        # errorformat=bc (ApiErrorFormatter_BackCompat): the message key and its parameters
        error: dict[str, Any] = {"message": "noname", "params": [], "code": "invaliduser"}
        error["type"] = "error"
    else:
        error = {"code": "invaliduser"} | {k: v for k, v in formatted.items() if k != "code"}
    entry["cancreateerror"] = [error]


USERS = ModuleSpec(
    "users",
    "ApiQueryUsers",
    "list",
    "us",
    (
        Param(
            "prop",
            enum(
                "blockinfo",
                "cancreate",
                "centralids",
                "editcount",
                "emailable",
                "gender",
                "groupmemberships",
                "groups",
                "implicitgroups",
                "registration",
                "rights",
            ),
            multi=True,
        ),
        Param("attachedwiki"),
        Param("users", multi=True),
        Param("userids", INTEGER, multi=True),
        Param("token", enum("userrights"), multi=True, deprecated=True),
    ),
)


async def users_run(q: QueryRun, params: dict[str, Any]) -> None:
    spec = USERS
    out = q.ctx.out
    props = set(params["prop"] or ())
    names: list[str] = params["users"] or []
    ids: list[int] = params["userids"] or []
    if names and ids:
        raise ApiUsageError(
            "invalidparammix", msg.invalidparammix(["ususers", "ususerids"]), module=spec.path
        )
    result: list[dict[str, Any]] = []
    wanted: list[str] = []
    for raw in names:
        name = _listed_name(q, raw)
        if name is None or is_ip(raw):
            entry: dict[str, Any] = {"name": raw}
            out.flag_if(entry, "invalid", True)
            result.append(entry)
        elif name not in wanted:
            wanted.append(name)

    def read(conn: Conn) -> dict[int, UserFacts]:
        cond = U.c.user_name.in_(wanted) if wanted else U.c.user_id.in_(ids)
        rows = conn.all(sa.select(U).where(cond))
        return _facts(conn, rows, props)

    facts = await q.ctx.db.read(read) if (wanted or ids) else {}
    if not q.ctx.caller.allowed("hideuser"):
        # ApiQueryBase::showHiddenUsersAddBlockInfo: a hidden user is not found at all.
        facts = {user_id: f for user_id, f in facts.items() if not f.hidden}
    by_name = {str(f.row["user_name"]): f for f in facts.values()}
    if wanted:
        for name in wanted:
            found = by_name.get(name)
            if found is None:
                entry = {"name": name}
                out.flag_if(entry, "missing", True)
                if "cancreate" in props:
                    await _cancreate(q, entry, name)
                result.append(entry)
            else:
                result.append(_user_entry(q, found, props))
    else:
        for user_id in dict.fromkeys(ids):
            f = facts.get(user_id)
            if f is None:
                entry = {"userid": user_id}
                out.flag_if(entry, "missing", True)
                result.append(entry)
            else:
                result.append(_user_entry(q, f, props))
    q.data["users"] = result


def _user_entry(q: QueryRun, f: UserFacts, props: set[str]) -> dict[str, Any]:
    """ApiQueryUsers::execute's fields, in its order."""
    out = q.ctx.out
    row = f.row
    user_id = int(row["user_id"])
    explicit = [g for g, _ in f.groups]
    data: dict[str, Any] = {"userid": user_id, "name": row["user_name"]}
    if "editcount" in props:
        data["editcount"] = int(row["user_editcount"])
    if "registration" in props:
        registered = row["user_registration"]
        data["registration"] = iso(str(registered)) if registered else None
    if "groups" in props:
        data["groups"] = explicit + IMPLICIT
    if "groupmemberships" in props:
        data["groupmemberships"] = [
            {"group": g, "expiry": api_expiry(e, "infinity")} for g, e in f.groups
        ]
    if "implicitgroups" in props:
        data["implicitgroups"] = list(IMPLICIT)
    if "rights" in props:
        data["rights"] = group_rights.rights_of([*explicit, *IMPLICIT])
    if f.hidden:
        out.flag_if(data, "hidden", True)
    if "blockinfo" in props and f.block is not None:
        data.update(block_info(q.ctx, f.block))
    if "emailable" in props:
        out.flag(data, "emailable", _emailable(f))
    if "gender" in props:
        data["gender"] = f.properties.get("gender") or "unknown"
    if "centralids" in props:
        _central(q, data, user_id)
    return data


def _emailable(f: UserFacts) -> bool:
    return bool(f.row["user_email"]) and f.properties.get("disablemail", "0") in ("0", "")


USERS_MODULE = QueryModule(USERS, users_run)


# list=allusers


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


async def allusers_run(q: QueryRun, params: dict[str, Any]) -> None:
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
        facts = _facts(conn, rows, props)
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
            _central(q, data, user_id)
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


ALLUSERS_MODULE = QueryModule(ALLUSERS, allusers_run)

MODULES = (USERS_MODULE, ALLUSERS_MODULE)

"""`list=users`: named accounts, in request order, as ApiQueryUsers."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.accounts import rights as group_rights
from atrium.wiki.accounts.usernames import is_creatable, is_ip, normalize_username
from atrium.wiki.api.actions.common import block_info
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    INTEGER,
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.api.query.user_facts import IMPLICIT, UserFacts, add_central_ids, user_facts
from atrium.wiki.changes.expiry import api_expiry
from atrium.wiki.messages import messages as msg
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import NS_MAIN, InvalidTitle

U = schema.user


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


async def run(q: QueryRun, params: dict[str, Any]) -> None:
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
        return user_facts(conn, rows, props)

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
                result.append(_entry(q, found, props))
    else:
        for user_id in dict.fromkeys(ids):
            f = facts.get(user_id)
            if f is None:
                entry = {"userid": user_id}
                out.flag_if(entry, "missing", True)
                result.append(entry)
            else:
                result.append(_entry(q, f, props))
    q.data["users"] = result


def _entry(q: QueryRun, f: UserFacts, props: set[str]) -> dict[str, Any]:
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
        add_central_ids(q, data, user_id)
    return data


def _emailable(f: UserFacts) -> bool:
    return bool(f.row["user_email"]) and f.properties.get("disablemail", "0") in ("0", "")


MODULE = QueryModule(USERS, run)

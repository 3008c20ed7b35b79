"""`meta=userinfo`: who the caller is, with the `uiprop` sections asked for.

`blockinfo` adds the details of the block that applies to the caller (the account or the address
it comes from), and nothing for callers nobody blocked, as MediaWiki; `groupmemberships` shows
each membership's expiry.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.accounts import rights
from atrium.wiki.api.actions.common import block_info
from atrium.wiki.api.params import (
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.changes import blocks as block_changes
from atrium.wiki.changes.expiry import api_expiry
from atrium.wiki.reads.newtalk import has_new_talk
from atrium.wiki.reads.sessions import TOKEN_SALTS, make_token
from atrium.wiki.reads.users import DEFAULT_OPTIONS, latest_contribution, options
from atrium.wiki.timestamps import iso, now14


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    ctx = q.ctx
    out = ctx.out
    user = ctx.caller
    props = set(params["prop"])
    info: dict[str, Any] = {"id": user.id, "name": user.name}
    if not user.registered:
        out.flag_if(info, "anon", True)
    if "blockinfo" in props:
        found = await ctx.db.read(
            block_changes.blocks_of, user.id if user.registered else None, ctx.client_ip
        )
        if found:
            info.update(block_info(ctx, found[0]))
    if "hasmsg" in props:
        ip = "" if user.registered else ctx.client_ip
        has = await ctx.db.read(has_new_talk, user.id if user.registered else None, ip)
        out.flag(info, "messages", has)
    if "groups" in props:
        info["groups"] = user.all_groups
    if "groupmemberships" in props:
        info["groupmemberships"] = await ctx.db.read(_memberships, user.id)
    if "implicitgroups" in props:
        info["implicitgroups"] = user.implicit_groups
    if "rights" in props:
        info["rights"] = user.rights
    if "changeablegroups" in props:
        if user.allowed("userrights"):
            info["changeablegroups"] = {
                "add": list(rights.CHANGEABLE_BY["bureaucrat"]),
                "remove": list(rights.CHANGEABLE_BY["bureaucrat"]),
                "add-self": [],
                "remove-self": [],
            }
        else:
            info["changeablegroups"] = {"add": [], "remove": [], "add-self": [], "remove-self": []}
    if "options" in props:
        info["options"] = (
            await ctx.db.read(options, user.id) if user.registered else dict(DEFAULT_OPTIONS)
        )
    if "preferencestoken" in props and user.registered and ctx.session_secret is not None:
        info["preferencestoken"] = make_token(ctx.session_secret, TOKEN_SALTS["csrf"])
    if "editcount" in props:
        # An anonymous caller counts 0 edits (ApiQueryUserInfo casts the missing count).
        info["editcount"] = user.editcount if user.registered else 0
    if "ratelimits" in props:
        info["ratelimits"] = {}
    if "realname" in props and user.registered:
        info["realname"] = user.real_name
    if "email" in props and user.registered:
        info["email"] = user.email
        if user.email and user.email_authenticated:
            info["emailauthenticated"] = iso(user.email_authenticated)
    if "registrationdate" in props and user.registered and user.registration:
        info["registrationdate"] = iso(user.registration)
    if "acceptlang" in props:
        info["acceptlang"] = []
    if "unreadcount" in props:
        info["unreadcount"] = 0
    if "centralids" in props:
        info["centralids"] = {"local": user.id}
        info["attachedlocal"] = {"local": user.registered}
        # A workspace member's identity is a central id, as CentralAuth's global id is.
        accounts = q.ctx.accounts if user.registered else None
        linked = await accounts.for_user("wiki", user.id) if accounts is not None else None
        if linked is not None and linked.identity_id:
            info["centralids"]["CentralAuth"] = linked.identity_id
            info["attachedlocal"]["CentralAuth"] = True
    if "latestcontrib" in props and user.registered:
        latest = await ctx.db.read(latest_contribution, user.id)
        if latest:
            info["latestcontrib"] = iso(latest)
    q.data["userinfo"] = info


def _memberships(conn: Conn, user_id: int) -> list[dict[str, str]]:
    ug = schema.user_groups
    rows = conn.all(
        sa.select(ug.c.ug_group, ug.c.ug_expiry)
        .where(ug.c.ug_user == user_id)
        .where(sa.or_(ug.c.ug_expiry.is_(None), ug.c.ug_expiry > now14()))
        .order_by(ug.c.ug_group)
    )
    return [
        {"group": str(r["ug_group"]), "expiry": api_expiry(r["ug_expiry"], "infinity")}
        for r in rows
    ]


USERINFO = ModuleSpec(
    "userinfo",
    "ApiQueryUserInfo",
    "meta",
    "ui",
    (
        Param(
            "prop",
            enum(
                "acceptlang",
                "blockinfo",
                "centralids",
                "changeablegroups",
                "editcount",
                "email",
                "groupmemberships",
                "groups",
                "hasmsg",
                "implicitgroups",
                "latestcontrib",
                "options",
                "ratelimits",
                "realname",
                "registrationdate",
                "rights",
                "unreadcount",
                "preferencestoken",
            ),
            multi=True,
            allspecifier="*",
            deprecatedvalues=("preferencestoken",),
        ),
        Param("attachedwiki"),
    ),
)


MODULE = QueryModule(USERINFO, run)

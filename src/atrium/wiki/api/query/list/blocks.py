"""`list=blocks`: active blocks, newest first unless `dir=newer`, continue `<timestamp>|<id>`;
suppressed blocks only for `hideuser`; as ApiQueryBlocks."""

from __future__ import annotations

import ipaddress
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.accounts.usernames import is_ip
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    INTEGER,
    TIMESTAMP,
    USER,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.journal import Walk, check_show, timestamp
from atrium.wiki.api.query.listing import prefixed
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.changes.blocks import hex_to_ip, ip_hex, range_bounds, sanitize_target
from atrium.wiki.changes.expiry import api_expiry
from atrium.wiki.messages import messages as msg
from atrium.wiki.timestamps import now14

B = schema.ipblocks
BR = schema.ipblocks_restrictions
A = schema.actor
C = schema.comment
P = schema.page

# $wgBlockCIDRLimit
CIDR_LIMIT = {4: 16, 6: 19}

_SHOW_PAIRS = (("account", "!account"), ("ip", "!ip"), ("range", "!range"), ("temp", "!temp"))


BLOCKS = ModuleSpec(
    "blocks",
    "ApiQueryBlocks",
    "list",
    "bk",
    (
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("dir", enum("newer", "older"), default="older"),
        Param("ids", INTEGER, multi=True),
        Param("users", USER, multi=True, subtypes=("name", "ip", "cidr")),
        Param("ip"),
        limit(default=10),
        Param(
            "prop",
            enum(
                "by",
                "byid",
                "expiry",
                "flags",
                "id",
                "range",
                "reason",
                "restrictions",
                "timestamp",
                "user",
                "userid",
            ),
            default="id|user|by|timestamp|expiry|reason|flags",
            multi=True,
        ),
        Param(
            "show",
            enum("!account", "!ip", "!range", "!temp", "account", "ip", "range", "temp"),
            multi=True,
        ),
        Param("continue"),
    ),
)


def _cidr_error(version: int) -> ApiUsageError:
    return ApiUsageError(
        "cidrtoobroad",
        msg.api("apierror-cidrtoobroad", f"IPv{version}", CIDR_LIMIT[version]),
        module=BLOCKS.path,
    )


def _ip_bounds(value: str) -> tuple[str, str]:
    try:
        network = ipaddress.ip_network(value, strict=False)
    except ValueError as exc:
        raise ApiUsageError(
            "param_ip",
            msg.api("apierror-badip"),
            module=BLOCKS.path,
        ) from exc
    if "/" in value and network.prefixlen < CIDR_LIMIT[network.version]:
        raise _cidr_error(network.version)
    if "/" in value:
        return range_bounds(str(network))
    hx = ip_hex(str(network.network_address))
    return hx, hx


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    spec = BLOCKS
    if params["users"] and params["ip"] is not None:
        raise ApiUsageError(
            "invalidparammix", msg.invalidparammix(["bkusers", "bkip"]), module=spec.path
        )
    show = list(params["show"] or ())
    check_show(spec, show, _SHOW_PAIRS)
    walk = Walk.of(params)
    query = (
        sa.select(B, A.c.actor_name, A.c.actor_user, C.c.comment_text)
        .select_from(
            B.join(A, A.c.actor_id == B.c.ipb_by_actor).join(C, C.c.comment_id == B.c.ipb_reason_id)
        )
        .where(sa.or_(B.c.ipb_expiry == "infinity", B.c.ipb_expiry > now14()))
    )
    query = walk.window(query, B.c.ipb_timestamp)
    if params["ids"]:
        query = query.where(B.c.ipb_id.in_(params["ids"]))
    if params["users"]:
        targets = [
            sanitize_target(u) if is_ip(u.split("/")[0]) else u.replace("_", " ")
            for u in params["users"]
        ]
        query = query.where(B.c.ipb_address.in_(targets))
    if params["ip"] is not None:
        lower, upper = _ip_bounds(params["ip"])
        query = query.where(
            B.c.ipb_user == 0,
            B.c.ipb_auto == sa.false(),
            B.c.ipb_range_start <= lower,
            B.c.ipb_range_end >= upper,
        )
    conds = {
        "account": B.c.ipb_user != 0,
        "!account": B.c.ipb_user == 0,
        "ip": sa.and_(B.c.ipb_user == 0, B.c.ipb_range_end == B.c.ipb_range_start),
        "!ip": sa.or_(B.c.ipb_user != 0, B.c.ipb_range_end > B.c.ipb_range_start),
        "temp": B.c.ipb_expiry != "infinity",
        "!temp": B.c.ipb_expiry == "infinity",
        "range": B.c.ipb_range_end > B.c.ipb_range_start,
        "!range": B.c.ipb_range_end == B.c.ipb_range_start,
    }
    for value in sorted(set(show)):
        query = query.where(conds[value])
    if not q.ctx.caller.allowed("hideuser"):
        query = query.where(B.c.ipb_deleted == sa.false())
    return await walk.page(
        q, query, (B.c.ipb_timestamp, B.c.ipb_id), (str, int), ("ipb_timestamp", "ipb_id")
    )


def _restrictions(conn: Conn, ids: list[int]) -> dict[int, dict[str, Any]]:
    if not ids:
        return {}
    rows = conn.all(
        sa.select(BR, P.c.page_namespace, P.c.page_title)
        .select_from(BR.outerjoin(P, sa.and_(BR.c.ir_type == 1, P.c.page_id == BR.c.ir_value)))
        .where(BR.c.ir_ipb_id.in_(ids))
        .order_by(BR.c.ir_ipb_id, BR.c.ir_type, BR.c.ir_value)
    )
    out: dict[int, dict[str, Any]] = {}
    for r in rows:
        entry = out.setdefault(int(r["ir_ipb_id"]), {})
        if int(r["ir_type"]) == 1 and r["page_title"] is not None:
            entry.setdefault("pages", []).append(r)
        elif int(r["ir_type"]) == 2:
            entry.setdefault("namespaces", []).append(int(r["ir_value"]))
    return out


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    out = q.ctx.out
    rows, cont = await _rows(q, params)
    props = set(params["prop"])
    partial_ids = [int(r["ipb_id"]) for r in rows if not r["ipb_sitewide"]]
    restrictions = (
        await q.ctx.db.read(lambda conn: _restrictions(conn, partial_ids))
        if "restrictions" in props
        else {}
    )
    items = []
    for row in rows:
        auto = bool(row["ipb_auto"])
        block: dict[str, Any] = {}
        if "id" in props:
            block["id"] = int(row["ipb_id"])
        if "user" in props and not auto:
            block["user"] = row["ipb_address"]
        if "userid" in props and not auto:
            block["userid"] = int(row["ipb_user"])
        if "by" in props:
            block["by"] = row["actor_name"]
        if "byid" in props:
            block["byid"] = int(row["actor_user"] or 0)
        if "timestamp" in props:
            block["timestamp"] = timestamp(row["ipb_timestamp"])
        if "expiry" in props:
            block["expiry"] = api_expiry(str(row["ipb_expiry"]), "infinity")
        if "reason" in props:
            block["reason"] = row["comment_text"]
        if "range" in props and not auto and row["ipb_range_start"]:
            block["rangestart"] = hex_to_ip(str(row["ipb_range_start"]))
            block["rangeend"] = hex_to_ip(str(row["ipb_range_end"]))
        if "flags" in props:
            out.flag(block, "automatic", auto)
            out.flag(block, "anononly", bool(row["ipb_anon_only"]))
            out.flag(block, "nocreate", bool(row["ipb_create_account"]))
            out.flag(block, "autoblock", bool(row["ipb_enable_autoblock"]))
            out.flag(block, "noemail", bool(row["ipb_block_email"]))
            out.flag(block, "hidden", bool(row["ipb_deleted"]))
            out.flag(block, "allowusertalk", bool(row["ipb_allow_usertalk"]))
            out.flag(block, "partial", not row["ipb_sitewide"])
        if "restrictions" in props:
            found = restrictions.get(int(row["ipb_id"]))
            value: Any = []
            if not row["ipb_sitewide"] and found:
                value = {}
                if "pages" in found:
                    value["pages"] = [
                        {
                            "id": int(p["ir_value"]),
                            "ns": int(p["page_namespace"]),
                            "title": prefixed(q, int(p["page_namespace"]), str(p["page_title"])),
                        }
                        for p in found["pages"]
                    ]
                if "namespaces" in found:
                    value["namespaces"] = found["namespaces"]
            block["restrictions"] = value
        items.append(block)
    q.data["blocks"] = items
    if cont is not None:
        q.continuation.add(BLOCKS, "continue", cont)


MODULE = QueryModule(BLOCKS, run)

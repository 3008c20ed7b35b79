"""Blocks: of accounts, IP addresses and CIDR ranges, sitewide or partial, with an expiry.

Rows follow MediaWiki's `ipblocks`: an account block names the user (`ipb_user`), an IP or range
block stores its bounds as hexadecimal (`IPUtils::toHex`) so that "which blocks cover this
address" is a range comparison. Partial blocks list their pages and namespaces in
`ipblocks_restrictions` (type 1 page id, type 2 namespace).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.accounts.usernames import is_ip_or_range
from atrium.wiki.changes import ChangeError, invalidation
from atrium.wiki.changes.expiry import INFINITY, api_expiry, is_active
from atrium.wiki.changes.hideuser import set_user_hidden
from atrium.wiki.changes.journal import Performer, actor_id, comment_id, log_event
from atrium.wiki.site import Site
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import NS_USER, NS_USER_TALK, Title

B = schema.ipblocks
R = schema.ipblocks_restrictions
RESTRICTION_PAGE = 1
RESTRICTION_NS = 2


def ip_hex(address: str) -> str:
    """IPUtils::toHex: 8 hex digits for IPv4, `v6-` and 32 for IPv6."""
    ip = ipaddress.ip_address(address)
    if ip.version == 4:
        return f"{int(ip):08X}"
    return f"v6-{int(ip):032X}"


def range_bounds(target: str) -> tuple[str, str]:
    """The hexadecimal bounds of an IP (start == end) or CIDR range."""
    net = ipaddress.ip_network(target, strict=False)
    if net.version == 4:
        return f"{int(net.network_address):08X}", f"{int(net.broadcast_address):08X}"
    return f"v6-{int(net.network_address):032X}", f"v6-{int(net.broadcast_address):032X}"


def sanitize_target(target: str) -> str:
    """A CIDR range as MediaWiki stores it: the network address and the prefix length."""
    if "/" in target:
        net = ipaddress.ip_network(target, strict=False)
        address = str(net.network_address)
        return f"{address.upper() if net.version == 6 else address}/{net.prefixlen}"
    return target


def hex_to_ip(value: str) -> str:
    if not value:
        return "0.0.0.0"
    if value.startswith("v6-"):
        return str(ipaddress.IPv6Address(int(value[3:], 16)))
    return str(ipaddress.IPv4Address(int(value, 16)))


@dataclass
class BlockRequest:
    target: str  # user name, IP or CIDR range (as given, normalised by the API)
    user_id: int  # 0 for an IP or range
    expiry: str  # `infinity` or 14 digits
    duration: str  # the expiry text as given (the log keeps it)
    reason: str = ""
    anononly: bool = False
    nocreate: bool = False
    autoblock: bool = False
    noemail: bool = False
    hidename: bool = False
    allowusertalk: bool = False
    reblock: bool = False
    partial: bool = False
    pages: list[tuple[int, Title]] = field(default_factory=list)  # (page id, title)
    namespaces: list[int] = field(default_factory=list)


def _existing(conn: Conn, target: str, user_id: int) -> Any:
    return conn.one(
        sa.select(B).where(
            B.c.ipb_address == target, B.c.ipb_user == user_id, B.c.ipb_auto.is_(False)
        )
    )


def block(
    conn: Conn, who: Performer, req: BlockRequest, site: Site | None = None
) -> tuple[int, int]:
    """Create (or with `reblock` replace) a block; returns (block id, log id)."""
    if not who.allowed("block"):
        raise ChangeError(
            "permissiondenied",
            "You don't have permission to block this user from editing.",
            "apierror-permissiondenied",
            ({"message": {"key": "action-block", "params": []}},),
        )
    if req.hidename and not who.allowed("hideuser"):
        raise ChangeError(
            "canthide", "You don't have permission to hide user names from the block log."
        )
    if req.hidename and req.partial:  # BlockUser::validateBlock
        raise ChangeError(
            "ipb_hide_partial", "Hideuser blocks should be sitewide blocks.", "ipb_hide_partial"
        )
    if req.hidename and req.expiry != INFINITY:
        raise ChangeError(
            "ipb_expiry_temp", "Hidden username blocks must be permanent.", "ipb_expiry_temp"
        )
    if req.noemail and not who.allowed("blockemail"):
        raise ChangeError(
            "cantblock-email",
            "You don't have permission to block users from sending email through the wiki.",
        )
    if req.partial and not req.allowusertalk and NS_USER_TALK not in req.namespaces:
        raise ChangeError(
            "ipb-prevent-user-talk-edit",
            "Editing their own talk page must be allowed for a partial block, unless it includes "
            "a restriction on the User Talk namespace.",
            "ipb-prevent-user-talk-edit",
        )
    ts = now14()
    existing = _existing(conn, req.target, req.user_id)
    if existing is not None and is_active(str(existing["ipb_expiry"]), ts) and not req.reblock:
        raise ChangeError(
            "alreadyblocked", f'"{req.target}" is already blocked.', "ipb_already_blocked",
            (req.target,),
        )  # fmt: skip
    is_ip = req.user_id == 0
    start, end = range_bounds(req.target) if is_ip else ("", "")
    values = {
        "ipb_address": req.target,
        "ipb_user": req.user_id,
        "ipb_by_actor": actor_id(conn, who),
        "ipb_reason_id": comment_id(conn, req.reason),
        "ipb_timestamp": ts,
        "ipb_auto": False,
        "ipb_anon_only": req.anononly and is_ip,
        "ipb_create_account": req.nocreate,
        "ipb_enable_autoblock": req.autoblock and not is_ip,
        "ipb_expiry": req.expiry,
        "ipb_range_start": start,
        "ipb_range_end": end,
        "ipb_deleted": req.hidename,
        "ipb_block_email": req.noemail,
        "ipb_allow_usertalk": req.allowusertalk,
        "ipb_sitewide": not req.partial,
    }
    if existing is not None:
        block_id = int(existing["ipb_id"])
        conn.execute(sa.update(B).where(B.c.ipb_id == block_id).values(**values))
        conn.execute(sa.delete(R).where(R.c.ir_ipb_id == block_id))
        action = "reblock" if is_active(str(existing["ipb_expiry"]), ts) else "block"
    else:
        row = conn.one(sa.insert(B).values(**values).returning(B.c.ipb_id))
        assert row is not None
        block_id = int(row["ipb_id"])
        action = "block"
    restrictions = [
        {"ir_ipb_id": block_id, "ir_type": RESTRICTION_PAGE, "ir_value": page_id}
        for page_id, _ in req.pages
    ] + [
        {"ir_ipb_id": block_id, "ir_type": RESTRICTION_NS, "ir_value": ns} for ns in req.namespaces
    ]
    if req.partial and restrictions:
        conn.executemany(sa.insert(R), restrictions)
    params: dict[str, Any] = {
        "duration": INFINITY if req.expiry == INFINITY else req.duration,
        "flags": log_flags(req, is_ip),
        "sitewide": not req.partial,
    }
    if req.partial and (req.pages or req.namespaces):
        params["restrictions"] = {}
        if req.pages:
            params["restrictions"]["pages"] = [
                {"page_ns": t.ns, "page_title": t.dbkey} for _, t in req.pages
            ]
        if req.namespaces:
            params["restrictions"]["namespaces"] = list(req.namespaces)
    if req.expiry != INFINITY:
        params["expiry"] = api_expiry(req.expiry)
    log_id = log_event(
        conn,
        who,
        "suppress" if req.hidename else "block",
        action,
        Title(NS_USER, req.target.replace(" ", "_")),
        reason=req.reason,
        params=params,
        timestamp=ts,
        in_rc=not req.hidename,
        site=site,
    )
    was_hidden = existing is not None and is_active(str(existing["ipb_expiry"]), ts)
    was_hidden = was_hidden and bool(existing["ipb_deleted"])
    if req.user_id and req.hidename != was_hidden:
        set_user_hidden(
            conn, req.user_id, req.target, req.hidename, invalidation.log_change(log_id)
        )
    return block_id, log_id


def log_flags(req: BlockRequest, is_ip: bool) -> list[str]:
    """SpecialBlock::blockLogFlags."""
    flags = []
    if req.anononly and is_ip:
        flags.append("anononly")
    if req.nocreate:
        flags.append("nocreate")
    if not req.autoblock and not is_ip:
        flags.append("noautoblock")
    if req.noemail:
        flags.append("noemail")
    if not req.allowusertalk:
        flags.append("nousertalk")
    if req.hidename:
        flags.append("hiddenname")
    return flags


def unblock(
    conn: Conn,
    who: Performer,
    block_id: int | None,
    target: str | None,
    reason: str,
    site: Site | None = None,
) -> Any:
    """Remove a block (by id or by target); returns its row as it was."""
    if not who.allowed("block"):
        raise ChangeError(
            "permissiondenied",
            "You don't have permission to unblock users.",
            "apierror-permissiondenied-unblock",
        )
    ts = now14()
    if block_id is not None:
        row = conn.one(sa.select(B).where(B.c.ipb_id == block_id))
        if row is None or not is_active(str(row["ipb_expiry"]), ts):
            raise ChangeError(
                "cantunblock",
                f"Error: Block for #{block_id} not found. It may have been removed already.",
                "ipb_cant_unblock",
                (f"#{block_id}",),
            )
    else:
        assert target is not None
        row = conn.one(
            sa.select(B)
            .where(B.c.ipb_address == target, B.c.ipb_auto.is_(False))
            .order_by(B.c.ipb_id.desc())
        )
        if row is None or not is_active(str(row["ipb_expiry"]), ts):
            raise ChangeError(
                "cantunblock",
                f"Error: Block for {target} not found. It may have been removed already.",
                "ipb_cant_unblock",
                (target,),
            )
    if row["ipb_deleted"] and not who.allowed("hideuser"):
        raise ChangeError(  # BlockPermissionChecker::checkBlockPermissions
            "unblock-hideuser",
            "You cannot unblock this user, as their username has been hidden.",
            "unblock-hideuser",
        )
    conn.execute(sa.delete(R).where(R.c.ir_ipb_id == row["ipb_id"]))
    conn.execute(sa.delete(B).where(B.c.ipb_id == row["ipb_id"]))
    log_id = log_event(
        conn,
        who,
        "block",
        "unblock",
        Title(NS_USER, str(row["ipb_address"]).replace(" ", "_")),
        reason=reason,
        timestamp=ts,
        site=site,
    )
    if row["ipb_deleted"] and row["ipb_user"]:
        address = str(row["ipb_address"])
        version = invalidation.log_change(log_id)
        set_user_hidden(conn, int(row["ipb_user"]), address, False, version)
    return row


# --- who is blocked from what -----------------------------------------------------------------


@dataclass(frozen=True)
class ActiveBlock:
    id: int
    target: str
    by_name: str
    by_id: int
    reason: str
    timestamp: str
    expiry: str
    sitewide: bool
    nocreate: bool
    anononly: bool
    allow_usertalk: bool
    automatic: bool
    pages: frozenset[int]
    namespaces: frozenset[int]

    def applies_to(self, title: Title, page_id: int | None, own_name: str) -> bool:
        """Whether this block stops an edit of `title` (DatabaseBlock::appliesToTitle)."""
        own_talk = title.ns == NS_USER_TALK and title.dbkey == own_name.replace(" ", "_")
        if self.sitewide:
            return not (own_talk and self.allow_usertalk)
        if own_talk and NS_USER_TALK not in self.namespaces and self.allow_usertalk:
            return False
        if title.ns in self.namespaces:
            return True
        return page_id is not None and page_id in self.pages


def blocks_of(conn: Conn, user_id: int | None, ip: str | None) -> list[ActiveBlock]:
    """The unexpired blocks that apply to an account and/or the address it comes from."""
    ts = now14()
    conditions = []
    if user_id:
        conditions.append(B.c.ipb_user == user_id)
    if ip and is_ip_or_range(ip):
        hx = ip_hex(ip)
        ip_cond = sa.and_(B.c.ipb_user == 0, B.c.ipb_range_start <= hx, B.c.ipb_range_end >= hx)
        if user_id:
            # anon-only blocks of an address spare logged-in users
            ip_cond = sa.and_(ip_cond, B.c.ipb_anon_only.is_(False))
        conditions.append(ip_cond)
    if not conditions:
        return []
    actor = schema.actor
    rows = conn.all(
        sa.select(B, actor.c.actor_name, actor.c.actor_user, schema.comment.c.comment_text)
        .join(actor, actor.c.actor_id == B.c.ipb_by_actor)
        .join(schema.comment, schema.comment.c.comment_id == B.c.ipb_reason_id)
        .where(sa.or_(*conditions))
        .where(sa.or_(B.c.ipb_expiry == INFINITY, B.c.ipb_expiry > ts))
        .order_by(B.c.ipb_user.desc(), B.c.ipb_id)
    )
    if not rows:
        return []
    ids = [int(r["ipb_id"]) for r in rows]
    restrictions = conn.all(sa.select(R).where(R.c.ir_ipb_id.in_(ids)))
    found = []
    for r in rows:
        mine = [x for x in restrictions if x["ir_ipb_id"] == r["ipb_id"]]
        found.append(
            ActiveBlock(
                id=int(r["ipb_id"]),
                target=str(r["ipb_address"]),
                by_name=str(r["actor_name"]),
                by_id=int(r["actor_user"] or 0),
                reason=str(r["comment_text"]),
                timestamp=str(r["ipb_timestamp"]),
                expiry=str(r["ipb_expiry"]),
                sitewide=bool(r["ipb_sitewide"]),
                nocreate=bool(r["ipb_create_account"]),
                anononly=bool(r["ipb_anon_only"]),
                allow_usertalk=bool(r["ipb_allow_usertalk"]),
                automatic=bool(r["ipb_auto"]),
                pages=frozenset(int(x["ir_value"]) for x in mine if x["ir_type"] == 1),
                namespaces=frozenset(int(x["ir_value"]) for x in mine if x["ir_type"] == 2),
            )
        )
    return found


def blocking(
    conn: Conn, user_id: int | None, name: str, ip: str | None, title: Title | None
) -> ActiveBlock | None:
    """The block that stops this caller from changing `title` (or from anything, when None:
    only sitewide blocks count then)."""
    blocks = blocks_of(conn, user_id, ip)
    if not blocks:
        return None
    page_id = None
    if title is not None:
        page_id = conn.scalar(
            sa.select(schema.page.c.page_id).where(
                schema.page.c.page_namespace == title.ns,
                schema.page.c.page_title == title.dbkey,
            )
        )
    for b in blocks:
        if title is None:
            if b.sitewide:
                return b
        elif b.applies_to(title, page_id, name):
            return b
    return None


class Blocked(ChangeError):
    """A change refused because a block stops its performer; the API shows the block."""

    def __init__(self, block: ActiveBlock) -> None:
        code = "blocked" if block.sitewide else "blocked-partial"
        super().__init__("blocked", "You have been blocked from editing.", f"apierror-{code}")
        self.block = block


def refuse_blocked(conn: Conn, who: Performer, title: Title | None) -> None:
    """Raise `Blocked` when a block stops `who` from changing `title`."""
    found = blocking(conn, who.user_id, who.name, who.ip, title)
    if found is not None:
        raise Blocked(found)

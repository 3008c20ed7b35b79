"""Revision deletion: hiding (or showing again) a revision's text, summary or author, or a log
entry's action, summary or performer, and suppressing them from administrators too.

MediaWiki's RevDelList::setVisibility for the `revision` list (live revisions of the target page,
and deleted revisions found by their revision id) and the `logging` list. Each item gets its own
status; the change is logged once for the items that changed (`delete/revision`, `delete/event`,
or `suppress/…` when the suppression bit is set or cleared on any of them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes.journal import PATROLLED_AUTO, Performer, log_event
from atrium.wiki.reads.visibility import (
    DELETED_COMMENT,
    DELETED_RESTRICTED,
    DELETED_TEXT,
    DELETED_USER,
    user_can_bitfield,
)
from atrium.wiki.site import Site
from atrium.wiki.timestamps import MONTHS
from atrium.wiki.titles import NS_SPECIAL, Title

_FIELDS = ((DELETED_TEXT, "content"), (DELETED_COMMENT, "comment"), (DELETED_USER, "user"))
# The log types only some rights may read ($wgLogRestrictions).
LOG_RESTRICTIONS = {"suppress": "suppressionlog"}
# RevisionDeleter::getRestriction: the right each list type needs.
RESTRICTION = {
    "revision": "deleterevision",
    "archive": "deleterevision",
    "oldimage": "deleterevision",
    "filearchive": "deleterevision",
    "logging": "deletelogentry",
}
_CANONICAL_INT = re.compile(r"(0|[1-9][0-9]{0,17})")


@dataclass
class ItemStatus:
    """One item's Status: ok unless fatal; its errors and warnings as (message key, params)."""

    ident: int | str
    ok: bool = True
    errors: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    warnings: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    row: dict[str, Any] | None = None  # the item after the change (None: not found)


@dataclass(frozen=True)
class Outcome:
    items: list[ItemStatus]
    log_id: int | None


# RevisionDeleter::getRelationType: the log_search field of each list type's items.
RELATION_FIELD = {
    "revision": "rev_id",
    "archive": "ar_timestamp",
    "oldimage": "oi_archive_name",
    "filearchive": "fa_id",
    "logging": "log_id",
}


def item_key(text: str) -> int | str:
    """The id as PHP keys it: a canonical decimal is an integer, anything else stays text."""
    return int(text) if _CANONICAL_INT.fullmatch(text) else text


def new_bits(wanted: dict[int, int], old: int) -> int:
    """RevisionDeleter::extractBitfield: 1 sets a bit, 0 clears it, -1 keeps it."""
    bits = old
    for bit, value in wanted.items():
        if value == 1:
            bits |= bit
        elif value == 0:
            bits &= ~bit
    return bits


def log_type_visible(log_type: str, rights: frozenset[str]) -> bool:
    right = LOG_RESTRICTIONS.get(log_type)
    return right is None or right in rights


def _date_time(ts14: str) -> tuple[str, str]:
    """Language::userDate and userTime, the parameters of the per-item messages."""
    return (
        f"{int(ts14[6:8])} {MONTHS[int(ts14[4:6]) - 1]} {ts14[0:4]}",
        f"{ts14[8:10]}:{ts14[10:12]}",
    )


def suggest_target(conn: Conn, kind: str, target: Title | None, ids: Sequence[str]) -> Title | None:
    """RevisionDeleter::suggestTarget: a revision's own page (its first id), for log entries
    `Special:Log/<type>` when they are all of one type (`Special:Log` otherwise), and for a
    deleted page's revisions the target asked for."""
    if kind in ("archive", "oldimage", "filearchive"):
        return target
    if kind == "revision":
        first = item_key(ids[0]) if ids else ""
        if isinstance(first, int):
            page = conn.one(
                sa.select(schema.page.c.page_namespace, schema.page.c.page_title)
                .join(schema.revision, schema.revision.c.rev_page == schema.page.c.page_id)
                .where(schema.revision.c.rev_id == first)
            )
            if page is not None:
                return Title(int(page["page_namespace"]), str(page["page_title"]))
        return target
    numbers = [k for k in (item_key(i) for i in ids) if isinstance(k, int)]
    types = conn.scalars(
        sa.select(schema.logging.c.log_type).where(schema.logging.c.log_id.in_(numbers)).distinct()
    )
    return Title(NS_SPECIAL, f"Log/{types[0]}" if len(types) == 1 else "Log")


def _revision_rows(conn: Conn, title: Title, ids: list[int]) -> list[dict[str, Any]]:
    """RevDelRevisionList::doQuery: the target page's live revisions, then deleted ones found by
    revision id; newest id first."""
    R, P, A, C = schema.revision, schema.page, schema.actor, schema.comment
    live = conn.all(
        sa.select(
            R.c.rev_id.label("id"),
            R.c.rev_timestamp.label("timestamp"),
            R.c.rev_deleted.label("deleted"),
            A.c.actor_id,
            A.c.actor_user,
            A.c.actor_name,
            C.c.comment_text,
            P.c.page_latest,
        )
        .join(P, P.c.page_id == R.c.rev_page)
        .join(A, A.c.actor_id == R.c.rev_actor)
        .join(C, C.c.comment_id == R.c.rev_comment_id)
        .where(P.c.page_namespace == title.ns, P.c.page_title == title.dbkey, R.c.rev_id.in_(ids))
    )
    rows = {int(r["id"]): {**r, "archived": False} for r in live}
    if len(rows) < len(set(ids)):
        AR = schema.archive
        archived = conn.all(
            sa.select(
                AR.c.ar_rev_id.label("id"),
                AR.c.ar_timestamp.label("timestamp"),
                AR.c.ar_deleted.label("deleted"),
                A.c.actor_id,
                A.c.actor_user,
                A.c.actor_name,
                C.c.comment_text,
            )
            .join(A, A.c.actor_id == AR.c.ar_actor)
            .join(C, C.c.comment_id == AR.c.ar_comment_id)
            .where(AR.c.ar_rev_id.in_(ids))
        )
        for r in archived:
            rows[int(r["id"])] = {**r, "archived": True, "rev_id": r["id"], "page_latest": None}
    return [rows[k] for k in sorted(rows, reverse=True)]


def _archive_rows(conn: Conn, title: Title, ids: list[int]) -> list[dict[str, Any]]:
    """RevDelArchiveList::doQuery: a deleted page's revisions by timestamp (their ids here)."""
    AR, A, C = schema.archive, schema.actor, schema.comment
    found = conn.all(
        sa.select(
            AR.c.ar_timestamp.label("id"),
            AR.c.ar_rev_id.label("rev_id"),
            AR.c.ar_timestamp.label("timestamp"),
            AR.c.ar_deleted.label("deleted"),
            A.c.actor_id,
            A.c.actor_user,
            A.c.actor_name,
            C.c.comment_text,
        )
        .join(A, A.c.actor_id == AR.c.ar_actor)
        .join(C, C.c.comment_id == AR.c.ar_comment_id)
        .where(
            AR.c.ar_namespace == title.ns,
            AR.c.ar_title == title.dbkey,
            AR.c.ar_timestamp.in_([str(i) for i in ids if len(str(i)) == 14]),
        )
        .order_by(AR.c.ar_timestamp.desc())
    )
    return [{**r, "archived": True, "page_latest": None} for r in found]


def _log_rows(conn: Conn, ids: list[int]) -> list[dict[str, Any]]:
    L, A, C = schema.logging, schema.actor, schema.comment
    found = conn.all(
        sa.select(
            L.c.log_id.label("id"),
            L.c.log_timestamp.label("timestamp"),
            L.c.log_deleted.label("deleted"),
            L.c.log_type,
            L.c.log_action,
            L.c.log_params,
            L.c.log_namespace,
            L.c.log_title,
            A.c.actor_id,
            A.c.actor_user,
            A.c.actor_name,
            C.c.comment_text,
        )
        .join(A, A.c.actor_id == L.c.log_actor)
        .join(C, C.c.comment_id == L.c.log_comment_id)
        .where(L.c.log_id.in_(ids))
        .order_by(L.c.log_id.desc())
    )
    return [dict(r) for r in found]


def _oldimage_rows(conn: Conn, title: Title, ids: list[int]) -> list[dict[str, Any]]:
    """RevDelFileList::doQuery: a file's old versions by the timestamp of their archive name."""
    OI, A, C = schema.oldimage, schema.actor, schema.comment
    names = [f"{i}!{title.dbkey}" for i in ids if len(str(i)) == 14]
    found = conn.all(
        sa.select(
            OI.c.oi_name.label("name"),
            OI.c.oi_archive_name.label("archive_name"),
            OI.c.oi_timestamp.label("timestamp"),
            OI.c.oi_deleted.label("deleted"),
            OI.c.oi_width.label("width"),
            OI.c.oi_height.label("height"),
            OI.c.oi_size.label("size"),
            A.c.actor_id,
            A.c.actor_user,
            A.c.actor_name,
            C.c.comment_text,
        )
        .join(A, A.c.actor_id == OI.c.oi_actor)
        .join(C, C.c.comment_id == OI.c.oi_description_id)
        .where(OI.c.oi_name == title.dbkey, OI.c.oi_archive_name.in_(names))
        .order_by(OI.c.oi_archive_name.desc())
    )
    return [
        {**r, "id": int(str(r["archive_name"]).split("!", 1)[0]), "archived": False} for r in found
    ]


def _filearchive_rows(conn: Conn, title: Title, ids: list[int]) -> list[dict[str, Any]]:
    """RevDelArchivedFileList::doQuery: a deleted file's versions by `fa_id`."""
    FA, A, C = schema.filearchive, schema.actor, schema.comment
    found = conn.all(
        sa.select(
            FA.c.fa_id.label("id"),
            FA.c.fa_name.label("name"),
            FA.c.fa_timestamp.label("timestamp"),
            FA.c.fa_deleted.label("deleted"),
            FA.c.fa_width.label("width"),
            FA.c.fa_height.label("height"),
            FA.c.fa_size.label("size"),
            A.c.actor_id,
            A.c.actor_user,
            A.c.actor_name,
            C.c.comment_text,
        )
        .join(A, A.c.actor_id == FA.c.fa_actor)
        .join(C, C.c.comment_id == FA.c.fa_description_id)
        .where(FA.c.fa_name == title.dbkey, FA.c.fa_id.in_(ids))
        .order_by(FA.c.fa_id.desc())
    )
    return [{**r, "archived": True} for r in found]


def _rows(conn: Conn, kind: str, title: Title, ids: list[int]) -> list[dict[str, Any]]:
    if kind == "revision":
        return _revision_rows(conn, title, ids)
    if kind == "archive":
        return _archive_rows(conn, title, ids)
    if kind == "oldimage":
        return _oldimage_rows(conn, title, ids)
    if kind == "filearchive":
        return _filearchive_rows(conn, title, ids)
    return _log_rows(conn, ids)


def list_items(conn: Conn, kind: str, title: Title, ids: Sequence[str]) -> list[dict[str, Any]]:
    """RevDelList::doQuery: the items `ids` name, as `set_visibility` will find them (newest
    first; ids that are no canonical number find nothing), for a form to show before it asks."""
    numbers = [k for k in (item_key(i) for i in ids) if isinstance(k, int)]
    return _rows(conn, kind, title, numbers) if numbers else []


def _set_bits(conn: Conn, kind: str, item: dict[str, Any], bits: int) -> bool:
    """RevDel*Item::setBits: compare-and-set the bit field, then the recent change's copy."""
    ident, old = int(item["id"]), int(item["deleted"])
    rc = schema.recentchanges
    if kind in ("oldimage", "filearchive"):
        # A file version has no recent change of its own.
        if kind == "oldimage":
            OI = schema.oldimage
            done = conn.execute(
                sa.update(OI)
                .where(
                    OI.c.oi_name == item["name"],
                    OI.c.oi_archive_name == item["archive_name"],
                    OI.c.oi_deleted == old,
                )
                .values(oi_deleted=bits)
            )
        else:
            FA = schema.filearchive
            done = conn.execute(
                sa.update(FA).where(FA.c.fa_id == ident, FA.c.fa_deleted == old)
                .values(fa_deleted=bits)
            )  # fmt: skip
        return bool(done.rowcount)
    if kind == "logging":
        L = schema.logging
        done = conn.execute(
            sa.update(L).where(L.c.log_id == ident, L.c.log_deleted == old).values(log_deleted=bits)
        )
        where = rc.c.rc_logid == ident
    elif item["archived"]:
        AR = schema.archive
        done = conn.execute(
            sa.update(AR)
            .where(AR.c.ar_rev_id == int(item["rev_id"]), AR.c.ar_deleted == old)
            .values(ar_deleted=bits)
        )
        return bool(done.rowcount)
    else:
        R = schema.revision
        done = conn.execute(
            sa.update(R).where(R.c.rev_id == ident, R.c.rev_deleted == old).values(rev_deleted=bits)
        )
        where = rc.c.rc_this_oldid == ident
    if not done.rowcount:
        return False
    conn.execute(sa.update(rc).where(where).values(rc_deleted=bits, rc_patrolled=PATROLLED_AUTO))
    return True


def _field_flags(bits: int) -> dict[str, Any]:
    """DeleteLogFormatter's `old` / `new`: the bit mask and a flag per field."""
    flags: dict[str, Any] = {"bitmask": bits}
    for bit, name in (*_FIELDS, (DELETED_RESTRICTED, "restricted")):
        flags[name] = bool(bits & bit)
    return flags


def set_visibility(
    conn: Conn,
    who: Performer,
    kind: str,
    title: Title,
    ids: Sequence[str],
    wanted: dict[int, int],
    reason: str,
    tag_ids: Sequence[int] = (),
    site: Site | None = None,
) -> Outcome:
    """Change the visibility of each item; returns every item's status (found items newest
    first, then the missing ones in the order asked) and the log entry, if anything changed."""
    keys = list(dict.fromkeys(item_key(i) for i in ids))
    numbers = [k for k in keys if isinstance(k, int)]
    rows = _rows(conn, kind, title, numbers)
    missing = {k: None for k in keys}
    # By id: rows sharing one (a deleted page's revisions saved in the same second) are each
    # changed, and the last one's status stands, in the first one's place.
    statuses: dict[int | str, ItemStatus] = {}
    changed: list[int] = []
    authors: list[int] = []  # the changed items' actors (RevDelList's authorActors)
    virtual_old = virtual_new = 0
    log_type = "delete"
    for item in rows:
        ident = int(item["id"])
        missing.pop(ident, None)
        status = ItemStatus(ident)
        statuses[ident] = status
        old = int(item["deleted"])
        bits = new_bits(wanted, old)
        when = _date_time(str(item["timestamp"]))
        can_view = user_can_bitfield(old, DELETED_RESTRICTED, who.rights) and (
            kind != "logging" or log_type_visible(str(item["log_type"]), who.rights)
        )
        if old == bits:
            status.warnings.append(("revdelete-no-change", when))
        elif bits & DELETED_TEXT and kind == "revision" and item["page_latest"] == ident:
            status.errors.append(("revdelete-hide-current", when))
        elif not can_view:
            key = "revdelete-show-no-access" if bits == 0 else "revdelete-modify-no-access"
            status.errors.append((key, when))
        elif bits == DELETED_RESTRICTED:
            status.warnings.append(("revdelete-only-restricted", when))
        elif _set_bits(conn, kind, item, bits):
            changed.append(ident)
            authors.append(int(item["actor_id"]))
            if (old | bits) & DELETED_RESTRICTED:
                log_type = "suppress"
            virtual_new |= (old ^ bits) & bits
            virtual_old |= (old ^ bits) & old
        else:
            status.errors.append(("revdelete-concurrent-change", when))
    for absent in missing:
        statuses[absent] = ItemStatus(
            absent, ok=False, errors=[("revdelete-modify-missing", (absent,))]
        )
    log_id = None
    if changed:
        log_id = _log(
            conn, who, kind, title, log_type, changed, authors, virtual_old, virtual_new, reason,
            site,
        )  # fmt: skip
        _tag_log(conn, log_id, tag_ids)
    reloaded = {int(r["id"]): r for r in _rows(conn, kind, title, numbers)}
    for status in statuses.values():
        if isinstance(status.ident, int):
            status.row = reloaded.get(status.ident)
    return Outcome(list(statuses.values()), log_id)


def _log(
    conn: Conn,
    who: Performer,
    kind: str,
    title: Title,
    log_type: str,
    changed: list[int],
    authors: list[int],
    old: int,
    new: int,
    reason: str,
    site: Site | None,
) -> int:
    page_id = conn.scalar(
        sa.select(schema.page.c.page_id).where(
            schema.page.c.page_namespace == title.ns, schema.page.c.page_title == title.dbkey
        )
    )
    # A deleted page's revisions, a file's old and deleted versions are logged as text.
    by_text = kind in ("archive", "oldimage", "filearchive")
    ids: list[Any] = [str(i) for i in changed] if by_text else list(changed)
    params = {"type": kind, "ids": ids, "old": _field_flags(old), "new": _field_flags(new)}
    return log_event(
        conn,
        who,
        log_type,
        "event" if kind == "logging" else "revision",
        title,
        page_id=int(page_id) if page_id is not None else None,
        reason=reason,
        params=params,
        # The suppression log is restricted: ManualLogEntry::publish keeps it out of the feed.
        in_rc=log_type not in LOG_RESTRICTIONS,
        site=site,
        # Found again by the items and their authors (Special:RevisionDelete's log extract).
        relations={RELATION_FIELD[kind]: ids, "target_author_actor": authors},
    )


def _tag_log(conn: Conn, log_id: int, tag_ids: Sequence[int]) -> None:
    """The change tags of the log entry (and of its recent change)."""
    if not tag_ids:
        return
    rc_id = conn.scalar(
        sa.select(schema.recentchanges.c.rc_id).where(schema.recentchanges.c.rc_logid == log_id)
    )
    ctd = schema.change_tag_def
    for tag_id in tag_ids:
        conn.execute(
            sa.insert(schema.change_tag_event).values(
                cte_rc_id=rc_id, cte_log_id=log_id, cte_tag_id=tag_id
            )
        )
        conn.execute(
            sa.update(ctd).where(ctd.c.ctd_id == tag_id).values(ctd_count=ctd.c.ctd_count + 1)
        )


def tag_ids(conn: Conn, names: Sequence[str]) -> list[int]:
    """The ids of tags already defined (the API checked they may be applied)."""
    if not names:
        return []
    ctd = schema.change_tag_def
    found = conn.all(sa.select(ctd.c.ctd_id, ctd.c.ctd_name).where(ctd.c.ctd_name.in_(names)))
    ids = {str(r["ctd_name"]): int(r["ctd_id"]) for r in found}
    return [ids[n] for n in dict.fromkeys(names) if n in ids]

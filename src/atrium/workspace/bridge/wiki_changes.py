"""What the wiki feed reads of the wiki: its new recent changes, the log entries that hide
something, whether a revision or log entry is hidden now, a page's categories, and whom a
change concerns (the page's watchers, the users a talk page or summary mentions)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.reads.revisions import revision_text
from atrium.wiki.titles import NS_FILE

RC = schema.recentchanges.c
LG = schema.logging.c
A = schema.actor.c
CM = schema.comment.c
REV = schema.revision.c
CL = schema.categorylinks.c

RC_EDIT, RC_NEW, RC_LOG = 0, 1, 3
# Log entries that change what a reader may see of revisions and log entries.
HIDING = (
    ("delete", "revision"),
    ("delete", "event"),
    ("suppress", "revision"),
    ("suppress", "event"),
)
# A block that hides the user's name (`hidename`) hides it on every revision, deleted revision,
# file version and log entry of theirs.
HIDING_USER = (("suppress", "block"), ("suppress", "reblock"))
# Changes read per pass: a burst (an import) is worked through over several passes.
BATCH = 200


@dataclass(frozen=True)
class Change:
    rc_id: int
    kind: str  # create, edit, move, delete, upload, or "" for the rest
    ns: int
    dbkey: str
    page_id: int
    rev_id: int
    parent_id: int
    log_id: int
    user: str
    comment: str
    params: dict[str, Any]


def _kind(row: Any) -> str:
    if row["rc_type"] == RC_NEW:
        return "create"
    if row["rc_type"] == RC_EDIT:
        return "edit"
    if row["rc_type"] == RC_LOG:
        log_type, action = row["rc_log_type"], row["rc_log_action"]
        if log_type == "move":
            return "move"
        if log_type == "delete" and action == "delete":
            return "delete"
        if log_type == "upload":
            return "upload"
    return ""


def last_change_id(conn: Conn) -> int:
    return int(conn.scalar(sa.select(sa.func.coalesce(sa.func.max(RC.rc_id), 0))))


def last_log_id(conn: Conn) -> int:
    return int(conn.scalar(sa.select(sa.func.coalesce(sa.func.max(LG.log_id), 0))))


def changes_after(conn: Conn, rc_id: int) -> list[Change]:
    rows = conn.all(
        sa.select(
            RC.rc_id, RC.rc_type, RC.rc_namespace, RC.rc_title, RC.rc_cur_id, RC.rc_this_oldid,
            RC.rc_last_oldid, RC.rc_logid, RC.rc_log_type, RC.rc_log_action, RC.rc_params,
            A.actor_name, CM.comment_text,
        )
        .select_from(
            schema.recentchanges.join(schema.actor, A.actor_id == RC.rc_actor).join(
                schema.comment, CM.comment_id == RC.rc_comment_id
            )
        )
        .where(RC.rc_id > rc_id)
        .order_by(RC.rc_id)
        .limit(BATCH)
    )  # fmt: skip
    found = []
    for row in rows:
        try:
            params = json.loads(row["rc_params"] or "{}")
        except ValueError:
            params = {}
        found.append(
            Change(
                int(row["rc_id"]), _kind(row), int(row["rc_namespace"]), str(row["rc_title"]),
                int(row["rc_cur_id"]), int(row["rc_this_oldid"]), int(row["rc_last_oldid"]),
                int(row["rc_logid"]), str(row["actor_name"]), str(row["comment_text"]),
                params if isinstance(params, dict) else {},
            )
        )  # fmt: skip
    return found


@dataclass
class Hidings:
    """What the log says was hidden since the cursor: revision ids, log ids, and the pages the
    entries are about (whose every notification is checked again)."""

    upto: int
    revisions: set[int]
    log_entries: set[int]
    pages: set[int]
    # Upload log entries whose file version is now hidden (the entry itself is not).
    hidden_uploads: set[int] = field(default_factory=set)


def hiding_after(conn: Conn, log_id: int) -> Hidings:
    rows = conn.all(
        sa.select(
            LG.log_id, LG.log_type, LG.log_action, LG.log_page, LG.log_params, LG.log_namespace,
            LG.log_title,
        )
        .where(LG.log_id > log_id)
        .order_by(LG.log_id)
        .limit(BATCH)
    )  # fmt: skip
    found = Hidings(int(rows[-1]["log_id"]) if rows else log_id, set(), set(), set())
    for row in rows:
        if (row["log_type"], row["log_action"]) in HIDING_USER:
            _add_users_rows(conn, str(row["log_title"]).replace("_", " "), found)
            continue
        if (row["log_type"], row["log_action"]) not in HIDING:
            continue
        if row["log_page"]:
            found.pages.add(int(row["log_page"]))
        try:
            params = json.loads(row["log_params"] or "{}")
        except ValueError:
            continue
        ids = params.get("ids", []) if isinstance(params, dict) else []
        numbers = {
            int(i) for i in ids if isinstance(i, int) or (isinstance(i, str) and i.isdigit())
        }
        if params.get("type") == "revision":
            found.revisions |= numbers
        elif params.get("type") == "archive":
            # A deleted page's revisions, named by timestamp.
            stamps = [str(i) for i in ids if isinstance(i, (int, str)) and len(str(i)) == 14]
            found.revisions |= _archived_revisions(
                conn, int(row["log_namespace"]), str(row["log_title"]), stamps
            )
        elif params.get("type") == "logging":
            found.log_entries |= numbers
        elif params.get("type") in ("oldimage", "filearchive"):
            found.hidden_uploads |= _uploads_of_hidden_versions(
                conn, str(params["type"]), str(row["log_title"]), numbers
            )
    return found


def _uploads_of_hidden_versions(conn: Conn, kind: str, dbkey: str, ids: set[int]) -> set[int]:
    """The upload log entries of a file's versions that now hide something: old versions are
    named by their timestamp, deleted ones by `fa_id`; an upload's entry has its timestamp."""
    if not ids:
        return set()
    if kind == "oldimage":
        OI = schema.oldimage.c
        names = [f"{i}!{dbkey}" for i in ids if len(str(i)) == 14]
        stamps = conn.scalars(
            sa.select(OI.oi_timestamp).where(
                OI.oi_name == dbkey, OI.oi_archive_name.in_(names), OI.oi_deleted != 0
            )
        )
    else:
        FA = schema.filearchive.c
        stamps = conn.scalars(
            sa.select(FA.fa_timestamp).where(
                FA.fa_name == dbkey, FA.fa_id.in_(sorted(ids)), FA.fa_deleted != 0
            )
        )
    found = [str(s) for s in stamps]
    if not found:
        return set()
    return {
        int(r)
        for r in conn.scalars(
            sa.select(LG.log_id).where(
                LG.log_type == "upload",
                LG.log_namespace == NS_FILE,
                LG.log_title == dbkey,
                LG.log_timestamp.in_(found),
            )
        )
    }


def _archived_revisions(conn: Conn, ns: int, dbkey: str, stamps: Sequence[str]) -> set[int]:
    if not stamps:
        return set()
    AR = schema.archive.c
    return {
        int(r)
        for r in conn.scalars(
            sa.select(AR.ar_rev_id).where(
                AR.ar_namespace == ns, AR.ar_title == dbkey, AR.ar_timestamp.in_(list(stamps))
            )
        )
    }


def _add_users_rows(conn: Conn, name: str, found: Hidings) -> None:
    """Every revision (deleted or not) and log entry of the user, whose name is now hidden on
    them (their uploads' notifications are their log entries')."""
    actor = conn.scalar(
        sa.select(A.actor_id)
        .join(schema.user, schema.user.c.user_id == A.actor_user)
        .where(schema.user.c.user_name == name)
    )
    if actor is None:
        return
    AR = schema.archive.c
    found.revisions |= {
        int(r) for r in conn.scalars(sa.select(REV.rev_id).where(REV.rev_actor == actor))
    }
    found.revisions |= {
        int(r) for r in conn.scalars(sa.select(AR.ar_rev_id).where(AR.ar_actor == actor))
    }
    found.log_entries |= {
        int(r) for r in conn.scalars(sa.select(LG.log_id).where(LG.log_actor == actor))
    }


def hidden_revisions(conn: Conn, rev_ids: Sequence[int]) -> set[int]:
    """The revisions of these that hide anything (text, summary, author), or no longer exist
    as visible revisions (their page was deleted)."""
    if not rev_ids:
        return set()
    shown = {
        int(r["rev_id"])
        for r in conn.all(
            sa.select(REV.rev_id).where(REV.rev_id.in_(list(rev_ids)), REV.rev_deleted == 0)
        )
    }
    return set(rev_ids) - shown


def hidden_log_entries(conn: Conn, log_ids: Sequence[int]) -> set[int]:
    if not log_ids:
        return set()
    shown = {
        int(r["log_id"])
        for r in conn.all(
            sa.select(LG.log_id).where(LG.log_id.in_(list(log_ids)), LG.log_deleted == 0)
        )
    }
    return set(log_ids) - shown


def categories_of(conn: Conn, page_id: int) -> set[str]:
    return {str(c) for c in conn.scalars(sa.select(CL.cl_to).where(CL.cl_from == page_id))}


def watchers(conn: Conn, ns: int, dbkey: str) -> dict[int, str]:
    """The wiki users watching a page (its subject or talk page: one watch covers both), by id,
    with their names."""
    WL, U = schema.watchlist.c, schema.user.c
    rows = conn.all(
        sa.select(U.user_id, U.user_name)
        .join(schema.watchlist, WL.wl_user == U.user_id)
        .where(WL.wl_namespace.in_((ns & ~1, ns | 1)), WL.wl_title == dbkey)
    )
    return {int(r["user_id"]): str(r["user_name"]) for r in rows}


def users_named(conn: Conn, names: Sequence[str]) -> dict[int, str]:
    """The wiki users of these names, by id."""
    if not names:
        return {}
    U = schema.user.c
    rows = conn.all(sa.select(U.user_id, U.user_name).where(U.user_name.in_(list(names))))
    return {int(r["user_id"]): str(r["user_name"]) for r in rows}


def texts(conn: Conn, rev_id: int, parent_id: int) -> tuple[str, str]:
    """A revision's text and its parent's ("" for none)."""
    found = {}
    for wanted in (rev_id, parent_id):
        row = revision_text(conn, wanted) if wanted else None
        found[wanted] = str(row["old_text"]) if row is not None else ""
    return found.get(rev_id, ""), found.get(parent_id, "")

"""Change tags (`managetags`, `tag`) and group memberships (`userrights`), as MediaWiki's
ChangeTags and UserGroupManager do them, each logged."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.accounts import rights
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.expiry import INFINITY, api_expiry
from atrium.wiki.changes.journal import Performer, log_event
from atrium.wiki.site import Site
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import NS_SPECIAL, NS_USER, Title

CTD = schema.change_tag_def
TAGS_PAGE = Title(NS_SPECIAL, "Tags")


def _tag(conn: Conn, name: str) -> Any:
    return conn.one(sa.select(CTD).where(CTD.c.ctd_name == name))


def manage_tag(
    conn: Conn, who: Performer, operation: str, tag: str, reason: str, ignorewarnings: bool
) -> tuple[int, list[str]]:
    """ChangeTags::{create,delete,activate,deactivate}TagWithChecks; (log id, warnings)."""
    right = "deletechangetags" if operation == "delete" else "managechangetags"
    if not who.allowed(right):
        text = (
            "You do not have permission to delete change tags."
            if operation == "delete"
            else "You do not have permission to manage change tags."
        )
        raise ChangeError("permissiondenied", text, "tags-manage-no-permission")
    row = _tag(conn, tag)
    warnings: list[str] = []
    if operation == "create":
        if not tag or any(c in tag for c in ",|/") or len(tag) > 255:
            raise ChangeError(
                "tags-create-invalid-chars",
                "Tag names must not contain commas (<code>,</code>), pipes (<code>|</code>), or "
                "forward slashes (<code>/</code>).",
                "tags-create-invalid-chars",
            )
        if row is not None:
            raise ChangeError(
                "tags-create-already-exists",
                f'The tag "{tag}" already exists.',
                "tags-create-already-exists",
                (tag,),
            )
        conn.execute(sa.insert(CTD).values(ctd_name=tag, ctd_user_defined=True, ctd_count=0))
        params: dict[str, Any] = {"tag": tag}
    elif operation == "delete":
        if row is None:
            raise ChangeError(
                "tags-delete-not-found",
                f'The tag "{tag}" does not exist.',
                "tags-delete-not-found",
                (tag,),
            )
        count = int(row["ctd_count"])
        if count > 5000 and not ignorewarnings:
            raise ChangeError(
                "tags-delete-too-many-uses",
                f'The tag "{tag}" is applied to more than 5,000 revisions, which means it cannot '
                "be deleted.",
                "tags-delete-too-many-uses",
                (tag, 5000),  # ChangeTags::MAX_DELETE_USES
            )
        for table, column in (
            (schema.change_tag, "ct_tag_id"),
            (schema.change_tag_event, "cte_tag_id"),
            (schema.archive_tag, "at_tag_id"),
        ):
            conn.execute(sa.delete(table).where(table.c[column] == row["ctd_id"]))
        conn.execute(sa.delete(CTD).where(CTD.c.ctd_id == row["ctd_id"]))
        params = {"tag": tag, "count": count}
    elif operation == "activate":
        if row is None:
            raise ChangeError(
                "tags-activate-not-found",
                f'The tag "{tag}" does not exist.',
                "tags-activate-not-found",
                (tag,),
            )
        if row["ctd_user_defined"]:
            raise ChangeError(
                "tags-activate-not-allowed",
                f'It is not possible to activate the tag "{tag}".',
                "tags-activate-not-allowed",
                (tag,),
            )
        conn.execute(
            sa.update(CTD).where(CTD.c.ctd_id == row["ctd_id"]).values(ctd_user_defined=True)
        )
        params = {"tag": tag}
    else:
        if row is None or not row["ctd_user_defined"]:
            raise ChangeError(
                "tags-deactivate-not-allowed",
                f'It is not possible to deactivate the tag "{tag}".',
                "tags-deactivate-not-allowed",
                (tag,),
            )
        if int(row["ctd_count"]) == 0:
            # ChangeTags::undefineTag: an unused tag is forgotten altogether.
            conn.execute(sa.delete(CTD).where(CTD.c.ctd_id == row["ctd_id"]))
        else:
            conn.execute(
                sa.update(CTD).where(CTD.c.ctd_id == row["ctd_id"]).values(ctd_user_defined=False)
            )
        params = {"tag": tag}
    log_id = log_event(conn, who, "managetags", operation, TAGS_PAGE, reason=reason, params=params)
    return log_id, warnings


@dataclass
class TagResult:
    kind: str  # "rcid", "revid" or "logid"
    id: int
    status: str  # "success" or "error"
    noop: bool = False
    log_id: int | None = None
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    error: tuple[str, str] | None = None


def _defined(conn: Conn, names: list[str], *, user_defined: bool) -> dict[str, int]:
    query = sa.select(CTD.c.ctd_id, CTD.c.ctd_name).where(CTD.c.ctd_name.in_(names))
    if user_defined:
        query = query.where(CTD.c.ctd_user_defined.is_(True))
    return {str(r["ctd_name"]): int(r["ctd_id"]) for r in conn.all(query)}


def disallowed_tags(conn: Conn, names: list[str]) -> list[str]:
    """ChangeTags::canAddTagsAccompanyingChange's refused names: only tags defined by users may
    be applied by hand."""
    allowed = _defined(conn, names, user_defined=True)
    return [n for n in names if n not in allowed]


def tag_change(
    conn: Conn,
    who: Performer,
    kind: str,
    ident: int,
    add: list[str],
    remove: list[str],
    reason: str,
) -> TagResult:
    """ChangeTags::updateTagsWithChecks for one revision, recent change or log entry."""
    rc = schema.recentchanges
    rev_id = rc_id = log_id = None
    if kind == "revid":
        exists = conn.scalar(
            sa.select(schema.revision.c.rev_id).where(schema.revision.c.rev_id == ident)
        )
        if exists is None:
            return TagResult(
                kind,
                ident,
                "error",
                error=("nosuchrevid", f"There is no revision with ID {ident}."),
            )
        rev_id = ident
        rc_id = conn.scalar(sa.select(rc.c.rc_id).where(rc.c.rc_this_oldid == ident))
    elif kind == "rcid":
        row = conn.one(sa.select(rc).where(rc.c.rc_id == ident))
        if row is None:
            return TagResult(
                kind,
                ident,
                "error",
                error=("nosuchrcid", f"There is no recent change with ID {ident}."),
            )
        rc_id = ident
        rev_id = int(row["rc_this_oldid"]) or None
        log_id = int(row["rc_logid"]) or None
    else:
        exists = conn.scalar(
            sa.select(schema.logging.c.log_id).where(schema.logging.c.log_id == ident)
        )
        if exists is None:
            return TagResult(
                kind,
                ident,
                "error",
                error=("nosuchlogid", f"There is no log entry with ID {ident}."),
            )
        log_id = ident
        rc_id = conn.scalar(sa.select(rc.c.rc_id).where(rc.c.rc_logid == ident))
    current = set(_current_tags(conn, rev_id, rc_id, log_id))
    to_add = [t for t in dict.fromkeys(add) if t not in current]
    to_remove = [t for t in dict.fromkeys(remove) if t in current]
    if not to_add and not to_remove:
        return TagResult(kind, ident, "success", noop=True)
    ids = _defined(conn, to_add + to_remove, user_defined=False)
    for name in to_add:
        tag_id = ids[name]
        if rev_id is not None:
            conn.execute(sa.insert(schema.change_tag).values(ct_rev_id=rev_id, ct_tag_id=tag_id))
        # The recent change (or log entry) carries the tag too, as an edit's own tags do, so
        # that list=recentchanges shows it.
        if rc_id is not None or (rev_id is None and log_id is not None):
            conn.execute(
                sa.insert(schema.change_tag_event).values(
                    cte_rc_id=rc_id, cte_log_id=log_id, cte_tag_id=tag_id
                )
            )
        conn.execute(
            sa.update(CTD).where(CTD.c.ctd_id == tag_id).values(ctd_count=CTD.c.ctd_count + 1)
        )
    for name in to_remove:
        tag_id = ids[name]
        if rev_id is not None:
            conn.execute(
                sa.delete(schema.change_tag).where(
                    schema.change_tag.c.ct_rev_id == rev_id, schema.change_tag.c.ct_tag_id == tag_id
                )
            )
        cte = schema.change_tag_event
        conds = []
        if rc_id is not None:
            conds.append(cte.c.cte_rc_id == rc_id)
        if log_id is not None:
            conds.append(cte.c.cte_log_id == log_id)
        if conds:
            conn.execute(sa.delete(cte).where(cte.c.cte_tag_id == tag_id, sa.or_(*conds)))
        conn.execute(
            sa.update(CTD).where(CTD.c.ctd_id == tag_id).values(ctd_count=CTD.c.ctd_count - 1)
        )
    title = TAGS_PAGE
    if rev_id is not None:
        page = conn.one(
            sa.select(schema.page.c.page_namespace, schema.page.c.page_title)
            .join(schema.revision, schema.revision.c.rev_page == schema.page.c.page_id)
            .where(schema.revision.c.rev_id == rev_id)
        )
        if page is not None:
            title = Title(int(page["page_namespace"]), str(page["page_title"]))
    params: dict[str, Any] = {
        "revid": rev_id,
        "logid": log_id,
        "tagsAdded": to_add,
        "tagsAddedCount": len(to_add),
        "tagsRemoved": to_remove,
        "tagsRemovedCount": len(to_remove),
    }
    entry = log_event(conn, who, "tag", "update", title, reason=reason, params=params, in_rc=False)
    return TagResult(kind, ident, "success", log_id=entry, added=to_add, removed=to_remove)


def _current_tags(
    conn: Conn, rev_id: int | None, rc_id: int | None, log_id: int | None
) -> list[str]:
    names: list[str] = []
    if rev_id is not None:
        names += [
            str(r["ctd_name"])
            for r in conn.all(
                sa.select(CTD.c.ctd_name)
                .join(schema.change_tag, schema.change_tag.c.ct_tag_id == CTD.c.ctd_id)
                .where(schema.change_tag.c.ct_rev_id == rev_id)
            )
        ]
    cte = schema.change_tag_event
    conds = []
    if rc_id is not None:
        conds.append(cte.c.cte_rc_id == rc_id)
    if log_id is not None:
        conds.append(cte.c.cte_log_id == log_id)
    if conds:
        names += [
            str(r["ctd_name"])
            for r in conn.all(
                sa.select(CTD.c.ctd_name)
                .join(cte, cte.c.cte_tag_id == CTD.c.ctd_id)
                .where(sa.or_(*conds))
            )
        ]
    return names


# --- userrights -------------------------------------------------------------------------------


@dataclass
class RightsChange:
    added: list[str]
    removed: list[str]
    log_id: int | None


def change_groups(
    conn: Conn,
    who: Performer,
    who_groups: list[str],
    user_id: int,
    user_name: str,
    add: list[tuple[str, str]],  # (group, expiry)
    remove: list[str],
    reason: str,
    site: Site | None = None,
) -> RightsChange:
    """UserGroupManager: add and remove explicit groups the performer may change.

    A bureaucrat's power is the `userrights` right, so the performer's rights decide, not its
    groups alone: a bot-password session whose grants withhold the right changes nothing."""
    changeable = rights.changeable_groups(who_groups if who.allowed("userrights") else ())
    if not changeable["add"] and not changeable["remove"]:
        raise ChangeError(
            "permissiondenied",
            "You don't have permission to change user rights.",
            "userrights-no-interwiki",
        )
    ug = schema.user_groups
    ts = now14()
    before = {
        str(r["ug_group"]): r["ug_expiry"]
        for r in conn.all(sa.select(ug).where(ug.c.ug_user == user_id))
        if r["ug_expiry"] is None or r["ug_expiry"] > ts
    }
    added: list[str] = []
    removed: list[str] = []
    for group, expiry in add:
        if group not in changeable["add"]:
            continue
        stored = None if expiry == INFINITY else expiry
        if group in before and before[group] == stored:
            continue
        conn.execute(sa.delete(ug).where(ug.c.ug_user == user_id, ug.c.ug_group == group))
        conn.execute(sa.insert(ug).values(ug_user=user_id, ug_group=group, ug_expiry=stored))
        added.append(group)
    for group in remove:
        if group not in changeable["remove"] or group not in before:
            continue
        conn.execute(sa.delete(ug).where(ug.c.ug_user == user_id, ug.c.ug_group == group))
        removed.append(group)
    if not added and not removed:
        return RightsChange([], [], None)
    after = {g: e for g, e in before.items() if g not in removed}
    for group, expiry in add:
        if group in added:
            after[group] = None if expiry == INFINITY else expiry
    old_groups = sorted(before)
    new_groups = sorted(after)
    log_id = log_event(
        conn,
        who,
        "rights",
        "rights",
        Title(NS_USER, user_name.replace(" ", "_")),
        reason=reason,
        params={
            "oldgroups": old_groups,
            "newgroups": new_groups,
            "oldmetadata": [{"expiry": _meta(before[g])} for g in old_groups],
            "newmetadata": [{"expiry": _meta(after[g])} for g in new_groups],
        },
        site=site,
    )
    return RightsChange(added, removed, log_id)


def _meta(expiry: Any) -> str | None:
    return None if expiry is None else api_expiry(str(expiry))

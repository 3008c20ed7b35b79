"""What `list=allrevisions` and `list=alldeletedrevisions` show of a revision, as
ApiQueryRevisionsBase: the row limit (lower when content is read), each revision's fields with the
hidden ones flagged, and the `slots` choice."""

from __future__ import annotations

from typing import Any

from atrium.core.db import Row
from atrium.wiki.api.query.journal import (
    DELETED_RESTRICTED,
    DELETED_TEXT,
    add_comment,
    add_user,
    can_see,
    sha1_hex,
    timestamp,
)
from atrium.wiki.api.query.pageset import QueryRun
from atrium.wiki.messages import messages as msg


def revision_limit(q: QueryRun, spec: Any, params: dict[str, Any], with_text: bool) -> int:
    """ApiQueryRevisionsBase: 10 by default; 50 (500 with apihighlimits) when content is read."""
    limit = params["limit"]
    raw = q.ctx.params.get_raw(spec.prefix + "limit") or q.ctx.params.get_raw(
        "g" + spec.prefix + "limit"
    )
    if limit is None:
        return 10
    if with_text:
        ceiling = 500 if q.ctx.caller.allowed("apihighlimits") else 50
        if raw == "max" or limit > ceiling:
            return ceiling
    return int(limit)


def revision_entry(
    q: QueryRun,
    row: Row,
    props: set[str],
    slots: list[str] | None,
    tags: dict[int, list[str]],
) -> dict[str, Any]:
    """ApiQueryRevisionsBase::extractRevisionInfo for the props a list of revisions shows."""
    out = q.ctx.out
    deleted = int(row["rev_deleted"] or 0)
    rev: dict[str, Any] = {}
    hidden = False
    if "ids" in props:
        rev["revid"] = int(row["rev_id"])
        rev["parentid"] = int(row["rev_parent_id"])
    if "flags" in props:
        out.flag(rev, "minor", bool(row["rev_minor_edit"]))
    hidden |= add_user(q, rev, row, deleted, "user" in props, "userid" in props)
    if "timestamp" in props:
        rev["timestamp"] = timestamp(row["rev_timestamp"])
    if "size" in props:
        rev["size"] = int(row["rev_len"])
    if "sha1" in props:
        if deleted & DELETED_TEXT:
            out.flag_if(rev, "sha1hidden", True)
            hidden = True
        if can_see(q, deleted, DELETED_TEXT):
            rev["sha1"] = sha1_hex(str(row["rev_sha1"]))
    if "roles" in props:
        rev["roles"] = ["main"]
    hidden |= add_comment(
        q, rev, row["comment_text"], deleted, "comment" in props, "parsedcomment" in props
    )
    if "tags" in props:
        rev["tags"] = tags.get(int(row["rev_id"]), [])
    content: dict[str, Any] = {}
    text = row.get("old_text")
    if text is not None and not can_see(q, deleted, DELETED_TEXT):
        text = None
    if "slotsize" in props:
        content["size"] = int(row["rev_len"])
    if "slotsha1" in props and can_see(q, deleted, DELETED_TEXT):
        content["sha1"] = sha1_hex(str(row["rev_sha1"]))
    if props & {"contentmodel", "content"}:
        content["contentmodel"] = row["rev_content_model"]
    if "content" in props:
        content["contentformat"] = row["rev_content_format"]
        if deleted & DELETED_TEXT:
            out.flag_if(content, "texthidden", True)
            hidden = True
        if text is not None:
            out.content(content, "content", text)
    if slots is not None:
        if content:
            rev["slots"] = {"main": content}
    elif "content" in props:
        rev["contentformat"] = content.pop("contentformat")
        rev["contentmodel"] = content.pop("contentmodel")
        rev.update(content)
    elif "contentmodel" in props:
        rev["contentmodel"] = content["contentmodel"]
    if hidden and deleted & DELETED_RESTRICTED:
        out.flag_if(rev, "suppressed", True)
    return rev


def content_slots(
    q: QueryRun, spec: Any, params: dict[str, Any], props: set[str]
) -> list[str] | None:
    """The `slots` asked for (None: the legacy single-slot output, deprecated with content)."""
    if q.ctx.params.has(spec.prefix + "slots"):
        return list(params["slots"])
    if "content" in props:
        q.ctx.warn(
            spec, "deprecation", msg.api("apiwarn-deprecation-missingparam", spec.prefix + "slots")
        )
        q.ctx.params.note_deprecation()
    return None

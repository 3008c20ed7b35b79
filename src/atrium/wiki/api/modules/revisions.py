"""`prop=revisions`: revisions of the page set — the latest of each page, the requested `revids`,
or one page's history with limits, ranges and continuation (single-page mode)."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from atrium.wiki import pages as page_reads
from atrium.wiki.api import messages as msg
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.querybase import GeneratedPages, QueryModule, QueryRun, badcontinue
from atrium.wiki.api.querymodules import REVISIONS
from atrium.wiki.changes.pages import split_sections
from atrium.wiki.timestamps import iso

_SINGLE_PAGE = ("limit", "startid", "endid", "user", "excludeuser", "start", "end")
_CONTENT_PROPS = {"content", "parsetree"}


# rev_deleted bits (MediaWiki's RevisionRecord::DELETED_*).
_DELETED_TEXT, _DELETED_COMMENT, _DELETED_USER, _DELETED_RESTRICTED = 1, 2, 4, 8


def _visible(q: QueryRun, deleted: int) -> Callable[[int], bool]:
    """Whether the caller may see a hidden field: `deletedhistory` (`deletedtext` for the text),
    and `viewsuppressed` too when the revision is suppressed."""
    caller = q.ctx.caller

    def can_see(bit: int) -> bool:
        if not deleted & bit:
            return True
        right = "deletedtext" if bit == _DELETED_TEXT else "deletedhistory"
        if deleted & _DELETED_RESTRICTED:
            return caller.allowed(right) and caller.allowed("viewsuppressed")
        return caller.allowed(right)

    return can_see


def _sha1_hex(base36: str) -> str:
    return f"{int(base36, 36):040x}"


def _revision(
    q: QueryRun,
    row: Any,
    props: set[str],
    slots: list[str] | None,
    section: str | None,
    tags: dict[int, list[str]],
) -> dict[str, Any]:
    out = q.ctx.out
    rev: dict[str, Any] = {}
    if "ids" in props:
        rev["revid"] = int(row["rev_id"])
        rev["parentid"] = int(row["rev_parent_id"])
    if "flags" in props:
        out.flag(rev, "minor", bool(row["rev_minor_edit"]))
    deleted = int(row["rev_deleted"] or 0)
    can_see = _visible(q, deleted)
    if deleted & _DELETED_USER and props & {"user", "userid"}:
        out.flag_if(rev, "userhidden", True)
    if deleted & _DELETED_RESTRICTED:
        out.flag_if(rev, "suppressed", True)
    if "user" in props and can_see(_DELETED_USER):
        rev["user"] = row["actor_name"]
        if row["actor_user"] is None:
            out.flag_if(rev, "anon", True)
    if "userid" in props and can_see(_DELETED_USER):
        rev["userid"] = int(row["actor_user"] or 0)
    if "timestamp" in props:
        rev["timestamp"] = iso(str(row["rev_timestamp"]))
    if "size" in props:
        rev["size"] = int(row["rev_len"])
    if "sha1" in props:
        rev["sha1"] = _sha1_hex(str(row["rev_sha1"]))
    if "roles" in props:
        rev["roles"] = ["main"]
    if deleted & _DELETED_COMMENT and props & {"comment", "parsedcomment"}:
        out.flag_if(rev, "commenthidden", True)
    if "comment" in props and can_see(_DELETED_COMMENT):
        rev["comment"] = row["comment_text"]
    if "parsedcomment" in props and can_see(_DELETED_COMMENT):
        rev["parsedcomment"] = html.escape(str(row["comment_text"]), quote=False)
    if "tags" in props:
        rev["tags"] = tags.get(int(row["rev_id"]), [])
    text = row.get("old_text")
    text_hidden = bool(deleted & _DELETED_TEXT)
    if text_hidden and not can_see(_DELETED_TEXT):
        text = None
    if text is not None and section is not None:
        parts = split_sections(str(text))
        if not section.isdigit() or int(section) >= len(parts):
            raise ApiUsageError(
                "nosuchsection",
                msg.api("apierror-nosuchsection", section),
                module="query+revisions",
            )
        text = parts[int(section)].rstrip("\n")
    content: dict[str, Any] = {}
    if "slotsize" in props:
        content["size"] = int(row["rev_len"])
    if "slotsha1" in props:
        content["sha1"] = _sha1_hex(str(row["rev_sha1"]))
    if "contentmodel" in props or "content" in props:
        content["contentmodel"] = row["rev_content_model"]
    if "content" in props:
        content["contentformat"] = row["rev_content_format"]
        if text_hidden:
            out.flag_if(content, "texthidden", True)
        if text is not None:
            out.content(content, "content", text)
    if slots is None:
        if "content" in props:
            rev["contentformat"] = content.pop("contentformat")
            rev["contentmodel"] = content.pop("contentmodel")
            rev.update(content)
        elif "contentmodel" in props:
            rev["contentmodel"] = content["contentmodel"]
    elif content:
        rev["slots"] = {"main": content}
    return rev


async def _rows(q: QueryRun, params: dict[str, Any], with_text: bool) -> list[Any]:
    """The revisions to show: the requested revids, one page's history, or each latest one."""
    ctx = q.ctx
    single = [name for name in _SINGLE_PAGE if params[name] is not None] + (
        ["dir"] if params["dir"] == "newer" else []
    )
    pages = q.pages
    if q.pages.revids:
        return list(await ctx.db.read(page_reads.revisions_by_ids, list(q.pages.revids), with_text))
    if not single:
        return list(await ctx.db.read(page_reads.latest_revisions, sorted(pages.good), with_text))
    if len(pages.good) + len(pages.missing) > 1 or pages.revids:
        raise ApiUsageError(
            "invalidparammix",
            msg.api("apierror-revisions-singlepage", "rv"),
            module="query+revisions",
        )
    if not pages.good:
        return []
    page = next(iter(pages.good.values()))
    cont = None
    if params["continue"] is not None:
        ts, _, rev = params["continue"].partition("|")
        if not (len(ts) == 14 and ts.isdigit() and rev.isdigit()):
            raise badcontinue()
        cont = (ts, int(rev))
    limit = params["limit"] or 1
    rows = await ctx.db.read(
        lambda conn: page_reads.page_history(
            conn,
            page.page_id,
            with_text=with_text,
            limit=limit + 1,
            newer=params["dir"] == "newer",
            start=params["start"],
            end=params["end"],
            startid=params["startid"],
            endid=params["endid"],
            cont=cont,
            user=params["user"],
            excludeuser=params["excludeuser"],
        )
    )
    if len(rows) > limit:
        following = rows[limit]
        q.continuation.add(
            REVISIONS, "continue", f"{following['rev_timestamp']}|{following['rev_id']}"
        )
        rows = rows[:limit]
    return list(rows)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    """As a generator: the pages the selected revisions belong to."""
    rows = await _rows(q, params, False)
    return GeneratedPages(page_ids=list(dict.fromkeys(int(r["rev_page"]) for r in rows)))


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    ctx = q.ctx
    props = set(params["prop"])
    slots: list[str] | None = (
        params["slots"] if ctx.params.has(REVISIONS.prefix + "slots") else None
    )
    with_text = bool(props & _CONTENT_PROPS)
    if slots is None and "content" in props:
        ctx.warn(
            REVISIONS,
            "deprecation",
            msg.api("apiwarn-deprecation-missingparam", "rvslots"),
        )
        ctx.params.note_deprecation()
    rows = await _rows(q, params, with_text)
    tags = (
        await ctx.db.read(page_reads.revision_tags, [int(r["rev_id"]) for r in rows])
        if "tags" in props
        else {}
    )
    for row in rows:
        entry = q.page_entry(int(row["rev_page"]))
        entry.setdefault("revisions", []).append(
            _revision(q, row, props, slots, params["section"], tags)
        )


MODULE = QueryModule(REVISIONS, run, generate)

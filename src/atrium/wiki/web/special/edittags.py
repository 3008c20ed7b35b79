"""`Special:EditTags` (`?type=revision&target=<page>&ids=1,2` or `type=logentry&ids=…`): add or
remove change tags on chosen revisions of one page or on log entries — the same change as the
API's `action=tag`, with ChangeTags::canUpdateTags' checks: the `changetags` right, no block,
only user-defined tags added, no software-defined tag removed. An item the reader may not see
(suppressed) refuses the whole form; hidden authors and summaries read as removed. A post needs
the session's token."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki.changes.admin import tag_change
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.reads.pages import pages_by_titles, revision_tags
from atrium.wiki.reads.tag_targets import (
    defined_tags,
    log_entries_by_ids,
    log_tags,
    page_of_revision,
    revisions_of_page,
    software_defined,
)
from atrium.wiki.titles import NS_SPECIAL, Title
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.log_lines import LogLine, log_html, message
from atrium.wiki.web.special.blocknotice import block_notice, block_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.log_extract import log_extract
from atrium.wiki.web.special.msg import msg_links
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    message_page,
    permission_error,
    render,
    session_failure,
    wikitext_html,
)
from atrium.wiki.web.visibility import (
    DELETED_RESTRICTED,
    DELETED_TEXT,
    can_see,
    shown_comment,
    shown_user,
)
from atrium.wiki.wikitext.escaping import escape_wikitext

MAX_IDS = 500  # more at once is refused by the API's limits too
DELETED_ACTION = 1
_ID = re.compile(r"[0-9]{1,10}")


@dataclass
class Items:
    kind: str  # "revision" or "logentry"
    target: Title
    entries: list[dict[str, Any]] = field(default_factory=list)


def _ids(ctx: SpecialContext) -> list[int]:
    """`ids=1,2` (the form's hidden field, a link's single id) or `ids[1]=1&ids[2]=1`."""
    raw = ctx.param("ids")
    if raw:
        parts = raw.split(",")
    else:
        parts = [k[4:-1] for k, _ in ctx.request_form_items() if k.startswith("ids[")]
        parts += [k[4:-1] for k in ctx.request.query_params if k.startswith("ids[")]
    ids = [int(p) for p in parts if _ID.fullmatch(p.strip() or "x") and 0 < int(p) < 2**31]
    return list(dict.fromkeys(ids))[:MAX_IDS]


async def _revisions(ctx: SpecialContext, ids: list[int]) -> Items | None:
    target = ctx.title_of(ctx.param("target"))
    suggested = await ctx.db.read(page_of_revision, ids[0])
    if suggested is not None:
        target = Title(int(suggested["page_namespace"]), str(suggested["page_title"]))
    if target is None:
        return None
    pages = await ctx.db.read(pages_by_titles, [(target.ns, target.dbkey)])
    if not pages:
        return Items("revision", target)
    rows = await ctx.db.read(revisions_of_page, int(pages[0]["page_id"]), ids)
    tags = await ctx.db.read(revision_tags, [int(r["rev_id"]) for r in rows])
    items = Items("revision", target)
    for row in rows:
        deleted = int(row["rev_deleted"] or 0)
        items.entries.append(
            {
                "id": int(row["rev_id"]),
                "title": target,
                "parent": int(row["rev_parent_id"] or 0),
                "time": local_time(str(row["rev_timestamp"])),
                "visible": can_see(ctx.reader, deleted, DELETED_RESTRICTED),
                "text_hidden": bool(deleted & DELETED_TEXT),
                "text_visible": can_see(ctx.reader, deleted, DELETED_TEXT),
                "user": shown_user(ctx.reader, deleted, str(row["actor_name"])),
                "comment": shown_comment(ctx.reader, deleted, str(row["comment_text"] or "")),
                "tags": tags.get(int(row["rev_id"]), []),
            }
        )
    items.entries = await with_comment_html(ctx.db, ctx.site, items.entries)
    return items


async def _log_entries(ctx: SpecialContext, ids: list[int]) -> Items:
    rows = await ctx.db.read(log_entries_by_ids, ids)
    if not ctx.reader.allowed("suppressionlog"):
        rows = [r for r in rows if str(r["log_type"]) != "suppress"]
    tags = await ctx.db.read(log_tags, [int(r["log_id"]) for r in rows])
    items = Items("logentry", Title(NS_SPECIAL, "Log"))
    for row in rows:
        deleted = int(row["log_deleted"] or 0)
        ns, key = int(row["log_namespace"]), str(row["log_title"])
        items.entries.append(
            {
                "id": int(row["log_id"]),
                "title": Title(ns, key) if can_see(ctx.reader, deleted, DELETED_ACTION) else None,
                "type": str(row["log_type"]),
                "action": str(row["log_action"]),
                "params": row["log_params"],
                "time": local_time(str(row["log_timestamp"])),
                "visible": can_see(ctx.reader, deleted, DELETED_RESTRICTED),
                "user": shown_user(ctx.reader, deleted, str(row["actor_name"])),
                "comment": shown_comment(ctx.reader, deleted, str(row["comment_text"] or "")),
                "tags": tags.get(int(row["log_id"]), []),
            }
        )
    items.entries = await with_comment_html(ctx.db, ctx.site, items.entries)
    sentences = await log_html(
        ctx.db,
        ctx.site,
        [
            LogLine(e["type"], e["action"], e["params"], e["user"], e["title"])
            for e in items.entries
        ],
    )
    for entry, sentence in zip(items.entries, sentences, strict=True):
        entry["sentence"] = sentence
    return items


async def _form(
    ctx: SpecialContext,
    items: Items,
    *,
    done: bool = False,
    failure: Markup | None = None,
) -> Response:
    count = len(items.entries)
    existing = list(dict.fromkeys(t for e in items.entries for t in e["tags"]))
    available = await ctx.db.read(defined_tags)
    links = Links(ctx.site)
    heading = "Action complete" if done else "Action failed" if failure else "Edit tags"
    return await render(
        ctx,
        "edittags.html",
        heading,
        items=items,
        target_name=links.name(items.target),
        is_page=items.target.ns >= 0,
        selected=await msg_links(ctx, f"tags-edit-{items.kind}-selected", count, items.target),
        legend=message(f"tags-edit-{items.kind}-legend", count),
        submit=message(f"tags-edit-{items.kind}-submit", count),
        existing=existing,
        options=list(dict.fromkeys([*available, *(existing if count == 1 else [])])),
        single=count == 1,
        ids=",".join(str(e["id"]) for e in items.entries),
        reason="" if done else ctx.param("wpReason"),
        done=done,
        failure=failure,
        log=await log_extract(ctx, "tag", items.target),
    )


async def _failure(ctx: SpecialContext, key: str, *params: str | int) -> Markup:
    reason = message(key, *params)
    return Markup(await wikitext_html(ctx, message("tags-edit-failure", reason)))


async def _submit(ctx: SpecialContext, items: Items) -> Response:
    chosen = [v for k, v in ctx.request_form_items() if k == "wpTagList[]"]
    existing = list(dict.fromkeys(t for e in items.entries for t in e["tags"]))
    if len(items.entries) > 1:
        add = chosen
        if ctx.flag("wpRemoveAllTags"):
            remove = existing
        else:
            remove = [v for k, v in ctx.request_form_items() if k == "wpTagsToRemove[]"]
    else:
        add = [t for t in chosen if t not in existing]
        remove = [t for t in existing if t not in chosen]
    add, remove = list(dict.fromkeys(add))[:50], list(dict.fromkeys(remove))[:50]
    # SpecialEditTags shows the form again under "Action failed", at 200, for every refusal.
    if not add and not remove:
        return await _form(ctx, items, failure=await _failure(ctx, "tags-edit-none-selected"))
    defined = set(await ctx.db.read(defined_tags))
    refused = [t for t in add if t not in defined]
    if refused:
        shown = escape_wikitext(", ".join(refused))
        key = "tags-update-add-not-allowed-" + ("one" if len(refused) == 1 else "multi")
        return await _form(ctx, items, failure=await _failure(ctx, key, shown, len(refused)))
    kept = await ctx.db.read(software_defined, remove)
    if kept:
        shown = escape_wikitext(", ".join(kept))
        key = "tags-update-remove-not-allowed-" + ("one" if len(kept) == 1 else "multi")
        return await _form(ctx, items, failure=await _failure(ctx, key, shown, len(kept)))
    who = ctx.performer()
    kind = "revid" if items.kind == "revision" else "logid"
    reason = ctx.param("wpReason")[:500]
    for entry in items.entries:
        await ctx.db.write(tag_change, who, kind, entry["id"], add, remove, reason)
    ids = [e["id"] for e in items.entries]
    reloaded = await (_revisions(ctx, ids) if items.kind == "revision" else _log_entries(ctx, ids))
    return await _form(ctx, reloaded or items, done=True)


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.allowed("changetags"):
        return await permission_error(
            ctx,
            "add and remove arbitrary tags on individual revisions and log entries",
            badaccess(ctx.site, "changetags"),
        )
    ids = _ids(ctx)
    kind = "logentry" if ctx.param("type") in ("logentry", "logging") else "revision"
    items = None
    if ids:
        items = await (_revisions(ctx, ids) if kind == "revision" else _log_entries(ctx, ids))
    if items is None or not items.entries:
        return await message_page(
            ctx, "Invalid target revision", message("tags-edit-nooldid-text"), 200
        )
    if any(not e["visible"] for e in items.entries):
        return await message_page(
            ctx, "Permission error", message("tags-update-no-permission"), 200
        )
    block = await block_of(ctx, items.target if kind == "revision" else None)
    if block is not None:
        return await block_notice(ctx, block)
    if ctx.method == "POST" and ctx.flag("wpSubmit"):
        if not ctx.token_ok():
            return await _form(ctx, items, failure=Markup.escape(session_failure()))
        return await _submit(ctx, items)
    return await _form(ctx, items)


PAGE = SpecialPage("EditTags", "Edit tags", "pagetools", handle, "changetags", listed=False)

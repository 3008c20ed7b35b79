"""`action=edit`: create or change a page (whole text, a section, appended or prepended text)."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import (
    apply_watchlist,
    blocked_error,
    check_rate_limit,
    performer,
)
from atrium.wiki.api.actions.parse import CONTENT_FORMATS
from atrium.wiki.api.context import ApiContext, change_error, change_errors
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
    EXPIRY,
    INTEGER,
    TAGS,
    TEXT,
    TIMESTAMP,
    TITLE,
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.blocks import Blocked
from atrium.wiki.changes.pages import Editor, EditRequest, page_model
from atrium.wiki.changes.rendered_edit import save_edit
from atrium.wiki.changes.undo import plan_undo
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import InvalidTitle, Title

EDIT = ModuleSpec(
    "edit",
    "ApiEditPage",
    "action",
    "",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("section"),
        Param("sectiontitle"),
        Param("text", TEXT),
        Param("summary"),
        Param("tags", TAGS, multi=True),
        Param("minor", BOOLEAN),
        Param("notminor", BOOLEAN),
        Param("bot", BOOLEAN),
        Param("baserevid", INTEGER),
        Param("basetimestamp", TIMESTAMP),
        Param("starttimestamp", TIMESTAMP),
        Param("recreate", BOOLEAN),
        Param("createonly", BOOLEAN),
        Param("nocreate", BOOLEAN),
        Param("watch", BOOLEAN, deprecated=True),
        Param("unwatch", BOOLEAN, deprecated=True),
        Param(
            "watchlist", enum("nochange", "preferences", "unwatch", "watch"), default="preferences"
        ),
        Param("watchlistexpiry", EXPIRY),
        Param("md5"),
        Param("prependtext", TEXT),
        Param("appendtext", TEXT),
        Param("undo", INTEGER, min=0),
        Param("undoafter", INTEGER, min=0),
        Param("redirect", BOOLEAN),
        Param("contentformat", enum(*CONTENT_FORMATS)),
        Param(
            "contentmodel",
            enum("GadgetDefinition", "css", "javascript", "json", "text", "unknown", "wikitext"),
        ),
        Param("returnto", TITLE),
        Param("returntoquery"),
        Param("returntoanchor"),
        Param("token", required=True, sensitive=True, tokentype="csrf"),
    ),
    readrights=True,
    writerights=True,
    mustbeposted=True,
)


async def _title(ctx: ApiContext, params: dict[str, Any]) -> Title:
    if params["title"] is not None and params["pageid"] is not None:
        raise ApiUsageError(
            "invalidparammix", msg.invalidparammix(["title", "pageid"]), module="edit"
        )
    if params["title"] is None and params["pageid"] is None:
        raise ApiUsageError("missingparam", msg.missing_one_of(["title", "pageid"]), module="edit")
    if params["pageid"] is not None:
        rows = await ctx.db.read(page_reads.pages_by_ids, [params["pageid"]])
        if not rows:
            raise ApiUsageError(
                "nosuchpageid",
                msg.api("apierror-nosuchpageid", params["pageid"]),
                module="edit",
            )
        return Title(int(rows[0]["page_namespace"]), str(rows[0]["page_title"]))
    try:
        title = ctx.site.parser.parse(params["title"])
    except InvalidTitle as exc:
        raise ApiUsageError(
            "invalidtitle",
            msg.api("apierror-invalidtitle", msg.escape_wikitext(params["title"])),
            module="edit",
        ) from exc
    if title.interwiki or not title.dbkey or title.ns < 0:
        raise ApiUsageError(
            "invalidtitle",
            msg.api("apierror-invalidtitle", msg.escape_wikitext(params["title"])),
            module="edit",
        )
    return Title(title.ns, title.dbkey)


async def _follow_redirect(ctx: ApiContext, title: Title) -> Title:
    rows = await ctx.db.read(page_reads.pages_by_titles, [(title.ns, title.dbkey)])
    if not rows or not rows[0]["page_is_redirect"]:
        return title
    targets = await ctx.db.read(page_reads.redirect_targets, [int(rows[0]["page_id"])])
    if not targets or targets[0]["rd_interwiki"]:
        return title
    return Title(int(targets[0]["rd_namespace"]), str(targets[0]["rd_title"]))


# The format each content model reads and writes (ContentHandler::getSupportedFormats); the
# `unknown` model (FallbackContentHandler) holds what no handler knows and is never edited here.
MODEL_FORMATS = {
    "wikitext": "text/x-wiki",
    "css": "text/css",
    "javascript": "text/javascript",
    "json": "application/json",
    "text": "text/plain",
    "GadgetDefinition": "application/json",
}


async def _check_model(ctx: ApiContext, params: dict[str, Any], title: Title) -> tuple[str, bool]:
    """ApiEditPage: the model must allow editing through the API and read the format given;
    the model the edit saves in (the one named, else the page's, else its title's default),
    and whether that changes the model."""
    rows = await ctx.db.read(page_reads.pages_by_titles, [(title.ns, title.dbkey)])
    current = page_model(rows[0] if rows else None, title)
    model = params["contentmodel"] or current
    assert isinstance(model, str)
    name = ctx.site.parser.prefixed_text(title.ns, title.dbkey).replace(" ", "_")
    if model not in MODEL_FORMATS:
        raise ApiUsageError(
            "no-direct-editing",
            msg.api("apierror-no-direct-editing", model, name),
            module="edit",
        )
    wanted = params["contentformat"]
    if wanted is not None and wanted != MODEL_FORMATS[model]:
        raise ApiUsageError(
            "badformat", msg.api("apierror-badformat", wanted, model, name), module="edit"
        )
    return model, model != current


async def edit(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    title = await _title(ctx, params)
    if all(params[k] is None for k in ("text", "appendtext", "prependtext", "undo")):
        raise ApiUsageError(
            "missingparam",
            msg.missing_at_least_one_of(["text", "appendtext", "prependtext", "undo"]),
            module="edit",
        )
    if params["redirect"]:
        title = await _follow_redirect(ctx, title)
    model, changing_model = await _check_model(ctx, params, title)
    software_tags: tuple[str, ...] = ()
    if params["undo"]:
        # ApiEditPage: the undone text replaces `text`; the revision is tagged `mw-undo`.
        rows = await ctx.db.read(page_reads.pages_by_titles, [(title.ns, title.dbkey)])
        page_id = int(rows[0]["page_id"]) if rows else None
        with change_errors("edit"):
            plan = await ctx.db.read(
                plan_undo,
                page_id,
                ctx.site.parser.prefixed_text(title.ns, title.dbkey),
                params["undo"],
                params["undoafter"],
            )
        params["text"] = plan.text
        if params["summary"] is None:
            params["summary"] = plan.summary
        software_tags = ("mw-undo",)
    caller = ctx.caller
    if not caller.allowed("edit"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-edit")),
            module="edit",
        )
    await check_rate_limit(ctx, "edit", "edit")
    if changing_model:
        # EditPage's UserRateLimitConstraint counts a change of model on its own too.
        await check_rate_limit(ctx, "editcontentmodel", "edit")
    editor = Editor(caller.id or None, caller.name, frozenset(caller.rights))
    request = EditRequest(
        title=title,
        editor=editor,
        text=params["text"],
        appendtext=params["appendtext"],
        prependtext=params["prependtext"],
        section=params["section"],
        sectiontitle=params["sectiontitle"],
        summary=params["summary"] or "",
        minor=params["minor"],
        notminor=params["notminor"],
        bot=params["bot"] and caller.allowed("bot"),
        basetimestamp=params["basetimestamp"],
        starttimestamp=params["starttimestamp"],
        createonly=params["createonly"],
        nocreate=params["nocreate"],
        md5=params["md5"],
        baserevid=params["baserevid"],
        tags=tuple(params["tags"]),
        software_tags=software_tags,
        performer=performer(ctx),
        model=model,
    )
    try:
        outcome = await save_edit(ctx.db, ctx.site, request)
    except Blocked as exc:
        raise blocked_error(ctx, "edit", exc.block) from exc
    except ChangeError as exc:
        raise change_error(exc, "edit") from exc
    out = ctx.out
    result: dict[str, Any] = {
        "result": "Success",
        "pageid": outcome.page_id,
        "title": ctx.site.parser.prefixed_text(title.ns, title.dbkey),
        "contentmodel": outcome.model,
    }
    if outcome.nochange:
        out.flag_if(result, "nochange", True)
    else:
        if outcome.created:
            out.flag_if(result, "new", True)
        result["oldrevid"] = outcome.old_rev_id
        result["newrevid"] = outcome.new_rev_id
        result["newtimestamp"] = iso(outcome.timestamp)
    watch = params["watchlist"]
    if params["watch"]:
        watch = "watch"
    elif params["unwatch"]:
        watch = "unwatch"
    if await apply_watchlist(ctx, title, watch, "watchdefault", creating=outcome.created):
        out.flag_if(result, "watched", True)
    return {"edit": result}


ACTION = Action(EDIT, edit, token="csrf")

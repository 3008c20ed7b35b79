"""The edit form: `index.php?action=edit` (and `&section=N`, `&redlink=1`) and its submission
(`action=submit`): preview, "Show changes", save, and edit conflicts, as MediaWiki's EditPage.

Saving is `changes.pages.edit_page` (through `rendered_edit.save_edit`), the write
`action=edit` makes, with the same block and protection checks in its transaction; the form
checks them first too, so that a blocked user or a protected page gets MediaWiki's explanation
and the source instead of a form that fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from atrium.core.db import Conn, Database
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.blocks import Blocked
from atrium.wiki.changes.journal import Performer
from atrium.wiki.changes.pages import (
    Editor,
    EditRequest,
    replace_section,
    split_sections,
)
from atrium.wiki.changes.rendered_edit import save_edit
from atrium.wiki.changes.undo import plan_undo
from atrium.wiki.changes.watching import is_watched
from atrium.wiki.diff import table_rows
from atrium.wiki.limits import wiki_limits
from atrium.wiki.messages.log_sentences import message
from atrium.wiki.messages.messages import strip_markup
from atrium.wiki.reads import comparing, parsing
from atrium.wiki.reads import page_view as reading
from atrium.wiki.reads.users import options
from atrium.wiki.site import MAX_ARTICLE_SIZE, Site
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import Title
from atrium.wiki.web import links
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.edit_permission import Refusal, edit_refusal
from atrium.wiki.web.skin import render_page, trusted
from atrium.wiki.web.texts import text
from atrium.wiki.web.viewer import Viewer, client_ip, csrf_ok, current_viewer

_HEADING = re.compile(r"^(={1,6})(.+?)\1[ \t]*$")


@dataclass(frozen=True)
class Base:
    """The page as the editor started from it (None fields: the page does not exist)."""

    page_id: int | None
    rev_id: int
    timestamp: str
    text: str


def _base(conn: Conn, site: Site, title: Title) -> Base:
    found = reading.current_text(conn, title.ns, title.dbkey)
    if found is None:
        return Base(None, 0, "", "")
    page_id, rev_id, current = found
    rev = comparing.revision(conn, site, rev_id)
    return Base(page_id, rev_id, rev.timestamp if rev is not None else "", current)


@dataclass(frozen=True)
class Draft:
    """What the form holds: the section edited, the text, summary and boxes, and the
    timestamps of the revision it started from (`wpEdittime`) and of opening it (`wpStarttime`)."""

    section: str | None
    textbox: str
    summary: str = ""
    minor: bool = False
    watch: bool = False
    edittime: str = ""
    starttime: str = ""
    undid: str = ""  # the revision an undo form undoes (`wpUndidRevision`)
    # The revision the form started from (`editRevId`): exact where timestamps share a second.
    base_rev_id: int = 0


def performer(viewer: Viewer, ip: str) -> Performer:
    account = viewer.account
    return Performer(account.id or None, account.name, frozenset(account.rights), ip)


def _section_of(raw: str | None) -> str | None:
    """`section` as MediaWiki accepts it: a number or `new`; anything else is no section."""
    if raw is None or raw == "":
        return None
    if raw == "new" or raw.isdigit():
        return raw
    return None


def _level(part: str) -> int:
    match = _HEADING.match(part)
    return len(match.group(1)) if match else 0


def _section_text(full: str, section: str | None) -> str | None:
    """The text the form edits: the section with its subsections (as `replace_section`
    replaces it), the whole page, or nothing for a new section; None: no such section."""
    if section is None:
        return full
    if section == "new":
        return ""
    parts = split_sections(full)
    index = int(section)
    if index >= len(parts):
        return None
    end = index + 1
    if index > 0:
        while end < len(parts) and _level(parts[end]) > _level(parts[index]):
            end += 1
    return "".join(parts[index:end]).rstrip("\n")


def _heading_of(section_text: str) -> str:
    first = section_text.split("\n", 1)[0].strip()
    return first.strip("=").strip()


async def _view_source(
    request: Request, site: Site, db: Database, title: Title, base: Base, refusal: Refusal
) -> Response:
    """EditPage's "View source" page with the reason; 200, as MediaWiki answers a refused
    edit (a permissions error page sets no status)."""
    shown = links.prefixed_text(site, title)
    block = refusal.block
    context: dict[str, Any] = {
        "reason": refusal.reason,
        "block": block,
        "block_start": local_time(block.timestamp) if block else "",
        "block_expiry": (
            "infinite" if block and block.expiry == "infinity" else local_time(block.expiry)
        )
        if block
        else "",
        "ip": client_ip(request),
        "text": base.text,
        "exists": base.page_id is not None,
        "return_href": links.page_href(site, title),
        "return_name": shown,
    }
    return await render_page(
        request, site, db, "view_source.html", context, title=title,
        heading=f"View source for {shown}",
        action="edit",
    )  # fmt: skip


async def _form(
    request: Request,
    site: Site,
    db: Database,
    title: Title,
    viewer: Viewer,
    draft: Draft,
    *,
    preview_html: str = "",
    diff_rows: str | None = None,
    conflict_text: str | None = None,
    error: str = "",
    notice: str = "",
    status: int = 200,
) -> Response:
    shown = links.prefixed_text(site, title)
    section, textbox = draft.section, draft.textbox
    exists = bool(draft.edittime)
    if conflict_text is not None:
        heading = f"Edit conflict: {shown}"
    elif section == "new":
        heading = f"Editing {shown} (new section)"
    elif section is not None:
        heading = f"Editing {shown} (section)"
    elif exists:
        heading = f"Editing {shown}"
    else:
        heading = f"Creating {shown}"
    params = {"action": "submit"}
    if section is not None:
        params["section"] = section
    context = {
        "form_action": links.index_href(site, title, **params),
        "section": section,
        "textbox": conflict_text if conflict_text is not None else textbox,
        "your_text": textbox if conflict_text is not None else None,
        "summary": draft.summary,
        "minor": draft.minor,
        "watch": draft.watch,
        "edittime": draft.edittime,
        "starttime": draft.starttime,
        "preview_html": trusted(preview_html) if preview_html else "",
        "diff_rows": trusted(diff_rows) if diff_rows is not None else None,
        "conflict": conflict_text is not None,
        "error": error,
        "notice": notice,
        "undid": draft.undid,
        "base_rev_id": draft.base_rev_id,
        "exists": exists,
        "cancel_href": links.page_href(site, title),
        "save_label": "Save changes" if exists else "Save page",
    }
    return await render_page(
        request, site, db, "edit.html", context, title=title, heading=heading, action="edit",
        status=status,
    )  # fmt: skip


async def _watch_default(db: Database, viewer: Viewer, title: Title, creating: bool) -> bool:
    if not viewer.signed_in:
        return False
    if await db.read(is_watched, viewer.account.id, title):
        return True
    prefs = await db.read(options, viewer.account.id)
    return bool(int(prefs.get("watchdefault", 0) or 0)) or (
        creating and bool(int(prefs.get("watchcreations", 0) or 0))
    )


async def edit_form(request: Request, site: Site, db: Database, title: Title) -> Response:
    """GET `action=edit`: the form, or the source with the reason it cannot be edited."""
    viewer = await current_viewer(request, db)
    base = await db.read(_base, site, title)
    who = performer(viewer, client_ip(request))
    refusal = await db.read(edit_refusal, site, title, who, base.page_id is not None)
    if refusal is not None:
        return await _view_source(request, site, db, title, base, refusal)
    undo = request.query_params.get("undo", "")
    if undo.isdigit():
        return await _undo_form(request, site, db, title, viewer, base, undo)
    section = _section_of(request.query_params.get("section"))
    textbox = _section_text(base.text, section)
    if textbox is None:
        draft = Draft(
            None, base.text, edittime=base.timestamp, starttime=now14(), base_rev_id=base.rev_id
        )
        # EditPage's `nosuchsectiontext`, at 200 as MediaWiki 1.39 answers.
        error = text("nosuchsectiontext")
        return await _form(request, site, db, title, viewer, draft, error=error)
    summary = ""
    if section not in (None, "new", "0"):
        summary = f"/* {_heading_of(textbox)} */ "
    watch = await _watch_default(db, viewer, title, base.page_id is None)
    draft = Draft(
        section, textbox, summary, False, watch, base.timestamp, now14(), base_rev_id=base.rev_id
    )
    return await _form(request, site, db, title, viewer, draft)


async def _undo_form(
    request: Request, site: Site, db: Database, title: Title, viewer: Viewer, base: Base,
    undo: str,
) -> Response:  # fmt: skip
    """`action=edit&undo=N(&undoafter=M)`: the text with those edits undone, in preview mode
    with the changes shown, as EditPage does; saving it is an ordinary save tagged `mw-undo`."""
    after = request.query_params.get("undoafter", "")
    try:
        plan = await db.read(
            plan_undo, base.page_id, links.prefixed_text(site, title), int(undo),
            int(after) if after.isdigit() else None,
        )  # fmt: skip
    except ChangeError:
        plan = None
    if plan is None:
        draft = Draft(
            None, base.text, edittime=base.timestamp, starttime=now14(), base_rev_id=base.rev_id
        )
        error = "The edit could not be undone due to conflicting intermediate edits."
        return await _form(request, site, db, title, viewer, draft, error=error)
    draft = Draft(
        None, plan.text, plan.summary or "", False, False, base.timestamp, now14(), undid=undo,
        base_rev_id=base.rev_id,
    )  # fmt: skip
    return await _form(
        request, site, db, title, viewer, draft, diff_rows=table_rows(base.text, plan.text),
        notice="The edit can be undone. Please check the comparison below to verify that this "
        "is what you want to do, and then publish the changes below to finish undoing the edit.",
    )  # fmt: skip


def _draft(form: dict[str, str], fallback_section: str | None) -> Draft:
    return Draft(
        section=_section_of(form.get("wpSection", fallback_section)),
        textbox=form.get("wpTextbox1", "").replace("\r\n", "\n"),
        summary=form.get("wpSummary", ""),
        minor=form.get("wpMinoredit") == "1",
        watch=form.get("wpWatchthis") == "1",
        edittime=form.get("wpEdittime", ""),
        starttime=form.get("wpStarttime", "") or now14(),
        undid=form.get("wpUndidRevision", "") if form.get("wpUndidRevision", "").isdigit() else "",
        base_rev_id=int(form["editRevId"]) if form.get("editRevId", "").isdigit() else 0,
    )


async def submit(request: Request, site: Site, db: Database, title: Title) -> Response:
    """POST `action=submit`: preview, show changes, or save."""
    viewer = await current_viewer(request, db)
    fields = await request.form()
    form = {k: v for k, v in fields.multi_items() if isinstance(v, str)}
    draft = _draft(form, request.query_params.get("section"))
    if not csrf_ok(request, site, viewer, form.get("wpEditToken")):
        # EditPage keeps the text and shows it again with the reason, at 200.
        error = text("session_fail_preview")
        return await _form(request, site, db, title, viewer, draft, error=error)
    base = await db.read(_base, site, title)
    who = performer(viewer, client_ip(request))
    refusal = await db.read(edit_refusal, site, title, who, base.page_id is not None)
    if refusal is not None:
        return await _view_source(request, site, db, title, base, refusal)
    if "wpPreview" in form:
        model = await db.read(parsing.model_of, title)
        rendered = await db.read_rendering(parsing.render_model, site, title, draft.textbox, model)
        return await _form(request, site, db, title, viewer, draft, preview_html=rendered.html)
    if "wpDiff" in form:
        rows = table_rows(base.text, _composed(base.text, draft))
        return await _form(request, site, db, title, viewer, draft, diff_rows=rows)
    if await wiki_limits(request).ping(viewer.account, "edit", client_ip(request)):
        error = text("actionthrottledtext")
        return await _form(request, site, db, title, viewer, draft, error=error, status=429)
    try:
        await save_edit(db, site, _edit_request(viewer, who, title, draft))
    except Blocked as exc:
        return await _view_source(request, site, db, title, base, Refusal("", exc.block))
    except ChangeError as exc:
        if exc.code in ("editconflict", "articleexists"):
            fresh = await db.read(_base, site, title)
            return await _conflict(request, site, db, title, viewer, fresh, draft)
        if exc.code == "protectedpage":
            refusal = Refusal(text("protectedpagetext"))
            return await _view_source(request, site, db, title, base, refusal)
        # EditPage shows the form again, the text kept, with the error, at 200.
        error = _too_long(draft) if exc.code == "contenttoobig" else exc.text
        return await _form(request, site, db, title, viewer, draft, error=error)
    return RedirectResponse(links.page_href(site, title), 303)


def _too_long(draft: Draft) -> str:
    """EditPage's `longpageerror`: the text's size and the limit, in kilobytes."""
    size = round(len(draft.textbox.encode()) / 1024, 3)
    shown = f"{size:,}".rstrip("0").rstrip(".")
    return strip_markup(message("longpageerror", shown, f"{MAX_ARTICLE_SIZE // 1024:,}"))


def _edit_request(viewer: Viewer, who: Performer, title: Title, draft: Draft) -> EditRequest:
    account = viewer.account
    return EditRequest(
        title=title,
        editor=Editor(account.id or None, account.name, frozenset(account.rights)),
        text=draft.textbox,
        section=draft.section,
        sectiontitle=draft.summary if draft.section == "new" else None,
        summary="" if draft.section == "new" else draft.summary,
        minor=draft.minor and account.allowed("minoredit"),
        basetimestamp=draft.edittime or None,
        baserevid=draft.base_rev_id or None,
        starttimestamp=draft.starttime,
        # A page created from a form that started without one must not overwrite one created
        # meanwhile: that is a conflict too.
        createonly=not draft.edittime,
        watch=draft.watch if account.registered else None,
        software_tags=("mw-undo",) if draft.undid else (),
        ip=who.ip,
        performer=who,
    )


async def _conflict(
    request: Request, site: Site, db: Database, title: Title, viewer: Viewer, fresh: Base,
    draft: Draft,
) -> Response:  # fmt: skip
    """EditPage's conflict screen: the whole current text in the upper box (what a save will
    publish, now based on the current revision), the editor's text below, and the differences."""
    mine = _composed(fresh.text, draft)
    again = Draft(
        None, mine, draft.summary, draft.minor, draft.watch, fresh.timestamp, now14(),
        base_rev_id=fresh.rev_id,
    )  # fmt: skip
    return await _form(
        request, site, db, title, viewer, again, conflict_text=fresh.text,
        diff_rows=table_rows(fresh.text, mine),
    )  # fmt: skip


def _composed(current: str, draft: Draft) -> str:
    """The whole page text a save would give."""
    section, textbox, summary = draft.section, draft.textbox, draft.summary
    if section is None:
        return textbox
    if section == "new":
        heading = f"== {summary} ==\n" if summary else ""
        return (current.rstrip("\n") + "\n\n" if current else "") + heading + textbox
    replaced = replace_section(current, int(section), textbox)
    return replaced if replaced is not None else current

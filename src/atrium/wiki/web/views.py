"""Pages for a browser: `/wiki/<Title>` and `/w/index.php?title=…&action=view|raw|history|edit`.

Thin handlers: the title and action from the request, one read through `reading`, and the page
drawn by `skin.render_page`. Special pages are dispatched through `specialpages`.
"""

from __future__ import annotations

import html
import logging
import secrets
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, unquote, urlencode

from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

from atrium.core.body_limit import BodyTooLarge
from atrium.core.db import Conn, Database
from atrium.core.exceptions import exception_class
from atrium.core.page_headers import PAGE_HEADERS
from atrium.core.user_content import SAFE_HEADERS
from atrium.wiki import body_limits
from atrium.wiki.accounts.usernames import is_ip
from atrium.wiki.messages.store import MESSAGES
from atrium.wiki.reads import article as article_view
from atrium.wiki.reads import comparing
from atrium.wiki.reads import page_view as reading
from atrium.wiki.reads.pages import pages_by_ids
from atrium.wiki.reads.users import account_by_name, is_hidden
from atrium.wiki.site import MAIN_PAGE, Site
from atrium.wiki.titles import (
    NS_CATEGORY,
    NS_FILE,
    NS_MEDIAWIKI,
    NS_SPECIAL,
    NS_USER,
    NS_USER_TALK,
    InvalidTitle,
    Title,
)
from atrium.wiki.web import (
    account_pages,
    editing,
    history_selection,
    info_page,
    links,
    password_reset_pages,
    revision_views,
    rollback_links,
    runjobs,
    search_page,
    specialpages,
    talkseen,
    watch_pages,
)
from atrium.wiki.web.comments import comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.edit_permission import may_edit
from atrium.wiki.web.skin import render_page, trusted
from atrium.wiki.web.special import category_page, file_page
from atrium.wiki.web.special import registry as special_registry
from atrium.wiki.web.texts import text as web_text
from atrium.wiki.web.viewer import current_viewer
from atrium.wiki.web.visibility import DELETED_TEXT, can_see, shown_comment, shown_user
from atrium.wiki.wikitext.html.editsection import add_edit_links

RUN_JOBS = Title(NS_SPECIAL, "RunJobs")
# The modules whose special pages register themselves when imported.
SPECIAL_PAGE_MODULES = (account_pages, password_reset_pages, search_page)

log = logging.getLogger(__name__)


async def guarded(
    request: Request, site: Site, db: Database, page: Awaitable[Response]
) -> Response:
    """The page, or when rendering it raised, MediaWiki's "Internal error" page as
    MWExceptionRenderer shows it without `$wgShowExceptionDetails`: the request id, the time and
    the exception's class; the traceback is logged under that id."""
    try:
        return await page
    except BodyTooLarge:
        # As the web server in front of MediaWiki refuses a body past its bound: before reading it.
        text = body_limits.refusal(request)[1].text
        box = f'<div class="errorbox mw-content-ltr"><p>{_esc(text)}</p></div>'
        return await message_page(
            request, site, db, "Error", box, status=body_limits.TOO_LARGE_STATUS
        )
    except ClientDisconnect:
        # The client left before its body arrived: nobody reads this answer, and a gone
        # client is not an internal error.
        return Response(status_code=400)
    except Exception as exc:
        request_id = secrets.token_hex(12)
        errorclass = exception_class(exc)
        log.error(
            "[%s] %s %s: caught exception of type %s",
            request_id,
            request.method,
            request.url.path,
            errorclass,
            exc_info=exc,
        )
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
    text = f'[{request_id}] {now}: Fatal exception of type "{errorclass}"'
    try:
        return await message_page(
            request,
            site,
            db,
            "Internal error",
            f'<div class="errorbox mw-content-ltr"><p>{_esc(text)}</p></div>',
            status=500,
        )
    except Exception:
        return PlainTextResponse(text, status_code=500, headers=PAGE_HEADERS)


def _esc(text: str) -> str:
    """Text for an element's content (quotes stay as they are, as MediaWiki writes them)."""
    return html.escape(text, quote=False)


async def message_page(
    request: Request,
    site: Site,
    db: Database,
    heading: str,
    body_html: str,
    *,
    title: Title | None = None,
    status: int = 200,
) -> Response:
    """A page whose body is HTML built by the caller (every value in it escaped)."""
    return await render_page(
        request,
        site,
        db,
        "message.html",
        {"body_html": trusted(body_html)},
        title=title,
        heading=heading,
        status=status,
    )


@dataclass(frozen=True)
class _Category:
    text: str
    full: str
    href: str
    exists: bool


def _categories(site: Site, view: article_view.PageView) -> list[_Category]:
    assert view.rendered is not None
    shown = [c for c in view.rendered.categories if c not in view.hidden_categories]
    out = []
    for name in shown:
        title = Title(NS_CATEGORY, name)
        exists = name in view.existing_categories
        href = (
            links.page_href(site, title)
            if exists
            else links.index_href(site, title, action="edit", redlink="1")
        )
        out.append(
            _Category(
                name.replace("_", " "), site.parser.prefixed_text(NS_CATEGORY, name), href, exists
            )
        )
    return out


def _parse_title(site: Site, text: str) -> Title | None:
    try:
        title = site.parser.parse(text)
    except InvalidTitle:
        return None
    if title.interwiki or not title.dbkey:
        return None
    return title


async def _page_by_id(db: Database, value: str) -> Title | None:
    if not value.isascii() or not value.isdigit() or len(value) > 12:
        return None
    rows = await db.read(pages_by_ids, [int(value)])
    return Title(int(rows[0]["page_namespace"]), str(rows[0]["page_title"])) if rows else None


async def _bad_title(request: Request, site: Site, db: Database, text: str) -> Response:
    body = f"<p>The requested page title is empty or invalid: <code>{_esc(text)}</code></p>"
    # MediaWiki 1.39 answers a title it cannot read with 404, as for a page not there.
    return await message_page(request, site, db, "Bad title", body, status=404)


def _named(site: Site, title: Title) -> dict[str, str]:
    return {
        "name": site.parser.prefixed_text(title.ns, title.dbkey),
        "href": links.page_href(site, title),
    }


async def view(request: Request, site: Site, db: Database, title: Title, follow: bool) -> Response:
    page = await db.read_cached_or_rendering(
        article_view.cached_view, article_view.view_page, site, title, follow
    )
    context: dict[str, Any] = {"redirected_from": None, "redirect_to": None, "categories": []}
    if not page.exists:
        context.update(
            missing=True,
            search_href=links.special_href(
                "Search", search=site.parser.prefixed_text(title.ns, title.dbkey)
            ),
            create_href=links.index_href(site, title, action="edit"),
        )
        context["after_html"] = trusted(await _namespace_sections(request, site, db, title))
        known = await _shown_though_missing(request, db, title)
        return await render_page(
            request, site, db, "article.html", context, title=title, status=200 if known else 404
        )
    assert page.rendered is not None
    if page.redirected_from is not None:
        source = page.redirected_from
        context["redirected_from"] = {
            **_named(site, source),
            "href": links.index_href(site, source, redirect="no"),
        }
    if page.redirect_to is not None:
        context["redirect_to"] = _named(site, page.redirect_to)
    content = page.rendered.html
    viewer = await current_viewer(request, db)
    # Section edit links only for who may edit the page (rights and protection, quick check).
    if page.redirect_to is None and await may_edit(request, site, db, viewer, page.title, True):
        content = add_edit_links(links.prefixed_dbkey(site, page.title), content)
    context.update(
        missing=False,
        content_html=trusted(await _namespace_sections(request, site, db, page.title, content)),
        categories=_categories(site, page),
    )
    return await render_page(request, site, db, "article.html", context, title=page.title)


def _user_root(conn: Conn, name: str, may_see_hidden: bool) -> bool:
    """Whether `name` is an account the reader may know of."""
    account = account_by_name(conn, name)
    if account is None:
        return False
    return may_see_hidden or not is_hidden(conn, account.id)


async def _shown_though_missing(request: Request, db: Database, title: Title) -> bool:
    """Article::showMissingArticle answers 200, not 404, for a missing page that is still
    something: the user (talk) page of an account or an IP address (not a subpage), and a
    message page whose message has a default text. A hidden account counts as none unless the
    reader may see hidden users."""
    if title.ns in (NS_USER, NS_USER_TALK):
        root, _, rest = title.dbkey.partition("/")
        if rest:
            return False
        name = root.replace("_", " ")
        if is_ip(name):
            return True
        viewer = await current_viewer(request, db)
        return await db.read(_user_root, name, viewer.account.allowed("hideuser"))
    if title.ns == NS_MEDIAWIKI:
        key = title.dbkey[:1].lower() + title.dbkey[1:]
        return key in MESSAGES or key.rpartition("/")[0] in MESSAGES
    return False


async def _namespace_sections(
    request: Request, site: Site, db: Database, title: Title, html: str = ""
) -> str:
    """A page's rendered text with what its namespace adds: a file page's image, history and
    usage before it, a category page's members after it."""
    if title.ns == NS_FILE:
        viewer = await current_viewer(request, db)
        html = str(await file_page.sections_html(site, db, viewer.account, title)) + html
    elif title.ns == NS_CATEGORY:
        html += str(await category_page.members_html(request, site, db, title))
    return html


async def raw(request: Request, site: Site, db: Database, title: Title, oldid: str) -> Response:
    """RawAction: the current text, or with `oldid` that revision's if it is this page's and
    the viewer may see its text; otherwise an empty 404, as MediaWiki answers."""
    text: str | None
    if oldid:
        rev = await db.read(comparing.revision, site, int(oldid)) if oldid.isdigit() else None
        viewer = await current_viewer(request, db)
        text = None
        if rev is not None and rev.title == title:
            text = rev.text if can_see(viewer.account, rev.deleted, DELETED_TEXT) else None
    else:
        text = await db.read(reading.raw_text, title.ns, title.dbkey)
    if text is None:
        return PlainTextResponse("", status_code=404, media_type="text/x-wiki")
    # Always as wiki source, never as the script or style a page may hold: with `nosniff` no
    # browser runs it from a <script> or applies it from a <link>, and the sandbox keeps it
    # inert if opened as a document.
    return Response(text, media_type="text/x-wiki; charset=UTF-8", headers=SAFE_HEADERS)


@dataclass(frozen=True)
class _HistoryLine:
    rev_id: int
    href: str
    timestamp: str
    user: str | None  # None: removed
    comment: Markup | None  # None: removed
    minor: bool
    size: int
    size_change: int | None  # None: the older revision is beyond the list
    # HistoryPager's tools: rollback on the latest line, undo where the viewer may edit.
    tools: tuple[Markup, ...] = ()
    # The check box (or link) that selects it for Special:RevisionDelete or EditTags.
    select: Markup | str = ""


UNDO_TOOLTIP = (
    '"Undo" reverts this edit and opens the edit form in preview mode. '
    "It allows adding a reason in the summary."
)


def _history_tools(
    site: Site,
    title: Title,
    row: Any,
    older: Any | None,
    rollback: rollback_links.RollbackLink | None,
    can_edit: bool,
) -> tuple[Markup, ...]:
    """The line's "rollback" and "undo" links. Undo needs this revision's and the one
    before it's text visible to everyone, as HistoryPager asks."""
    tools = []
    if rollback is not None:
        tools.append(
            Markup('<span class="mw-rollback-link"><a href="{}" title="{}">{}</a></span>').format(
                rollback.href, rollback.tooltip, rollback.label
            )
        )
    parent = int(older["rev_id"]) if older is not None else int(row["rev_parent_id"] or 0)
    hidden = int(row["rev_deleted"] or 0) & DELETED_TEXT or (
        older is not None and int(older["rev_deleted"] or 0) & DELETED_TEXT
    )
    if can_edit and parent and not hidden:
        href = links.index_href(
            site, title, action="edit", undoafter=str(parent), undo=str(row["rev_id"])
        )
        tools.append(
            Markup('<span class="mw-history-undo"><a href="{}" title="{}">undo</a></span>').format(
                href, UNDO_TOOLTIP
            )
        )
    if not tools:
        return ()
    return (
        Markup('<span class="mw-changeslist-links mw-pager-tools">')
        + Markup("").join(Markup("<span>{}</span>").format(t) for t in tools)
        + Markup("</span>"),
    )


async def history(request: Request, site: Site, db: Database, title: Title, limit: int) -> Response:
    found = await db.read(reading.current_text, title.ns, title.dbkey)
    heading = f"{site.parser.prefixed_text(title.ns, title.dbkey)}: Revision history"
    if found is None:
        return await message_page(
            request,
            site,
            db,
            heading,
            "<p>No matching revisions were found.</p>",
            title=title,
            status=404,
        )
    rows = await db.read(reading.history, found[0], limit)
    viewer = await current_viewer(request, db)
    reader = viewer.account
    rollback = await rollback_links.rollback_link(request, site, db, viewer, title, found[0])
    can_edit = await may_edit(request, site, db, viewer, title, True)
    chosen = await history_selection.selection(db, reader)
    lines = []
    comments = await comment_html(
        db,
        site,
        [
            (shown_comment(reader, int(r["rev_deleted"] or 0), str(r["comment_text"])), title)
            for r in rows
        ],
    )
    for index, row in enumerate(rows):
        oldid = int(row["rev_id"])
        older_len: int | None = 0
        if index + 1 < len(rows):
            older_len = int(rows[index + 1]["rev_len"])
        elif int(row["rev_parent_id"] or 0):
            older_len = None
        # A deleted user or summary is shown only to those with the right (HistoryPager with
        # Linker::revUserTools and Linker::revComment).
        deleted = int(row["rev_deleted"] or 0)
        lines.append(
            _HistoryLine(
                oldid,
                links.index_href(site, title, oldid=str(oldid)),
                local_time(str(row["rev_timestamp"])),
                shown_user(reader, deleted, str(row["actor_name"])),
                comments[index],
                bool(row["rev_minor_edit"]),
                int(row["rev_len"]),
                None if older_len is None else int(row["rev_len"]) - older_len,
                _history_tools(
                    site,
                    title,
                    row,
                    rows[index + 1] if index + 1 < len(rows) else None,
                    rollback if index == 0 else None,
                    can_edit,
                ),
                history_selection.line_control(site, title, reader, chosen, oldid, deleted),
            )
        )
    return await render_page(
        request,
        site,
        db,
        "history.html",
        {"lines": lines, "selection": chosen},
        title=title,
        heading=heading,
        action="history",
    )


# What an anonymous visitor of a private wiki may still open: the special pages MediaWiki's
# PermissionManager::checkReadPermissions always lets through (signing in and out, resetting a
# password, and RunJobs, which its signature guards). Special:CreateAccount is not one of them.
READABLE_WHEN_PRIVATE = frozenset({"UserLogin", "UserLogout", "PasswordReset", "RunJobs"})


async def _login_required(request: Request, site: Site, db: Database, title_text: str) -> Response:
    """MediaWiki's `loginreqtitle` page for a reader without `read`, at 200 as its permissions
    error page answers. It names only the title the reader asked for (in the login link's
    `returnto`), never whether that page exists or what it holds, and no cache may keep it."""
    back = {"returnto": title_text} if title_text else {}
    if back and request.method == "GET":
        rest = [(k, v) for k, v in request.query_params.multi_items() if k not in _NOT_RETURNED]
        back["returntoquery"] = urlencode(rest)
    login = html.escape(links.special_href("UserLogin", **back))
    body = "<p>" + _esc(MESSAGES["loginreqpagetext"]).replace(
        "$1", f'<a href="{login}" title="Special:UserLogin">{_esc(MESSAGES["loginreqlink"])}</a>'
    ) + "</p>"  # fmt: skip
    response = await message_page(request, site, db, MESSAGES["loginreqtitle"], body)
    response.headers["Cache-Control"] = "private, no-cache, must-revalidate"
    return response


# What the login link's `returntoquery` leaves out (OutputPage::showPermissionsErrorPage).
_NOT_RETURNED = frozenset({"title", "returnto", "returntoquery"})


async def may_read(request: Request, site: Site, db: Database, title: Title) -> bool:
    viewer = await current_viewer(request, db)
    if viewer.account.allowed("read"):
        return True
    if title.ns == NS_SPECIAL:
        found = specialpages.lookup(title.dbkey)
        return found is not None and found[0].name in READABLE_WHEN_PRIVATE
    return False


async def special(request: Request, site: Site, db: Database, title: Title) -> Response:
    found = specialpages.lookup(title.dbkey)
    if found is None:
        body = (
            "<p>You have requested an invalid special page.</p><p>A list of valid special pages "
            f'can be found at <a href="{links.special_href("SpecialPages")}">Special pages</a>.</p>'
        )
        return await message_page(
            request, site, db, "No such special page", body, title=title, status=404
        )
    page, subpage = found
    if request.method == "POST" and not page.post:
        return PlainTextResponse("Method Not Allowed", status_code=405, headers=PAGE_HEADERS)
    return await page.handler(request, site, db, subpage)


async def article(request: Request, site: Site, db: Database) -> Response:
    text = unquote(request.path_params.get("title", "")).replace("_", " ")
    if not text:
        return RedirectResponse("/wiki/" + quote(MAIN_PAGE.replace(" ", "_")), status_code=301)
    title = _parse_title(site, text)
    if title is None:
        return await _bad_title(request, site, db, text)
    if not await may_read(request, site, db, title):
        return await _login_required(request, site, db, links.prefixed_text(site, title))
    if title.ns == NS_SPECIAL:
        return await special(request, site, db, title)
    params = request.query_params
    if "diff" in params:
        return await revision_views.diff_page(
            request, site, db, title, params["diff"], params.get("oldid", "")
        )
    if "oldid" in params:
        return await revision_views.old_revision(request, site, db, title, params["oldid"])
    await talkseen.clear_if_own_talk(request, db, title)
    return await view(request, site, db, title, params.get("redirect") != "no")


async def index(request: Request, site: Site, db: Database) -> Response:
    params = request.query_params
    form: dict[str, str] = {}
    if request.method == "POST":
        # Read once and kept by the request: a special page's handler reads the same form. A
        # field may hold a whole page, so that an oversized edit gets the editor's own refusal.
        try:
            fields = await request.form(max_part_size=body_limits.PAGE_BODY_BYTES)
        except (HTTPException, MultiPartException) as exc:  # a malformed body
            detail = exc.detail if isinstance(exc, HTTPException) else exc.message
            box = f'<div class="errorbox mw-content-ltr"><p>{_esc(detail)}</p></div>'
            return await message_page(request, site, db, "Error", box, status=400)
        form = {k: v for k, v in fields.multi_items() if isinstance(v, str)}
    if "search" in params and request.method == "GET":
        # index.php?search= is Special:Search, whatever the title says (MediaWiki's rule).
        search = Title(NS_SPECIAL, "Search")
        if not await may_read(request, site, db, search):
            return await _login_required(request, site, db, "Special:Search")
        return await special(request, site, db, search)
    if "curid" in params and "title" not in params and "title" not in form:
        # A page by its id (Special:Redirect/page leads here); an unknown id is a bad title.
        by_id = await _page_by_id(db, params["curid"])
        if by_id is None:
            body = "<p>The requested page title is empty or invalid.</p>"
            return await message_page(request, site, db, "Bad title", body, status=404)
        text = site.parser.prefixed_text(by_id.ns, by_id.dbkey)
    else:
        text = form.get("title", params.get("title", MAIN_PAGE)).replace("_", " ")
    if _parse_title(site, text) == RUN_JOBS:
        return runjobs.run_jobs(request.method, form, site.secret)
    title = _parse_title(site, text)
    if title is None:
        return await _bad_title(request, site, db, text)
    if not await may_read(request, site, db, title):
        # Only the title the request named goes back: a page found by its id (`curid`) must
        # not be named to one who may not read it (MediaWiki's T34276).
        asked = _parse_title(site, form.get("title", params.get("title", "")).replace("_", " "))
        shown = links.prefixed_text(site, asked) if asked is not None else ""
        return await _login_required(request, site, db, shown)
    if title.ns == NS_SPECIAL:
        return await special(request, site, db, title)
    action = special_registry.action_name(params.get("action", "view"), params)
    served = await special_registry.page_action(request, site, db, title, action)
    if served is not None:
        return served
    if "diff" in params and action == "view":
        return await revision_views.diff_page(
            request, site, db, title, params["diff"], params.get("oldid", "")
        )
    if "oldid" in params and action == "view":
        return await revision_views.old_revision(request, site, db, title, params["oldid"])
    if action == "info":
        return await info_page.info(request, site, db, title)
    if action in ("watch", "unwatch"):
        return await watch_pages.watch(request, site, db, title, action == "watch")
    if action == "raw":
        return await raw(request, site, db, title, params.get("oldid", ""))
    if action == "history":
        limit = params.get("limit", "50")
        return await history(
            request, site, db, title, min(int(limit), 5000) if limit.isdigit() else 50
        )
    if action in ("edit", "submit"):
        if request.method == "POST":
            return await editing.submit(request, site, db, title)
        return await editing.edit_form(request, site, db, title)
    if action == "view":
        await talkseen.clear_if_own_talk(request, db, title)
        return await view(request, site, db, title, params.get("redirect") != "no")
    words = web_text("nosuchactiontext").replace("{{SITENAME}}", site.sitename)
    body = f"<p>{_esc(words)}</p>"
    return await message_page(request, site, db, "No such action", body, title=title, status=404)

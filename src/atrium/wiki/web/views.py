"""Pages for a browser: `/wiki/<Title>` and `/w/index.php?title=…&action=view|raw|history|edit`.

Thin handlers: the title and action from the request, one read through `reading`, and a small
skin around the result. Every value that comes from the request or the database is escaped here
or by the renderer.
"""

from __future__ import annotations

import html
import logging
import secrets
from collections.abc import Awaitable
from datetime import UTC, datetime
from urllib.parse import quote, unquote

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response

from atrium.core.db import Database
from atrium.core.exceptions import exception_class
from atrium.wiki.reads import page_view as reading
from atrium.wiki.site import GENERATOR, MAIN_PAGE, SCRIPT_PATH, Site
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import NS_CATEGORY, NS_FILE, NS_SPECIAL, InvalidTitle, Title
from atrium.wiki.web import runjobs, talkseen
from atrium.wiki.web.special import category_page, file_page
from atrium.wiki.web.special import registry as special

_STYLE = """
body{font-family:sans-serif;margin:0;color:#202122;background:#f8f9fa}
#head{padding:.5em 1em;background:#eaecf0}#head a{margin-right:1em}
#content{background:#fff;margin:0 1em 1em;padding:1em 1.5em;border:1px solid #a7d7f9}
h1#firstHeading{font-family:serif;font-weight:normal;border-bottom:1px solid #a2a9b1}
a{color:#0645ad;text-decoration:none}a.new{color:#ba0000}a.external{color:#36b}
.catlinks{border:1px solid #a2a9b1;background:#f8f9fa;padding:5px;margin-top:1em}
.catlinks ul{display:inline;margin:0;padding:0}.catlinks li{display:inline-block;margin:0 .5em}
table.wikitable{border-collapse:collapse}table.wikitable td,table.wikitable th{border:1px solid #a2a9b1;padding:.2em .4em}
pre{background:#f8f9fa;border:1px solid #eaecf0;padding:1em}
.infobox{float:right;border:1px solid #a2a9b1;background:#f8f9fa;padding:.5em;margin:0 0 .5em 1em}
#contentSub{color:#54595d;font-size:92%}
"""


RUN_JOBS = Title(NS_SPECIAL, "RunJobs")
MAX_UPLOAD_BYTES = 100 * 1024 * 1024  # $wgMaxUploadSize


def _page_href(site: Site, title: Title) -> str:
    prefixed = site.parser.prefixed_dbkey(title.ns, title.dbkey)
    return "/wiki/" + quote(prefixed, safe=":/!$()*,;@~")


def _index_href(site: Site, title: Title, **params: str) -> str:
    prefixed = quote(site.parser.prefixed_dbkey(title.ns, title.dbkey), safe=":/!$()*,;@~")
    extra = "".join(f"&{k}={quote(v)}" for k, v in params.items())
    return f"{SCRIPT_PATH}/index.php?title={prefixed}{extra}"


def _skin(site: Site, heading: str, body: str, title: Title | None, status: int = 200) -> Response:
    esc = html.escape
    page_name = site.parser.prefixed_text(title.ns, title.dbkey) if title else heading
    tabs = ""
    if title is not None:
        tabs = (
            f'<a href="{esc(_page_href(site, title))}">Read</a>'
            f'<a href="{esc(_index_href(site, title, action="edit"))}">View source</a>'
            f'<a href="{esc(_index_href(site, title, action="history"))}">View history</a>'
        )
    document = (
        '<!DOCTYPE html>\n<html lang="en" dir="ltr"><head><meta charset="UTF-8">'
        f"<title>{esc(page_name)} - {esc(site.sitename)}</title>"
        # What MediaWiki's skins put in every head: clients (pywikibot's site detection) find
        # the version and the API here.
        f'<meta name="generator" content="{GENERATOR}"/>'
        '<link rel="EditURI" type="application/rsd+xml" '
        f'href="{esc(site.api_url)}?action=rsd"/>'
        f"<style>{_STYLE}</style></head><body>"
        f'<div id="head"><a href="/wiki/{quote(MAIN_PAGE.replace(" ", "_"))}">Main Page</a>'
        f"{tabs}</div>"
        f'<div id="content" class="mw-body"><h1 id="firstHeading" class="firstHeading">'
        f"{heading}</h1>{body}</div></body></html>"
    )
    return HTMLResponse(document, status_code=status)


log = logging.getLogger(__name__)


async def guarded(request: Request, site: Site, page: Awaitable[Response]) -> Response:
    """The page, or when rendering it raised, MediaWiki's "Internal error" page as
    MWExceptionRenderer shows it without `$wgShowExceptionDetails`: the request id, the time and
    the exception's class; the traceback is logged under that id."""
    try:
        return await page
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
    body = (
        '<div id="mw-content-text"><div class="errorbox mw-content-ltr">'
        f'<p>[{request_id}] {now}: Fatal exception of type "{html.escape(errorclass)}"</p>'
        "</div></div>"
    )
    return _skin(site, "Internal error", body, None, status=500)


def _categories_box(site: Site, view: reading.PageView) -> str:
    assert view.rendered is not None
    shown = [c for c in view.rendered.categories if c not in view.hidden_categories]
    if not shown:
        return ""
    items = []
    for name in shown:
        title = Title(NS_CATEGORY, name)
        text = html.escape(name.replace("_", " "))
        href = html.escape(_page_href(site, title))
        full = html.escape(site.parser.prefixed_text(NS_CATEGORY, name))
        if name in view.existing_categories:
            items.append(f'<li><a href="{href}" title="{full}">{text}</a></li>')
        else:
            edit = html.escape(_index_href(site, title, action="edit", redlink="1"))
            items.append(
                f'<li><a href="{edit}" class="new" title="{full} (page does not exist)">'
                f"{text}</a></li>"
            )
    return (
        '<div id="catlinks" class="catlinks"><div id="mw-normal-catlinks" '
        'class="mw-normal-catlinks"><a href="/wiki/Special:Categories" title="Special:Categories">'
        f"Categor{'y' if len(shown) == 1 else 'ies'}</a>: <ul>{''.join(items)}</ul></div></div>"
    )


def _parse_title(site: Site, text: str) -> Title | None:
    try:
        title = site.parser.parse(text)
    except InvalidTitle:
        return None
    if title.interwiki or not title.dbkey:
        return None
    return title


def _bad_title(site: Site, text: str) -> Response:
    body = (
        '<div id="mw-content-text"><p>The requested page title is empty or invalid: '
        f"<code>{html.escape(text)}</code></p></div>"
    )
    return _skin(site, "Bad title", body, None, status=400)


async def view(request: Request, site: Site, db: Database, title: Title, follow: bool) -> Response:
    page = await db.read(reading.view_page, site, title, follow)
    shown = site.parser.prefixed_text(page.title.ns, page.title.dbkey)
    if page.text is None:
        edit = html.escape(_index_href(site, title, action="edit"))
        body = (
            '<div id="mw-content-text"><div class="noarticletext mw-content-ltr">'
            "<p>There is currently no text in this page. You can search for this page title "
            f'in other pages, or <a href="{edit}">create this page</a>.</p></div></div>'
        )
        if title.ns == NS_CATEGORY:
            body += str(await category_page.members_html(request, site, db, title))
        if title.ns == NS_FILE:
            reader = await special.reader_of(request, db)
            body += str(await file_page.sections_html(site, db, reader, title))
        return _skin(site, html.escape(shown), body, title, status=404)
    assert page.rendered is not None
    sub = ""
    if page.redirected_from is not None:
        source = page.redirected_from
        href = html.escape(_index_href(site, source, redirect="no"))
        name = html.escape(site.parser.prefixed_text(source.ns, source.dbkey))
        sub = (
            '<div id="contentSub"><span class="mw-redirectedfrom">(Redirected from '
            f'<a href="{href}" class="mw-redirect" title="{name}">{name}</a>)</span></div>'
        )
    content = page.rendered.html
    if page.redirect_to is not None:
        target = page.redirect_to
        name = html.escape(site.parser.prefixed_text(target.ns, target.dbkey))
        href = html.escape(_page_href(site, target))
        content = (
            '<div class="redirectMsg"><p>Redirect to:</p><ul class="redirectText"><li>'
            f'<a href="{href}" title="{name}">{name}</a></li></ul></div>' + content
        )
    if page.title.ns == NS_CATEGORY:
        content += str(await category_page.members_html(request, site, db, page.title))
    if page.title.ns == NS_FILE:
        reader = await special.reader_of(request, db)
        content = str(await file_page.sections_html(site, db, reader, page.title)) + content
    body = (
        f'<div id="bodyContent">{sub}<div id="mw-content-text" class="mw-body-content">'
        f"{content}</div>{_categories_box(site, page)}</div>"
    )
    return _skin(site, html.escape(shown), body, page.title)


async def raw(site: Site, db: Database, title: Title) -> Response:
    text = await db.read(reading.raw_text, title.ns, title.dbkey)
    if text is None:
        return PlainTextResponse("", status_code=404, media_type="text/x-wiki")
    return Response(text, media_type="text/x-wiki; charset=UTF-8")


_DELETED_COMMENT, _DELETED_USER = 2, 4  # RevisionRecord's bits


async def history(site: Site, db: Database, title: Title, limit: int) -> Response:
    found = await db.read(reading.current_text, title.ns, title.dbkey)
    shown = html.escape(site.parser.prefixed_text(title.ns, title.dbkey))
    if found is None:
        body = '<div id="mw-content-text"><p>No matching revisions were found.</p></div>'
        return _skin(site, f"{shown}: Revision history", body, title, status=404)
    rows = await db.read(reading.history, found[0], limit)
    items = []
    for row in rows:
        oldid = int(row["rev_id"])
        href = html.escape(_index_href(site, title, oldid=str(oldid)))
        # Pages are read as an anonymous reader: a deleted user or summary is not shown
        # (HistoryPager with Linker::revUserTools and Linker::revComment).
        deleted = int(row["rev_deleted"] or 0)
        user = (
            '<span class="history-deleted">(username removed)</span>'
            if deleted & _DELETED_USER
            else html.escape(str(row["actor_name"]))
        )
        comment = (
            '<span class="history-deleted">edit summary removed</span>'
            if deleted & _DELETED_COMMENT
            else html.escape(str(row["comment_text"]))
        )
        minor = (
            ' <abbr class="minoredit" title="This is a minor edit">m</abbr>'
            if row["rev_minor_edit"]
            else ""
        )
        items.append(
            f'<li data-mw-revid="{oldid}"><a href="{href}" class="mw-changeslist-date">'
            f"{html.escape(iso(str(row['rev_timestamp'])))}</a> "
            f'<span class="history-user">{user}</span>{minor} '
            f'<span class="history-size">({int(row["rev_len"])} bytes)</span> '
            f'<span class="comment">({comment})</span></li>'
        )
    body = f'<div id="mw-content-text"><ul id="pagehistory">{"".join(items)}</ul></div>'
    return _skin(site, f"{shown}: Revision history", body, title)


async def edit(site: Site, db: Database, title: Title) -> Response:
    text = await db.read(reading.raw_text, title.ns, title.dbkey)
    shown = html.escape(site.parser.prefixed_text(title.ns, title.dbkey))
    note = (
        "<p>This page can be changed through the API (<code>action=edit</code>); "
        "its source is shown below.</p>"
    )
    body = (
        f'<div id="mw-content-text">{note}<textarea id="wpTextbox1" name="wpTextbox1" '
        f'readonly rows="25" cols="80">{html.escape(text or "")}</textarea></div>'
    )
    return _skin(site, f"View source for {shown}", body, title)


async def article(request: Request, site: Site, db: Database) -> Response:
    text = unquote(request.path_params.get("title", "")).replace("_", " ")
    if not text:
        return RedirectResponse("/wiki/" + quote(MAIN_PAGE.replace(" ", "_")), status_code=301)
    title = _parse_title(site, text)
    if title is None:
        return _bad_title(site, text)
    if title.ns == NS_SPECIAL:
        return await special.dispatch(request, site, db, title, {}, _skin)
    await talkseen.clear_if_own_talk(request, db, title)
    return await view(request, site, db, title, request.query_params.get("redirect") != "no")


async def index(request: Request, site: Site, db: Database) -> Response:
    params = request.query_params
    form: dict[str, str] = {}
    files: dict[str, tuple[str, bytes]] = {}  # file fields (Special:Upload): name, data
    if request.method == "POST":
        async with request.form() as fields:
            for key, value in fields.multi_items():
                if isinstance(value, str):
                    form[key] = value
                elif value.size is not None and value.size <= MAX_UPLOAD_BYTES:
                    files[key] = (value.filename or "", await value.read())
    text = form.get("title", params.get("title", MAIN_PAGE)).replace("_", " ")
    if _parse_title(site, text) == RUN_JOBS:
        return runjobs.run_jobs(request.method, form, site.secret)
    title = _parse_title(site, text)
    if title is None:
        return _bad_title(site, text)
    if title.ns == NS_SPECIAL:
        return await special.dispatch(request, site, db, title, form, _skin, files)
    action = params.get("action", "view")
    served = await special.page_action(request, site, db, title, action, form, _skin)
    if served is not None:
        return served
    if action == "raw":
        return await raw(site, db, title)
    if action == "history":
        limit = params.get("limit", "50")
        return await history(site, db, title, min(int(limit), 5000) if limit.isdigit() else 50)
    if action == "edit":
        return await edit(site, db, title)
    if action == "view":
        await talkseen.clear_if_own_talk(request, db, title)
        return await view(request, site, db, title, params.get("redirect") != "no")
    body = (
        '<div id="mw-content-text"><p>The action specified by the URL is not recognised by '
        f"the wiki: <code>{html.escape(action)}</code></p></div>"
    )
    return _skin(site, "No such action", body, title, status=400)

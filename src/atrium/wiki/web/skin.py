"""The skin every wiki page is drawn in, and the one function that draws a page: `render_page`.

A Vector-2022-like layout with MediaWiki's element ids (header with logo and `#searchInput`,
sidebar `#p-navigation`, `#p-personal`, the page tabs `#ca-*`, `#firstHeading`, `#contentSub`,
`#mw-content-text`, footer), from Jinja2 templates with autoescaping, one static stylesheet and no
inline script, so the pages' Content-Security-Policy allows none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse

from atrium.core.db import Database
from atrium.core.page_headers import PAGE_HEADERS
from atrium.wiki.changes.watching import is_watched
from atrium.wiki.reads import page_view as reading
from atrium.wiki.site import GENERATOR, Site
from atrium.wiki.titles import NS_SPECIAL, Title
from atrium.wiki.web import links, neighbours
from atrium.wiki.web.assets import ASSETS
from atrium.wiki.web.edit_permission import may_edit
from atrium.wiki.web.page_actions import PageAction, page_actions
from atrium.wiki.web.viewer import Viewer, current_viewer, remember_anon_token

TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)

# SkinTemplate's namespace tab ids (`ca-nstab-<key>`), by subject namespace.
_NSTAB = {
    0: "main",
    2: "user",
    4: "project",
    6: "image",
    8: "mediawiki",
    10: "template",
    12: "help",
    14: "category",
    NS_SPECIAL: "special",
}
_NSTAB_LABEL = {
    0: "Article",
    2: "User page",
    4: "Project page",
    6: "File",
    8: "Message",
    10: "Template",
    12: "Help",
    14: "Category",
}


@dataclass(frozen=True)
class Tab:
    id: str
    label: str
    href: str
    selected: bool = False
    new: bool = False  # the page it leads to does not exist (a red tab)


def _tabs(
    site: Site,
    title: Title,
    action: str,
    exists: set[tuple[int, str]],
    viewer: Viewer,
    watched: bool,
    editable: bool,
    adding_topic: bool = False,
) -> tuple[list[Tab], list[Tab]]:
    """(namespace tabs, view tabs) of a page, as Vector's `#p-associated-pages` and `#p-views`."""
    if title.ns == NS_SPECIAL:
        return [Tab("ca-nstab-special", "Special page", links.page_href(site, title), True)], []
    subject = Title(title.ns & ~1, title.dbkey)
    talk = Title(title.ns | 1, title.dbkey)
    on_talk = title.ns % 2 == 1
    key = _NSTAB.get(subject.ns, "main")
    label = _NSTAB_LABEL.get(subject.ns, "Page")
    subject_new = (subject.ns, subject.dbkey) not in exists
    talk_new = (talk.ns, talk.dbkey) not in exists
    associated = [
        Tab(
            f"ca-nstab-{key}",
            label,
            links.index_href(site, subject, action="edit", redlink="1")
            if subject_new
            else links.page_href(site, subject),
            not on_talk,
            subject_new,
        ),
        Tab(
            "ca-talk",
            "Discussion",
            links.index_href(site, talk, action="edit", redlink="1")
            if talk_new
            else links.page_href(site, talk),
            on_talk,
            talk_new,
        ),
    ]
    here_new = (title.ns, title.dbkey) not in exists
    views = [Tab("ca-view", "Read", links.page_href(site, title), action == "view")]
    if editable:
        edit_label = "Create" if here_new else "Edit"
        views.append(
            Tab(
                "ca-edit",
                edit_label,
                links.index_href(site, title, action="edit"),
                action == "edit" and not adding_topic,
            )
        )
        if on_talk:
            # SkinTemplate's "Add topic" on talk pages: a new section at the end.
            views.append(
                Tab(
                    "ca-addsection",
                    "Add topic",
                    links.index_href(site, title, action="edit", section="new"),
                    adding_topic,
                )
            )
    elif not here_new:
        # SkinTemplate: who may not edit a page (rights, protection) may read its source.
        views.append(
            Tab(
                "ca-viewsource",
                "View source",
                links.index_href(site, title, action="edit"),
                action == "edit",
            )
        )
    views.append(
        Tab(
            "ca-history",
            "View history",
            links.index_href(site, title, action="history"),
            action == "history",
        )
    )
    if viewer.signed_in:
        if watched:
            views.append(
                Tab("ca-unwatch", "Unwatch", links.index_href(site, title, action="unwatch"))
            )
        else:
            views.append(Tab("ca-watch", "Watch", links.index_href(site, title, action="watch")))
    return associated, views


async def render_page(
    request: Request,
    site: Site,
    db: Database,
    template: str,
    context: Mapping[str, Any] | None = None,
    *,
    title: Title | None = None,
    heading: str | None = None,
    action: str = "view",
    status: int = 200,
    headers: Mapping[str, str] | None = None,
) -> HTMLResponse:
    """Draw `template` (under `web/templates/`, extending `base.html`) inside the skin.

    `title` is the page the view is about (its tabs; `Special:X` for special pages); `heading`
    the `#firstHeading` text (default: the title's prefixed text); `action` the selected tab
    (`view`, `edit`, `history`). The template also sees `site`, `viewer` (with `csrf_token` for
    its forms), `links`, `page_title` and `Markup`-wrapped HTML it is given.
    """
    viewer = await current_viewer(request, db)
    shown = site.parser.prefixed_text(title.ns, title.dbkey) if title is not None else ""
    associated: list[Tab] = []
    views: list[Tab] = []
    more: list[PageAction] = []
    if title is not None:
        exists: set[tuple[int, str]] = set()
        watched = editable = False
        if title.ns != NS_SPECIAL:
            pair = {(title.ns & ~1, title.dbkey), (title.ns | 1, title.dbkey)}
            exists = await db.read(reading.existing, pair)
            if viewer.signed_in:
                watched = await db.read(is_watched, viewer.account.id, title)
            here = (title.ns, title.dbkey) in exists
            editable = await may_edit(request, site, db, viewer, title, here)
            more = await page_actions(site, db, viewer, title, here, action)
        adding_topic = action == "edit" and request.query_params.get("section") == "new"
        associated, views = _tabs(
            site, title, action, exists, viewer, watched, editable, adding_topic
        )
        chat_tab = await _chat_tab(db, viewer, site, title)
        if chat_tab is not None:
            associated.append(chat_tab)
    html = TEMPLATES.get_template(template).render(
        site=site,
        viewer=viewer,
        links=links,
        assets=ASSETS,
        generator=GENERATOR,
        page_title=title,
        heading=heading if heading is not None else shown,
        document_title=(heading if heading is not None else shown) or site.sitename,
        associated_tabs=associated,
        view_tabs=views,
        chat_home=neighbours.chat_home(db),
        action_menu=more,
        **(context or {}),
    )
    response = HTMLResponse(
        html, status_code=status, headers={**WIKI_PAGE_HEADERS, **(headers or {})}
    )
    remember_anon_token(response, site, viewer)
    return response


async def _chat_tab(db: Database, viewer: Viewer, site: Site, title: Title) -> Tab | None:
    """The "Chat" tab beside "Discussion": the subject page's chat topic, with its message count
    for a reader who may read the topic's stream (none when the chat runs elsewhere)."""
    topic_of = neighbours.chat_topic(db)
    if topic_of is None or title.ns < 0:
        return None
    subject = Title(title.ns & ~1, title.dbkey)
    reader = viewer.account.id if viewer.account.registered else None
    found = await topic_of(reader, site.parser.prefixed_text(subject.ns, subject.dbkey), subject)
    if found is None:
        return None
    label = "Chat" if found.count is None else f"Chat ({found.count})"
    return Tab("ca-chat", label, found.href)


# Wikitext may style its elements (`style` attributes, a thumbnail frame's width), as MediaWiki
# allows; the renderer's sanitizer drops what could run or fetch (expression, url(), imports), so
# the pages allow style attributes, still no inline <style> element or script.
WIKI_PAGE_HEADERS = {
    **PAGE_HEADERS,
    "Content-Security-Policy": PAGE_HEADERS["Content-Security-Policy"]
    + "; style-src-attr 'unsafe-inline'",
}


def trusted(html: str) -> Markup:
    """HTML that our renderer or a template built (every value in it already escaped)."""
    return Markup(html)

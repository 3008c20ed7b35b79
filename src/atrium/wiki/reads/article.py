"""The page view: the page to show for a title (following one redirect), with its rendered body.

The body is the parser output of the page's current revision, kept between requests by the parser
cache of `reads.parsing` under the page row's id, latest revision and render version; a view of a
page that nothing has changed reads one page row and no text. What depends on the viewer (edit
links, tabs, personal tools, tokens) is added around the body by the caller, never kept with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Prepared
from atrium.wiki import schema
from atrium.wiki.reads import parsing
from atrium.wiki.reads.page_view import current_text
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.wikitext.html.page import Rendered
from atrium.wiki.wikitext.links import redirect_target

_PAGE = Prepared(
    sa.select(
        schema.page.c.page_id,
        schema.page.c.page_latest,
        schema.page.c.page_is_redirect,
        schema.page.c.page_render_version,
    ).where(
        schema.page.c.page_namespace == sa.bindparam("ns"),
        schema.page.c.page_title == sa.bindparam("title"),
    )
)


@dataclass
class PageView:
    title: Title
    page_id: int | None  # None: the page does not exist
    rev_id: int = 0
    rendered: Rendered | None = None
    redirected_from: Title | None = None
    redirect_to: Title | None = None  # set when shown without following (redirect=no)
    hidden_categories: set[str] = field(default_factory=set)
    existing_categories: set[str] = field(default_factory=set)

    @property
    def exists(self) -> bool:
        return self.page_id is not None


def _page(conn: Conn, title: Title) -> Any:
    return conn.one(_PAGE, {"ns": title.ns, "title": title.dbkey})


def _current(row: Any) -> parsing.CurrentRevision:
    return parsing.CurrentRevision(
        int(row["page_id"]), int(row["page_latest"]), int(row["page_render_version"])
    )


class _Uncached(Exception):
    """The body is not in the parser cache, and the caller may not render it here."""


def _shown(conn: Conn, site: Site, title: Title, row: Any, render: bool = True) -> PageView:
    """The page of this row with its body, from the parser cache when it is there."""
    current = _current(row)
    parsed = parsing.cached_current(conn, title, current)
    if parsed is None:
        if not render:
            raise _Uncached
        rev = parsing.revision(conn, current.rev_id)
        if rev is None:
            return PageView(title, None)
        # The per-revision magic words, as MediaWiki's page view parses with the revision.
        variables = {
            "REVISIONID": str(rev.rev_id),
            "REVISIONUSER": rev.public_user,
            "REVISIONTIMESTAMP": rev.timestamp,
        }
        parsed = parsing.parse(conn, site, title, rev.text, variables, current, rev.model)
    return PageView(
        title,
        current.page_id,
        current.rev_id,
        parsed.rendered,
        hidden_categories=parsed.hidden_categories,
        existing_categories=parsed.existing_categories,
    )


def view_page(
    conn: Conn, site: Site, title: Title, follow: bool = True, render: bool = True
) -> PageView:
    """The page to show for `title`, following one redirect unless `follow` is false."""
    row = _page(conn, title)
    if row is None:
        return PageView(title, None)
    if row["page_is_redirect"]:
        found = current_text(conn, title.ns, title.dbkey)
        target = redirect_target(found[2], site.parser) if found is not None else None
        if target is not None and not target.interwiki:
            if follow:
                followed = _page(conn, target)
                if followed is not None:
                    view = _shown(conn, site, target, followed, render)
                    view.redirected_from = title
                    return view
            view = _shown(conn, site, title, row, render)
            view.redirect_to = target
            return view
    return _shown(conn, site, title, row, render)


def cached_view(conn: Conn, site: Site, title: Title, follow: bool = True) -> PageView | None:
    """`view_page` when its body is in the parser cache (nothing to render: cheap enough for
    the event loop's thread); else None."""
    try:
        return view_page(conn, site, title, follow, render=False)
    except _Uncached:
        return None


def revision_html(
    conn: Conn, site: Site, title: Title, rev_id: int, text: str, model: str = "wikitext"
) -> str:
    """A revision's rendering as a diff page shows it below the diff: from the parser cache when
    it is the page's current revision (as MediaWiki's DifferenceEngine does), else rendered."""
    row = _page(conn, title)
    if row is not None and int(row["page_latest"]) == rev_id:
        rendered = _shown(conn, site, title, row).rendered
        if rendered is not None:
            return rendered.html
    return parsing.render_model(conn, site, title, text, model).html

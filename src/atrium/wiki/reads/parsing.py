"""Parsing wikitext for `action=parse` and `action=expandtemplates`: the rendering with what
MediaWiki's ParserOutput carries beside it (links, templates, categories with their sort keys and
flags, external links, language links, page properties), all read in one transaction.

Parsed output is kept between requests, as MediaWiki's parser cache keeps it. The current
revision of a page (what a page view shows) is keyed by the page, the revision and the page's
`page_render_version`, which every change the rendering depends on moves
(`changes.invalidation`): that key is right on both databases and in every process. Any other
text is keyed by the title, the text, the per-revision variables and the wiki's state (the newest
revision and log entry ids). Every change that can alter a rendering writes a revision or a log
entry, so a new state means new entries. Only SQLite's serialised commits make the newest ids grow
in commit order; on PostgreSQL a transaction with a smaller id may commit later, so such texts
are not kept there. Texts that read the clock are never kept.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.core.bounded_cache import BoundedCache
from atrium.core.db import Conn, Prepared
from atrium.wiki import content_models, schema
from atrium.wiki.messages.store import MESSAGES
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.reads.comments import format_comments
from atrium.wiki.reads.page_view import category_flags, current_text, link_states, render_text
from atrium.wiki.reads.tracking import BROKEN_FILE, add_tracking_categories
from atrium.wiki.reads.visibility import DELETED_USER
from atrium.wiki.site import Site
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import Title
from atrium.wiki.wikitext.expand import Expander
from atrium.wiki.wikitext.html.page import REDIRECT_LINE, Rendered
from atrium.wiki.wikitext.links import Links, extract_links, redirect_target


@dataclass
class Timing:
    """When and how long the text was parsed (the limit report's times and cache report)."""

    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    parsed_at: str = ""  # YYYYMMDDHHMMSS


@dataclass
class Parsed:
    rendered: Rendered
    links: Links
    existing: set[tuple[int, str]] = field(default_factory=set)
    redirects: set[tuple[int, str]] = field(default_factory=set)
    existing_categories: set[str] = field(default_factory=set)
    hidden_categories: set[str] = field(default_factory=set)
    timing: Timing = field(default_factory=Timing)


@dataclass
class RevisionToParse:
    rev_id: int
    page_id: int
    title: Title
    text: str
    user: str
    timestamp: str
    deleted: int
    model: str = content_models.WIKITEXT

    @property
    def public_user(self) -> str:
        """The author as the parser names it (`{{REVISIONUSER}}`, RevisionRecord::FOR_PUBLIC):
        empty when hidden."""
        return "" if self.deleted & DELETED_USER else self.user


def _loader(conn: Conn) -> Any:
    def load(ns: int, dbkey: str) -> str | None:
        found = current_text(conn, ns, dbkey)
        return found[2] if found else None

    return load


def expand(
    conn: Conn,
    site: Site,
    title: Title,
    text: str,
    variables: Mapping[str, str] | None = None,
) -> tuple[str, list[tuple[int, str]]]:
    """The text with its templates, parser functions and variables expanded, and the templates."""
    expander = Expander(site.parser, _loader(conn), (title.ns, title.dbkey), variables=variables)
    return expander.expand(text), expander.used


CACHE_KEY = "wiki.parsed"
CACHE_BYTES = 32 * 1024 * 1024
_STATE = Prepared(
    sa.select(
        sa.select(sa.func.max(schema.revision.c.rev_id)).scalar_subquery(),
        sa.select(sa.func.max(schema.logging.c.log_id)).scalar_subquery(),
    )
)


@dataclass(frozen=True)
class CurrentRevision:
    """A page's current revision as the page row names it: what its cached rendering is keyed
    by."""

    page_id: int
    rev_id: int
    render_version: int


def _entry_size(key: tuple[Any, ...], value: Parsed) -> int:
    """Bytes of an entry, roughly: the key's text and the HTML dominate."""
    text = sum(len(part) for part in key if isinstance(part, str))
    return 2 * (text + len(value.rendered.html) + len(value.rendered.expanded)) + 4096


def _cache(conn: Conn) -> BoundedCache[tuple[Any, ...], Parsed]:
    cache: BoundedCache[tuple[Any, ...], Parsed] | None = conn.caches.get(CACHE_KEY)
    if cache is None:
        cache = conn.caches.setdefault(CACHE_KEY, BoundedCache(CACHE_BYTES, _entry_size))
    return cache


def _current_key(title: Title, current: CurrentRevision) -> tuple[Any, ...]:
    # The title too: a move keeps the page id, and `{{PAGENAME}}` changes with it.
    return (
        "current",
        current.page_id,
        current.rev_id,
        current.render_version,
        title.ns,
        title.dbkey,
    )


def cached_current(conn: Conn, title: Title, current: CurrentRevision) -> Parsed | None:
    """The kept rendering of a page's current revision, if nothing it shows has changed since."""
    return _cache(conn).get(_current_key(title, current))


def _state(conn: Conn) -> tuple[int, int]:
    row = conn.tuples(_STATE)[0]
    return int(row[0] or 0), int(row[1] or 0)


def parse(
    conn: Conn,
    site: Site,
    title: Title,
    text: str,
    variables: Mapping[str, str] | None = None,
    current: CurrentRevision | None = None,
    model: str = content_models.WIKITEXT,
) -> Parsed:
    """The parsed text, from the cache when nothing it shows has changed since it was parsed.
    `current`: the text is that page's current revision (read in this transaction after the
    page row that names it), with its revision's variables; `model`: the text's content model."""
    cache, key = _slot(conn, title, text, variables, current, model)
    if cache is not None:
        found = cache.get(key)
        if found is not None:
            return found
    cpu, wall = time.thread_time(), time.perf_counter()
    parsed = _parse(conn, site, title, text, variables, model)
    parsed.timing = Timing(time.thread_time() - cpu, time.perf_counter() - wall, now14())
    if cache is not None and not parsed.rendered.volatile:
        cache.put(key, parsed)
    return parsed


def cached_parse(
    conn: Conn,
    site: Site,
    title: Title,
    text: str,
    variables: Mapping[str, str] | None = None,
    current: CurrentRevision | None = None,
    model: str = content_models.WIKITEXT,
) -> Parsed | None:
    """`parse`'s answer when it is in the cache, without rendering; else None."""
    cache, key = _slot(conn, title, text, variables, current, model)
    return cache.get(key) if cache is not None else None


def _slot(
    conn: Conn,
    title: Title,
    text: str,
    variables: Mapping[str, str] | None,
    current: CurrentRevision | None,
    model: str = content_models.WIKITEXT,
) -> tuple[BoundedCache[tuple[Any, ...], Parsed] | None, tuple[Any, ...]]:
    """The cache that may hold this parse, and its key there (no cache: None)."""
    if current is not None:
        # A revision has one model: the revision's key is enough (and `cached_current` finds it).
        return _cache(conn), _current_key(title, current)
    if conn.is_sqlite:
        variables_key = tuple(sorted((variables or {}).items()))
        key = (title.ns, title.dbkey, text, variables_key, _state(conn), model)
        return _cache(conn), key
    return None, ()


def _parse(
    conn: Conn,
    site: Site,
    title: Title,
    text: str,
    variables: Mapping[str, str] | None,
    model: str = content_models.WIKITEXT,
) -> Parsed:
    if model not in content_models.PARSED:
        # Shown as what it is; nothing in it links anywhere.
        return Parsed(render_model(conn, site, title, text, model), Links())
    rendered = render_text(conn, site, title, text, variables)
    if REDIRECT_LINE.match(text) is None:
        # The renderer expanded this very text: its expansion is the one to read links from.
        expanded, defaultsort = rendered.expanded, rendered.defaultsort
        exceeded = rendered.stats.exceeded
    else:
        expander = Expander(
            site.parser, _loader(conn), (title.ns, title.dbkey), variables=variables
        )
        expanded, defaultsort = expander.expand(text), expander.defaultsort
        exceeded = expander.stats.exceeded
    links = extract_links(expanded, site.parser, site.languages)
    if defaultsort is not None:
        links.set_defaultsort(defaultsort)
    for name in add_tracking_categories(conn, title, links, exceeded):
        # Where MediaWiki's parser adds them: the hidden-category mark before any link, the
        # broken-file category where the first missing file is embedded.
        at = rendered.broken_file_at if name == BROKEN_FILE else 0
        rendered.categories.insert(len(rendered.categories) if at is None else at, name)
    targets = set(links.pages) | set(rendered.templates)
    existing, redirects = link_states(conn, targets)
    found, hidden = category_flags(conn, rendered.categories)
    if model != content_models.WIKITEXT:
        # CSS and JavaScript: parsed for their links and categories, shown as source.
        rendered.html = content_models.code_html(model, text)
        links.redirect = None
    return Parsed(rendered, links, existing, redirects, found, hidden)


def render_model(
    conn: Conn,
    site: Site,
    title: Title,
    text: str,
    model: str,
    variables: Mapping[str, str] | None = None,
) -> Rendered:
    """The rendering of `text` as its content model shows it: wikitext rendered, CSS and
    JavaScript as source, JSON as tables, plain text escaped."""
    if model == content_models.WIKITEXT:
        return render_text(conn, site, title, text, variables)
    if model in content_models.PARSED:
        return Rendered(content_models.code_html(model, text))
    if model == content_models.JSON:
        texts = [
            MESSAGES[key]
            for key in (
                "content-json-empty-object",
                "content-json-empty-array",
                "invalid-json-data",
            )
        ]
        return Rendered(content_models.json_html(text, *texts))
    return Rendered(content_models.text_html(text))


def model_of(conn: Conn, title: Title) -> str:
    """The content model of a page, or the one a page of this title would be created in."""
    rows = page_reads.pages_by_titles(conn, [(title.ns, title.dbkey)])
    if rows:
        return str(rows[0]["page_content_model"])
    return content_models.default_model(title.ns, title.text)


def page_id_of(conn: Conn, title: Title) -> int:
    rows = page_reads.pages_by_titles(conn, [(title.ns, title.dbkey)])
    return int(rows[0]["page_id"]) if rows else 0


def revision(conn: Conn, rev_id: int) -> RevisionToParse | None:
    rows = page_reads.revisions_by_ids(conn, [rev_id], with_text=True)
    if not rows:
        return None
    row = rows[0]
    page = page_reads.pages_by_ids(conn, [int(row["rev_page"])])
    if not page:
        return None
    return RevisionToParse(
        int(row["rev_id"]),
        int(row["rev_page"]),
        Title(int(page[0]["page_namespace"]), str(page[0]["page_title"])),
        str(row["old_text"]),
        str(row["actor_name"]),
        str(row["rev_timestamp"]),
        int(row["rev_deleted"]),
        str(row["rev_content_model"]),
    )


def current_revision_id(conn: Conn, title: Title) -> int | None:
    found = current_text(conn, title.ns, title.dbkey)
    return found[1] if found else None


def format_comment(conn: Conn, site: Site, comment: str, page: Title | None = None) -> str:
    """Linker::formatComment for an edit summary (see `reads.comments`)."""
    return format_comments(conn, site, [(comment, page)])[0]


@dataclass(frozen=True)
class Redirect:
    """A redirect `action=parse` followed: the page asked for, where it points, the fragment."""

    source: Title
    target: Title
    fragment: str


@dataclass(frozen=True)
class PageSource:
    """What a `page` or `pageid` parse reads: the page's current revision, or that of its
    redirect's target when redirects are followed; no revision when the page is missing."""

    revision: RevisionToParse | None
    redirect: Redirect | None


def page_source(conn: Conn, site: Site, title: Title, follow_redirects: bool) -> PageSource:
    """The current revision to parse for a page, following one redirect when asked, all read in
    this transaction."""
    redirect: Redirect | None = None
    current = current_revision_id(conn, title)
    if current is not None and follow_redirects:
        first = revision(conn, current)
        assert first is not None
        target = redirect_target(first.text, site.parser)
        if target is not None and not target.interwiki and target.dbkey:
            redirect = Redirect(title, Title(target.ns, target.dbkey), target.fragment)
            current = current_revision_id(conn, redirect.target)
    if current is None:
        return PageSource(None, redirect)
    found = revision(conn, current)
    assert found is not None
    return PageSource(found, redirect)

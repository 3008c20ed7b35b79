"""Parsing wikitext for `action=parse` and `action=expandtemplates`: the rendering with what
MediaWiki's ParserOutput carries beside it (links, templates, categories with their sort keys and
flags, external links, language links, page properties), all read in one transaction."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from atrium.core.db import Conn
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.reads.page_view import category_flags, current_text, link_states, render_text
from atrium.wiki.reads.visibility import DELETED_USER
from atrium.wiki.site import Site
from atrium.wiki.titles import InvalidTitle, Title
from atrium.wiki.wikitext.expand import Expander
from atrium.wiki.wikitext.html.page import Rendered
from atrium.wiki.wikitext.links import Links, extract_links

_COMMENT_LINK = re.compile(r"\[\[:?([^\[\]|]+)(?:\|([^\[\]]*))?\]\]")


@dataclass
class Parsed:
    rendered: Rendered
    links: Links
    existing: set[tuple[int, str]] = field(default_factory=set)
    redirects: set[tuple[int, str]] = field(default_factory=set)
    existing_categories: set[str] = field(default_factory=set)
    hidden_categories: set[str] = field(default_factory=set)


@dataclass
class RevisionToParse:
    rev_id: int
    page_id: int
    title: Title
    text: str
    user: str
    timestamp: str
    deleted: int

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


def parse(
    conn: Conn,
    site: Site,
    title: Title,
    text: str,
    variables: Mapping[str, str] | None = None,
) -> Parsed:
    rendered = render_text(conn, site, title, text, variables)
    expanded, _used = expand(conn, site, title, text, variables)
    links = extract_links(expanded, site.parser, site.languages)
    targets = set(links.pages) | set(rendered.templates)
    existing, redirects = link_states(conn, targets)
    found, hidden = category_flags(conn, rendered.categories)
    return Parsed(rendered, links, existing, redirects, found, hidden)


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
    )


def current_revision_id(conn: Conn, title: Title) -> int | None:
    found = current_text(conn, title.ns, title.dbkey)
    return found[1] if found else None


def format_comment(conn: Conn, site: Site, comment: str) -> str:
    """Linker::formatComment for an edit summary: escaped text, `[[links]]` as links (red
    when the page is missing)."""
    escaped = html.escape(comment, quote=False)
    wanted: dict[str, Title] = {}
    for match in _COMMENT_LINK.finditer(escaped):
        try:
            title = site.parser.parse(html.unescape(match.group(1)).strip())
        except InvalidTitle:
            continue
        if title.dbkey and not title.interwiki:
            wanted[match.group(1)] = title
    existing, _ = link_states(conn, {(t.ns, t.dbkey) for t in wanted.values()})

    def link(match: re.Match[str]) -> str:
        title = wanted.get(match.group(1))
        if title is None:
            return match.group(0)
        label = match.group(2) if match.group(2) is not None else match.group(1)
        name = html.escape(site.parser.prefixed_text(title.ns, title.dbkey))
        key = site.parser.prefixed_dbkey(title.ns, title.dbkey)
        if (title.ns, title.dbkey) in existing:
            return f'<a href="/wiki/{html.escape(key)}" title="{name}">{label}</a>'
        href = f"/w/index.php?title={html.escape(key)}&amp;action=edit&amp;redlink=1"
        return f'<a href="{href}" class="new" title="{name} (page does not exist)">{label}</a>'

    return _COMMENT_LINK.sub(link, escaped)

"""Importing pages with their full history (from an XML dump): many pages per transaction.

As MediaWiki's importer (`maintenance/importDump.php`, `WikiImporter`):

- titles are mapped with the dump's own namespaces (`NamespaceAwareForeignTitleFactory` then
  `NaiveImportTitleFactory`): a namespace id below 100 that exists here keeps its id; another
  namespace whose name is a local namespace name or alias goes there; anything else lands in the
  main namespace under its full foreign title ("Portal:Foo" stays "Portal:Foo", in namespace 0);
- contributors are named as `ExternalUserNames::applyPrefix` names them: an IP address or an
  invalid user name is kept, a name with a local account is kept (unless `assign_known_users` is
  off, importDump's `--no-local-users`), any other becomes `<prefix>>name`; the prefix is
  importDump's `--username-prefix`, `imported` by default. Such names get an actor without a
  user, as in MediaWiki;
- revisions not newer than a page's current revision are skipped, so importing the same dump
  twice changes nothing.

Link tables are refreshed once per page, from the text of its newest imported revision. MediaWiki
runs the secondary-data updates for each imported revision that becomes the page's latest, in
timestamp order, so the tables end as those of the newest one: the same end state.

Speed: a batch of pages costs a fixed number of statements whatever its size — the existing pages
and actors are read with one query each, ids for new rows are reserved up front (a PostgreSQL
sequence hands out a block; on SQLite the single writer holds the write lock, so `max(id)+1…` is
free), and pages, comments, texts, revisions, page updates and link rows go in with one
`executemany` each.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import content_models, schema, search
from atrium.wiki.accounts.usernames import is_ip
from atrium.wiki.changes import invalidation
from atrium.wiki.changes.pages import (
    link_rows,
    sha1_base36,
    write_links,
)
from atrium.wiki.site import Site
from atrium.wiki.titles import InvalidTitle, Title
from atrium.wiki.wikitext.links import Links, extract_links

DEFAULT_USERNAME_PREFIX = "imported"


@dataclass
class ImportedRevision:
    timestamp: str
    contributor: str
    contributor_id: int | None
    comment: str
    minor: bool
    text: str
    model: str = "wikitext"
    format: str = "text/x-wiki"
    # A named contributor (`<username>`), as opposed to an IP editor (`<ip>`).
    named: bool = True


@dataclass
class ImportedPage:
    title: str
    ns: int | None
    revisions: list[ImportedRevision] = field(default_factory=list)


@dataclass
class ImportResult:
    pages: int = 0
    revisions: int = 0
    skipped: list[str] = field(default_factory=list)


@dataclass
class ImportOptions:
    """How names are mapped: the dump's namespaces and importDump's user-name options."""

    foreign_namespaces: dict[int, str] | None = None  # from <siteinfo>, None if absent
    username_prefix: str = DEFAULT_USERNAME_PREFIX
    assign_known_users: bool = True
    actors: dict[str, int] = field(default_factory=dict)  # name -> actor id, across batches


def _usable_name(site: Site, name: str) -> bool:
    """MediaWiki's `UserNameUtils::getCanonical(…, RIGOR_USABLE) !== false`, in substance."""
    if not name or is_ip(name) or any(c in name for c in "#<>[]|{}/@:\n"):
        return False
    return site.parser.parse_or_none(name) is not None


def foreign_title(
    text: str, ns: int | None, foreign: dict[int, str]
) -> tuple[int | None, str, str]:
    """`NamespaceAwareForeignTitleFactory`: (namespace id, namespace name, text) of a dump title."""
    pieces = text.split(":", 1)
    if ns is None:
        flipped = {name.replace("_", " ").lower(): key for key, name in foreign.items()}
        key = pieces[0].replace("_", " ").lower()
        if len(pieces) == 2 and key in flipped:
            return flipped[key], pieces[0], pieces[1]
        return 0, "", text
    includes_ns = ns != 0 and len(pieces) == 2
    fallback = pieces[0] if includes_ns else f"Ns{ns}"
    ns_name = foreign.get(ns, fallback)
    return ns, ns_name, pieces[1] if includes_ns else text


def local_title(site: Site, page: ImportedPage, foreign: dict[int, str] | None) -> Title | None:
    """`NaiveImportTitleFactory`: where a dump page lands here; None for a title that cannot."""
    parser = site.parser
    if foreign is None:
        # No <siteinfo>: MediaWiki's NaiveForeignTitleFactory, i.e. the title read as a local one.
        parsed = parser.parse_or_none(page.title)
    else:
        ns, ns_name, text = foreign_title(page.title, page.ns, foreign)
        if ns is not None and 0 <= ns < 100 and ns in site.namespaces.by_id:
            parsed = _in_namespace(site, ns, text)
        else:
            target = site.namespaces.lookup(ns_name) if ns_name else 0
            if target is not None:
                parsed = _in_namespace(site, target, text)
            else:
                full = f"{ns_name}:{text}" if ns_name else text
                parsed = _in_namespace(site, 0, full)
    if parsed is None or parsed.ns < 0 or parsed.interwiki or not parsed.dbkey:
        return None
    return Title(parsed.ns, parsed.dbkey)


def _in_namespace(site: Site, ns: int, text: str) -> Title | None:
    """`Title::makeTitleSafe(ns, text)`: the text is never read as a namespace prefix."""
    try:
        parsed = site.parser.parse(":" + text)
    except InvalidTitle:
        return None
    if parsed.interwiki or parsed.fragment:
        return None
    case = site.namespaces.by_id[ns].case
    dbkey = parsed.dbkey
    if case != "first-letter" and text:
        dbkey = text.replace(" ", "_").strip("_")
    return Title(ns, dbkey)


def contributor_name(
    site: Site, rev: ImportedRevision, options: ImportOptions, local_users: set[str]
) -> str:
    """`ExternalUserNames::applyPrefix` for a revision's contributor."""
    name = rev.contributor
    if not rev.named or not _usable_name(site, name) or ">" in name:
        return name
    if options.assign_known_users and name in local_users:
        return name
    return f"{options.username_prefix}>{name}"[:255]


def _reserve_ids(conn: Conn, table: sa.Table, column: str, count: int) -> list[int]:
    if count == 0:
        return []
    if conn.is_sqlite:
        start = int(conn.scalar(sa.select(sa.func.coalesce(sa.func.max(table.c[column]), 0))))
        return list(range(start + 1, start + 1 + count))
    sequence = sa.func.pg_get_serial_sequence(table.name, column)
    rows = conn.scalars(
        sa.select(sa.func.nextval(sequence)).select_from(
            sa.func.generate_series(1, count).alias("n")
        )
    )
    return [int(r) for r in rows]


def _chunks(values: Sequence[Any], size: int = 500) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _existing_pages(conn: Conn, titles: Iterable[Title]) -> dict[tuple[int, str], Any]:
    wanted = list({(t.ns, t.dbkey) for t in titles})
    found: dict[tuple[int, str], Any] = {}
    for chunk in _chunks(wanted):
        rows = conn.all(
            sa.select(
                schema.page.c.page_id,
                schema.page.c.page_namespace,
                schema.page.c.page_title,
                schema.page.c.page_latest,
                schema.revision.c.rev_timestamp,
            )
            .select_from(
                schema.page.outerjoin(
                    schema.revision, schema.revision.c.rev_id == schema.page.c.page_latest
                )
            )
            .where(schema.page.c.page_title.in_(sorted({t for _ns, t in chunk})))
        )
        keys = set(chunk)
        for row in rows:
            key = (int(row["page_namespace"]), str(row["page_title"]))
            if key in keys:
                found[key] = row
    return found


def _local_users(conn: Conn, names: set[str]) -> set[str]:
    found: set[str] = set()
    ordered = sorted(names)
    for chunk in _chunks(ordered):
        found.update(
            str(n)
            for n in conn.scalars(
                sa.select(schema.user.c.user_name).where(schema.user.c.user_name.in_(chunk))
            )
        )
    return found


def _actor_ids(conn: Conn, names: set[str], cache: dict[str, int]) -> None:
    """Fill `cache` with the actor of every name, creating the missing actors in one statement."""
    wanted = sorted(n for n in names if n not in cache)
    if not wanted:
        return
    for chunk in _chunks(wanted):
        rows = conn.all(
            sa.select(schema.actor.c.actor_id, schema.actor.c.actor_name).where(
                schema.actor.c.actor_name.in_(chunk)
            )
        )
        cache.update({str(r["actor_name"]): int(r["actor_id"]) for r in rows})
    missing = [n for n in wanted if n not in cache]
    if not missing:
        return
    users: dict[str, int] = {}
    for chunk in _chunks(missing):
        users.update(
            {
                str(r["user_name"]): int(r["user_id"])
                for r in conn.all(
                    sa.select(schema.user.c.user_id, schema.user.c.user_name).where(
                        schema.user.c.user_name.in_(chunk)
                    )
                )
            }
        )
    ids = _reserve_ids(conn, schema.actor, "actor_id", len(missing))
    conn.executemany(
        sa.insert(schema.actor),
        [
            {"actor_id": actor_id, "actor_user": users.get(name), "actor_name": name}
            for actor_id, name in zip(ids, missing, strict=True)
        ],
    )
    cache.update(zip(missing, ids, strict=True))


_IMPORTED_LINK_TABLES = tuple(
    table for table, _ in schema.LINK_TABLES if table not in (schema.iwlinks, schema.page_props)
)


@dataclass
class _LinkRows:
    """The link-table rows of a batch of imported pages, written together. The importer records
    neither interwiki links nor page properties, and no links to missing templates."""

    rows: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {table.name: [] for table in _IMPORTED_LINK_TABLES}
    )

    def add(self, page_id: int, title: Title, links: Links, ts: str) -> None:
        built = link_rows(page_id, title, links, ts, set(links.pages))
        for name, rows in self.rows.items():
            rows.extend(built[name])

    def write(self, conn: Conn) -> None:
        for table in _IMPORTED_LINK_TABLES:
            conn.executemany(sa.insert(table), self.rows[table.name])


@dataclass
class _Planned:
    title: Title
    page_id: int
    created: bool
    parent: int
    added: list[ImportedRevision]


def import_pages(
    conn: Conn, site: Site, pages: list[ImportedPage], options: ImportOptions | None = None
) -> ImportResult:
    """Import a batch of pages (each with its revisions) in the caller's transaction."""
    options = options or ImportOptions()
    result = ImportResult()
    titled: list[tuple[Title, ImportedPage]] = []
    for imported in pages:
        title = local_title(site, imported, options.foreign_namespaces)
        if title is None:
            result.skipped.append(imported.title)
            continue
        titled.append((title, imported))
    existing = _existing_pages(conn, (t for t, _ in titled))

    # Pages: new ones get reserved ids; a title seen twice in the batch is planned once.
    planned: dict[tuple[int, str], _Planned] = {}
    for title, imported in titled:
        key = (title.ns, title.dbkey)
        in_order = sorted(imported.revisions, key=lambda r: r.timestamp)
        plan = planned.get(key)
        if plan is None:
            row = existing.get(key)
            latest_ts = str(row["rev_timestamp"] or "") if row is not None else ""
            plan = _Planned(
                title,
                int(row["page_id"]) if row is not None else 0,
                row is None,
                int(row["page_latest"]) if row is not None else 0,
                [],
            )
            planned[key] = plan
        else:
            latest_ts = plan.added[-1].timestamp if plan.added else ""
        plan.added.extend(r for r in in_order if r.timestamp > latest_ts)
    plans = [p for p in planned.values() if p.added]
    if not plans:
        return result

    named = {r.contributor for p in plans for r in p.added if r.named}
    local_users = _local_users(conn, named) if options.assign_known_users else set()
    names = {id(r): contributor_name(site, r, options, local_users) for p in plans for r in p.added}
    _actor_ids(conn, set(names.values()), options.actors)

    new_pages = [p for p in plans if p.created]
    for plan, page_id in zip(
        new_pages, _reserve_ids(conn, schema.page, "page_id", len(new_pages)), strict=True
    ):
        plan.page_id = page_id
    conn.executemany(
        sa.insert(schema.page),
        [
            {
                "page_id": p.page_id,
                "page_namespace": p.title.ns,
                "page_title": p.title.dbkey,
                "page_is_redirect": False,
                "page_is_new": True,
                "page_random": random.random(),
                "page_touched": p.added[-1].timestamp,
                "page_latest": 0,
                "page_len": 0,
                "page_content_model": p.added[-1].model,
            }
            for p in new_pages
        ],
    )

    total = sum(len(p.added) for p in plans)
    comment_ids = iter(_reserve_ids(conn, schema.comment, "comment_id", total))
    text_ids = iter(_reserve_ids(conn, schema.text, "old_id", total))
    rev_ids = iter(_reserve_ids(conn, schema.revision, "rev_id", total))
    comments: list[dict[str, Any]] = []
    texts: list[dict[str, Any]] = []
    revisions: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    links = _LinkRows()
    searched: list[tuple[int, str, str]] = []
    changed: list[tuple[Title, int, bool]] = []
    for plan in plans:
        parent = plan.parent
        for rev in plan.added:
            comment_id, text_id, rev_id = next(comment_ids), next(text_ids), next(rev_ids)
            comments.append({"comment_id": comment_id, "comment_text": rev.comment})
            texts.append({"old_id": text_id, "old_text": rev.text, "old_flags": "utf-8"})
            revisions.append(
                {
                    "rev_id": rev_id,
                    "rev_page": plan.page_id,
                    "rev_text_id": text_id,
                    "rev_comment_id": comment_id,
                    "rev_actor": options.actors[names[id(rev)]],
                    "rev_timestamp": rev.timestamp,
                    "rev_minor_edit": rev.minor,
                    "rev_deleted": 0,
                    "rev_len": len(rev.text.encode()),
                    "rev_parent_id": parent,
                    "rev_sha1": sha1_base36(rev.text),
                    "rev_content_model": rev.model,
                    "rev_content_format": rev.format,
                }
            )
            parent = rev_id
        last = plan.added[-1]
        page_links = extract_links(last.text, site.parser, site.languages)
        if last.model not in content_models.PARSED:
            page_links = Links()  # a page that is not parsed records no links
        elif last.model != content_models.WIKITEXT:
            page_links.redirect = None  # only wikitext redirects
        updates.append(
            {
                "b_page_id": plan.page_id,
                "page_latest": parent,
                "page_len": len(last.text.encode()),
                "page_touched": last.timestamp,
                "page_links_updated": last.timestamp,
                "page_is_redirect": page_links.redirect is not None,
                "page_is_new": plan.created and len(plan.added) == 1,
                "page_content_model": last.model,
            }
        )
        if plan.created:
            links.add(plan.page_id, plan.title, page_links, last.timestamp)
        else:
            write_links(conn, plan.page_id, plan.title, page_links, last.timestamp)
        searched.append((plan.page_id, plan.title.dbkey, last.text))
        changed.append((plan.title, parent, plan.created))
        result.pages += 1
        result.revisions += len(plan.added)
    conn.executemany(sa.insert(schema.comment), comments)
    conn.executemany(sa.insert(schema.text), texts)
    conn.executemany(sa.insert(schema.revision), revisions)
    conn.executemany(
        sa.update(schema.page)
        .where(schema.page.c.page_id == sa.bindparam("b_page_id"))
        .values(
            page_latest=sa.bindparam("page_latest"),
            page_len=sa.bindparam("page_len"),
            page_touched=sa.bindparam("page_touched"),
            page_links_updated=sa.bindparam("page_links_updated"),
            page_is_redirect=sa.bindparam("page_is_redirect"),
            page_is_new=sa.bindparam("page_is_new"),
            page_content_model=sa.bindparam("page_content_model"),
        ),
        updates,
    )
    links.write(conn)
    for title, last_rev, created in changed:
        invalidation.touch(conn, [title], invalidation.revision_change(last_rev), existence=created)
    # The search index follows the current text, as SearchUpdate after each imported revision.
    for page_id, dbkey, text in searched:
        search.index_page(conn, page_id, dbkey, text)
    return result

"""MediaWiki XML dumps (export-0.11), streamed both ways.

Import reads `<siteinfo>` namespaces and then one `<page>` at a time with `iterparse`, clearing
elements as it goes, so memory stays flat whatever the dump's size; pages go to
`changes.imports.import_pages` in batches (one transaction each), and the next batch is parsed
while the previous one is written. Export writes pages in id order (the whole wiki, or the pages
`action=query&export` names), in schema 0.11 or 0.10 as MediaWiki's `WikiExporter` does.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any
from xml.sax.saxutils import escape, quoteattr

import sqlalchemy as sa

from atrium.core.db import Conn, Database
from atrium.wiki import content_models
from atrium.wiki.changes.imports import (
    DEFAULT_USERNAME_PREFIX,
    ImportedPage,
    ImportedRevision,
    ImportOptions,
    ImportResult,
    import_pages,
)
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.site import GENERATOR, Site
from atrium.wiki.timestamps import from_iso, iso


@dataclass
class ImportStats:
    pages: int = 0
    revisions: int = 0
    skipped: list[str] = field(default_factory=list)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child_text(elem: ET.Element, name: str) -> str | None:
    for child in elem:
        if _local(child.tag) == name:
            return child.text or ""
    return None


def _revision(elem: ET.Element) -> ImportedRevision:
    contributor = None
    user_id = None
    named = True
    minor = False
    text = ""
    comment = ""
    timestamp = ""
    model = "wikitext"
    fmt = ""
    for child in elem:
        name = _local(child.tag)
        if name == "timestamp":
            timestamp = from_iso(child.text or "")
        elif name == "contributor":
            username = _child_text(child, "username")
            ip = _child_text(child, "ip")
            raw_id = _child_text(child, "id")
            contributor = username if username is not None else ip
            named = username is not None
            user_id = int(raw_id) if raw_id and username is not None else None
        elif name == "minor":
            minor = True
        elif name == "comment":
            comment = child.text or ""
        elif name == "text":
            text = child.text or ""
        elif name == "model":
            model = child.text or model
        elif name == "format":
            fmt = child.text or fmt
    return ImportedRevision(
        timestamp=timestamp,
        contributor=contributor or "Unknown user",
        contributor_id=user_id,
        comment=comment,
        minor=minor,
        text=text,
        model=model,
        # A revision without <format> is in its model's one format.
        format=fmt or content_models.format_of(model),
        named=named,
    )


def read_dump(source: IO[bytes]) -> Iterator[ImportedPage | dict[int, str]]:
    """Yields the namespace map first (from `<siteinfo>`), then one page at a time."""
    context = ET.iterparse(source, events=("start", "end"))
    root: ET.Element | None = None
    current: ImportedPage | None = None
    for event, elem in context:
        name = _local(elem.tag)
        if event == "start":
            if root is None:
                root = elem
            if name == "page":
                current = ImportedPage(title="", ns=None)
            continue
        if name == "namespaces":
            yield {int(ns.get("key", "0")): ns.text or "" for ns in elem}
        elif name == "revision" and current is not None:
            current.revisions.append(_revision(elem))
            elem.clear()
        elif name == "title" and current is not None:
            current.title = elem.text or ""
        elif name == "ns" and current is not None:
            current.ns = int(elem.text or "0")
        elif name == "page" and current is not None:
            yield current
            current = None
            elem.clear()
            if root is not None:
                root.clear()


def import_dump(
    db: Database,
    site: Site,
    source: IO[bytes],
    progress: Callable[[int, int], None] | None = None,
    batch_pages: int = 500,
    *,
    username_prefix: str = DEFAULT_USERNAME_PREFIX,
    assign_known_users: bool = True,
) -> ImportStats:
    """Import every page and revision of a dump; `progress(pages, revisions)` after each batch.

    `username_prefix` and `assign_known_users` are importDump.php's `--username-prefix` and
    (negated) `--no-local-users`. One batch is written while the next one is parsed.
    """
    stats = ImportStats()
    options = ImportOptions(username_prefix=username_prefix, assign_known_users=assign_known_users)
    batch: list[ImportedPage] = []
    pending: Future[ImportResult] | None = None

    def collect(done: Future[ImportResult] | None) -> None:
        if done is None:
            return
        result = done.result()
        stats.pages += result.pages
        stats.revisions += result.revisions
        stats.skipped.extend(result.skipped)
        if progress is not None:
            progress(stats.pages, stats.revisions)

    with ThreadPoolExecutor(1, thread_name_prefix="wiki-import") as writer:

        def flush() -> None:
            nonlocal pending
            if not batch:
                return
            submitted = writer.submit(db.write_sync, import_pages, site, list(batch), options)
            batch.clear()
            collect(pending)
            pending = submitted

        pending_revisions = 0
        for item in read_dump(source):
            if isinstance(item, dict):
                options.foreign_namespaces = item
                continue
            batch.append(item)
            pending_revisions += len(item.revisions)
            if len(batch) >= batch_pages or pending_revisions >= 3000:
                flush()
                pending_revisions = 0
        flush()
        collect(pending)
    return stats


def _write(out: IO[str], text: str) -> None:
    out.write(text)


SCHEMAS = ("0.10", "0.11")


def _header(out: IO[str], site: Site, schema: str) -> None:
    _write(
        out,
        f'<mediawiki xmlns="http://www.mediawiki.org/xml/export-{schema}/" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        f'xsi:schemaLocation="http://www.mediawiki.org/xml/export-{schema}/ '
        f'http://www.mediawiki.org/xml/export-{schema}.xsd" version="{schema}" xml:lang="en">\n',
    )
    _write(out, "  <siteinfo>\n")
    _write(out, f"    <sitename>{escape(site.sitename)}</sitename>\n")
    _write(out, "    <dbname>atriumwiki</dbname>\n")
    _write(out, f"    <base>{escape(site.article_url('Main_Page'))}</base>\n")
    _write(out, f"    <generator>{escape(GENERATOR)}</generator>\n")
    _write(out, "    <case>first-letter</case>\n    <namespaces>\n")
    for ns in site.namespaces.by_id.values():
        _write(
            out,
            f'      <namespace key="{ns.id}" case="{ns.case}">{escape(ns.name)}</namespace>\n'
            if ns.name
            else f'      <namespace key="{ns.id}" case="{ns.case}" />\n',
        )
    _write(out, "    </namespaces>\n  </siteinfo>\n")


Reader = Callable[..., Any]  # `Database.read_sync`, or a call on an open connection


def _write_page_opening(out: IO[str], read: Reader, site: Site, page: Any) -> None:
    parser = site.parser
    page_id = int(page["page_id"])
    _write(out, "  <page>\n")
    _write(
        out,
        f"    <title>{escape(parser.prefixed_text(page['page_namespace'], page['page_title']))}</title>\n",
    )
    _write(out, f"    <ns>{page['page_namespace']}</ns>\n    <id>{page_id}</id>\n")
    redirect = read(page_reads.redirect_targets, [page_id]) if page["page_is_redirect"] else []
    if redirect:
        target = parser.prefixed_text(
            int(redirect[0]["rd_namespace"]), str(redirect[0]["rd_title"])
        )
        _write(out, f"    <redirect title={quoteattr(target)} />\n")


def _write_page(
    out: IO[str], read: Reader, site: Site, page: Any, current_only: bool, schema: str
) -> None:
    _write_page_opening(out, read, site, page)
    for rev in read(page_reads.all_revisions, int(page["page_id"]), current_only):
        _write_revision(out, rev, schema)
    _write(out, "  </page>\n")


def export_dump(
    db: Database, site: Site, out: IO[str], current_only: bool = False, schema: str = "0.11"
) -> int:
    """Write every page (all revisions unless `current_only`) as export XML; returns pages."""
    _header(out, site, schema)
    count = 0
    after = 0
    while True:
        batch = db.read_sync(page_reads.pages_after, after, 100)
        if not batch:
            break
        for page in batch:
            after = int(page["page_id"])
            count += 1
            _write_page(out, db.read_sync, site, page, current_only, schema)
    _write(out, "</mediawiki>\n")
    return count


def _reader(conn: Conn) -> Reader:
    """A `Reader` that runs its functions on the open connection `conn`."""
    return lambda fn, *args: fn(conn, *args)


def export_pages(conn: Conn, site: Site, page_ids: Sequence[int], schema: str = "0.11") -> str:
    """`action=query&export`: the current revision of each page, in the order given."""
    rows = {
        int(row["page_id"]): row
        for row in conn.all(
            sa.select(*page_reads.PAGE_COLUMNS).where(page_reads.P.c.page_id.in_(page_ids))
        )
    }

    out = io.StringIO()
    _header(out, site, schema)
    for page_id in page_ids:
        if page_id in rows:
            _write_page(out, _reader(conn), site, rows[page_id], True, schema)
    _write(out, "</mediawiki>\n")
    return out.getvalue()


def export_header(site: Site, schema: str = "0.11") -> str:
    out = io.StringIO()
    _header(out, site, schema)
    return out.getvalue()


EXPORT_FOOTER = "</mediawiki>\n"
# Where an export's step ends: after the page's last revision (None), or after this
# (timestamp, id), where the next step goes on.
HistoryMark = tuple[str, int] | None


def export_page_step(
    conn: Conn, site: Site, page_id: int, current_only: bool, after: HistoryMark, limit: int
) -> tuple[str, HistoryMark]:
    """One step of exporting a page, for a reply written as it is read: the page's opening (on
    the first step, `after` None) and up to `limit` of its revisions after `after`, closing the
    page after its last. A page that no longer exists writes nothing."""
    out = io.StringIO()
    if after is None:
        rows = conn.all(
            sa.select(*page_reads.PAGE_COLUMNS).where(page_reads.P.c.page_id == page_id)
        )
        if not rows:
            return "", None
        _write_page_opening(out, _reader(conn), site, rows[0])
        if current_only:
            for rev in page_reads.all_revisions(conn, page_id, True):
                _write_revision(out, rev)
            _write(out, "  </page>\n")
            return out.getvalue(), None
    revisions = page_reads.revisions_after(conn, page_id, after, limit)
    for rev in revisions:
        _write_revision(out, rev)
    if len(revisions) < limit:
        _write(out, "  </page>\n")
        return out.getvalue(), None
    last = revisions[-1]
    return out.getvalue(), (str(last["rev_timestamp"]), int(last["rev_id"]))


_DELETED_TEXT, _DELETED_COMMENT, _DELETED_USER = 1, 2, 4  # RevisionRecord's bits


def _write_revision(out: IO[str], rev: Any, schema: str = "0.11") -> None:
    _write(out, "    <revision>\n")
    _write(out, f"      <id>{rev['rev_id']}</id>\n")
    if rev["rev_parent_id"]:
        _write(out, f"      <parentid>{rev['rev_parent_id']}</parentid>\n")
    _write(out, f"      <timestamp>{iso(str(rev['rev_timestamp']))}</timestamp>\n")
    # XmlDumpWriter writes the public view: a deleted user, summary or text is only marked
    # deleted.
    deleted = int(rev["rev_deleted"] or 0)
    if deleted & _DELETED_USER:
        _write(out, '      <contributor deleted="deleted" />\n')
    else:
        _write(out, "      <contributor>\n")
        if rev["actor_user"] is not None:
            _write(out, f"        <username>{escape(str(rev['actor_name']))}</username>\n")
            _write(out, f"        <id>{rev['actor_user']}</id>\n")
        else:
            _write(out, f"        <ip>{escape(str(rev['actor_name']))}</ip>\n")
        _write(out, "      </contributor>\n")
    if rev["rev_minor_edit"]:
        _write(out, "      <minor />\n")
    if deleted & _DELETED_COMMENT:
        _write(out, '      <comment deleted="deleted" />\n')
    elif rev["comment_text"]:
        _write(out, f"      <comment>{escape(str(rev['comment_text']))}</comment>\n")
    sha1 = str(rev["rev_sha1"])
    text_attrs = f'bytes="{rev["rev_len"]}"'
    if schema != "0.10":
        # 0.11: the revision that introduced the main slot's content, and its sha1 on <text>.
        _write(out, f"      <origin>{rev['rev_id']}</origin>\n")
        text_attrs += f' sha1="{sha1}"'
    _write(out, f"      <model>{rev['rev_content_model']}</model>\n")
    _write(out, f"      <format>{rev['rev_content_format']}</format>\n")
    if deleted & _DELETED_TEXT:
        # Hidden text is written as an empty `deleted` element (WRITE_STUB_DELETED), and no
        # revision sha1.
        _write(out, f'      <text {text_attrs} deleted="deleted" />\n')
        _write(out, "      <sha1/>\n")
    else:
        text = str(rev["old_text"])
        _write(out, f'      <text {text_attrs} xml:space="preserve">{escape(text)}</text>\n')
        _write(out, f"      <sha1>{sha1}</sha1>\n")
    _write(out, "    </revision>\n")

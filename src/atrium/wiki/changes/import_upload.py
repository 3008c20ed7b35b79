"""One page of an XML file uploaded to `Special:Import`, as MediaWiki's WikiImporter and
ImportReporter record it: the page must land on a valid local title the importer may edit; its
new revisions are imported (the dump importer's mapping of titles and contributors); then a null
revision "N revisions imported" by the importer and an `import/upload` log entry mark it.

Special:Import's mappings are MediaWiki's title factories: the original namespace
(NaiveImportTitleFactory), one chosen namespace for every page (NamespaceImportTitleFactory: the
foreign title's text without its namespace), or subpages of a root page
(SubpageImportTitleFactory: the foreign title's full text after `Root/`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from atrium.core.db import Conn
from atrium.wiki.changes import ChangeError, invalidation
from atrium.wiki.changes.imports import (
    ImportedPage,
    ImportOptions,
    foreign_title,
    import_pages,
    local_title,
)
from atrium.wiki.changes.journal import Performer, log_event
from atrium.wiki.changes.pageops import null_revision
from atrium.wiki.changes.protection import check_protection, page_row
from atrium.wiki.site import Site
from atrium.wiki.titles import Title


@dataclass(frozen=True)
class PageReport:
    """What became of one page of the file: its local title (None when it has none), the
    revisions imported, or the message key of the reason it was not imported."""

    foreign: str
    title: Title | None
    revisions: int = 0
    refused: str = ""  # import-error-invalid, import-error-edit


@dataclass(frozen=True)
class Mapping:
    """Where the pages go: their own namespace (both None), `namespace`, or under `root`."""

    namespace: int | None = None
    root: Title | None = None


def _foreign_parts(
    site: Site, page: ImportedPage, foreign: dict[int, str] | None
) -> tuple[str, str]:
    """(namespace name, text) of the dump title (ForeignTitle's)."""
    if foreign is None:
        # NaiveForeignTitleFactory: the title read as a local one.
        parsed = site.parser.parse_or_none(page.title)
        if parsed is None or parsed.ns == 0:
            return "", page.title
        name = site.namespaces.name(parsed.ns)
        return name, page.title.split(":", 1)[1] if ":" in page.title else page.title
    _ns, name, text = foreign_title(page.title, page.ns, foreign)
    return name, text


def mapped_title(
    site: Site, page: ImportedPage, foreign: dict[int, str] | None, mapping: Mapping
) -> Title | None:
    """The local title a dump page lands on, or None when it has none."""
    if mapping.namespace is None and mapping.root is None:
        return local_title(site, page, foreign)
    name, text = _foreign_parts(site, page, foreign)
    if mapping.root is not None:
        root = site.parser.prefixed_text(mapping.root.ns, mapping.root.dbkey)
        wanted = f"{root}/{name}:{text}" if name else f"{root}/{text}"
        parsed = site.parser.parse_or_none(wanted)
    else:
        parsed = site.parser.parse_or_none(":" + text)
        if parsed is not None and not parsed.interwiki and not parsed.fragment:
            assert mapping.namespace is not None
            return Title(mapping.namespace, parsed.dbkey) if parsed.dbkey else None
    if parsed is None or parsed.ns < 0 or parsed.interwiki or not parsed.dbkey:
        return None
    return Title(parsed.ns, parsed.dbkey)


def _detail(count: int, reason: str) -> str:
    """`import-logentry-upload-detail`, then the comment after MediaWiki's colon separator."""
    text = f"{count} revision{'' if count == 1 else 's'} imported"
    return f"{text}: {reason}" if reason else text


def import_uploaded_page(
    conn: Conn,
    site: Site,
    who: Performer,
    page: ImportedPage,
    options: ImportOptions,
    reason: str,
    mapping: Mapping,
) -> PageReport:
    title = mapped_title(site, page, options.foreign_namespaces, mapping)
    if title is None or title.ns < 0:
        return PageReport(page.title, None, refused="import-error-invalid")
    # WikiImporter imports only what the importer may edit: protected namespaces
    # (MediaWiki:, `editinterface`) and protected pages.
    protection = site.namespaces.by_id[title.ns].protection
    if protection and not who.allowed(protection):
        return PageReport(page.title, title, refused="import-error-edit")
    try:
        check_protection(conn, title, who, "edit")
    except ChangeError:
        return PageReport(page.title, title, refused="import-error-edit")
    # The page goes in under its local title, read as a local one; a fresh actor cache, so that
    # a refused page's transaction leaves no ids behind.
    local = ImportedPage(site.parser.prefixed_text(title.ns, title.dbkey), None, page.revisions)
    result = import_pages(conn, site, [local], replace(options, actors={}, foreign_namespaces=None))
    if result.revisions == 0:
        return PageReport(page.title, title)
    row = page_row(conn, title)
    assert row is not None
    page_id = int(row["page_id"])
    detail = _detail(result.revisions, reason)
    rev_id = null_revision(conn, site, who, title, page_id, detail, minor=True)
    # The page's latest revision changed again: what shows its history is stale.
    invalidation.touch(conn, [title], invalidation.revision_change(rev_id), existence=False)
    log_event(
        conn, who, "import", "upload", title, page_id=page_id, reason=reason,
        params={"count": result.revisions}, rev_id=rev_id, site=site,
    )  # fmt: skip
    return PageReport(page.title, title, result.revisions)

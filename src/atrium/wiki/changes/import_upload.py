"""One page of an XML file uploaded to `Special:Import`, as MediaWiki's WikiImporter and
ImportReporter record it: the page must land on a valid local title the importer may edit; its
new revisions are imported (the dump importer's mapping of titles and contributors); then a null
revision "N revisions imported" by the importer and an `import/upload` log entry mark it."""

from __future__ import annotations

from dataclasses import dataclass, replace

from atrium.core.db import Conn
from atrium.wiki.changes import ChangeError, invalidation
from atrium.wiki.changes.imports import ImportedPage, ImportOptions, import_pages, local_title
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
) -> PageReport:
    title = local_title(site, page, options.foreign_namespaces)
    if title is None:
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
    # A fresh actor cache: a refused page's transaction must not leave ids behind.
    result = import_pages(conn, site, [page], replace(options, actors={}))
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
        params={"count": result.revisions}, rev_id=rev_id,
    )  # fmt: skip
    return PageReport(page.title, title, result.revisions)

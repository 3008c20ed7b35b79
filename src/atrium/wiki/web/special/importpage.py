"""`Special:Import`: an administrator uploads a MediaWiki XML export (`xmlimport`) and its pages
are imported with their history — MediaWiki's upload form, with the interwiki prefix its
contributors' names get and the option to keep local users' names. Restricted to `import`; the
upload needs `importupload`, the session's token and no block, and is no larger than an upload.

The file is read page by page in a worker thread, each page written in a transaction of its own,
so memory stays flat and the wiki keeps serving; a file that stops parsing keeps the pages
before the error, as MediaWiki's importer does. The pages keep their namespace, all go to one
namespace, or become subpages of a root page. No other wiki is configured as an import source
(`$wgImportSources` is empty), so there is no interwiki form."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup
from starlette.responses import Response

from atrium.core import workers
from atrium.core.db import Database
from atrium.wiki.changes.import_upload import Mapping, PageReport, import_uploaded_page
from atrium.wiki.changes.imports import ImportOptions
from atrium.wiki.changes.journal import Performer
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.changes.uploads import MAX_SIZE
from atrium.wiki.dump import read_dump
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.web.log_lines import message
from atrium.wiki.web.special.blocknotice import block_notice, block_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.msg import inline_html, msg_html
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    permission_error,
    render,
    wikitext_html,
)
from atrium.wiki.wikitext.escaping import escape_wikitext

MAX_PREFIX = 100  # characters of the interwiki prefix
LINK = Markup('<a href="{}" title="{}">{}</a>')


@dataclass
class ImportRun:
    reports: list[PageReport] = field(default_factory=list)
    failure: str = ""  # why the file stopped being read (importfailed's $1)


def _root_name(path: Path) -> str:
    """The document element's local name, read from the first tag only."""
    with path.open("rb") as source:
        for _event, elem in ET.iterparse(source, events=("start",)):
            return str(elem.tag).rsplit("}", 1)[-1]
    return ""


def run_import(
    db: Database,
    site: Site,
    who: Performer,
    path: Path,
    options: ImportOptions,
    reason: str,
    mapping: Mapping,
) -> ImportRun:
    """Import every page of the file (in a worker thread: each page is one `write_sync`)."""
    run = ImportRun()
    try:
        root = _root_name(path)
        if root != "mediawiki":
            run.failure = f"Expected '<mediawiki>' tag, got '<{root}>' tag."
            return run
        with path.open("rb") as source:
            for item in read_dump(source):
                if isinstance(item, dict):
                    options.foreign_namespaces = item
                    continue
                report = db.write_sync(
                    import_uploaded_page, site, who, item, options, reason, mapping
                )
                run.reports.append(report)
    except ET.ParseError as exc:
        run.failure = f"XML import parse failure: {exc}"
    except ValueError as exc:
        # A malformed <ns> or <id> in an otherwise well-formed file.
        run.failure = f"XML import parse failure: {exc}"
    return run


async def _form(
    ctx: SpecialContext,
    *,
    failure: str = "",
    run: ImportRun | None = None,
    wrong: Markup | None = None,
) -> Response:
    failed = await wikitext_html(ctx, message("importfailed", failure)) if failure else ""
    lines: list[Markup] = []
    if run is not None:
        links = Links(ctx.site)
        for report in run.reports:
            if report.refused:
                text = message(report.refused, escape_wikitext(report.foreign))
                lines.append(await inline_html(ctx, text))
            elif report.title is not None:
                name = links.name(report.title)
                count = (
                    message("import-revision-count", report.revisions)
                    if report.revisions
                    else message("import-nonewrevisions")
                )
                link = LINK.format(links.page(report.title), name, name)
                lines.append(Markup("{} {}").format(link, count))
    return await render(
        ctx,
        "import.html",
        "Import pages",
        may_upload=ctx.reader.allowed("importupload"),
        intro=await msg_html(ctx, "importtext"),
        no_sources=await msg_html(ctx, "importnosources"),
        failed=Markup(failed),
        wrong=wrong,
        mapping=ctx.param("mapping") or "default",
        namespace=ctx.int_param("namespace", 0, 0, 10**5),
        rootpage=ctx.param("rootpage"),
        lines=lines,
        done=run is not None and not failure,
        prefix=ctx.param("usernamePrefix"),
        assign=ctx.flag("assignKnownUsers"),
        comment=ctx.param("log-comment"),
    )


def _mapping(ctx: SpecialContext) -> Mapping | str:
    """The form's mapping, or why its root page cannot be one (setTargetRootPage's errors)."""
    chosen = ctx.param("mapping")
    if chosen == "namespace":
        text = ctx.param("namespace").strip()
        ns = int(text) if text.isdigit() and len(text) < 6 else -1
        # WikiImporter::setTargetNamespace ignores a namespace that does not exist.
        return Mapping(namespace=ns) if ns >= 0 and ns in ctx.site.namespaces.by_id else Mapping()
    if chosen == "subpage" and ctx.param("rootpage").strip():
        root = ctx.site.parser.parse_or_none(ctx.param("rootpage").strip().rstrip("/"))
        if root is None or root.interwiki or root.ns < 0 or not root.dbkey:
            return message("import-rootpage-invalid")
        if not ctx.site.namespaces.by_id[root.ns].subpages:
            shown = ctx.site.namespaces.name(root.ns) or message("blanknamespace")
            return message("import-rootpage-nosubpage", shown)
        return Mapping(root=Title(root.ns, root.dbkey))
    return Mapping()


async def _import(ctx: SpecialContext) -> Response:
    # Every refusal shows the form again with "Import failed", at 200, as SpecialImport does.
    if ctx.param("source") != "upload":
        return await _form(ctx, failure="Unknown import source type")
    if not ctx.reader.allowed("importupload"):
        return await permission_error(
            ctx, "import pages from a file upload", badaccess(ctx.site, "importupload")
        )
    prefix = ctx.param("usernamePrefix").strip()
    upload = ctx.files.get("xmlimport")
    if upload is None or (not upload.name and upload.size == 0):
        return await _form(ctx, failure="No import file was uploaded.")
    if upload.size > MAX_SIZE:
        return await _form(
            ctx,
            failure="Upload of import file failed. The file is bigger than the allowed upload size.",
        )
    if not prefix:
        return await _form(ctx, failure="No interwiki prefix was supplied")
    if len(prefix) > MAX_PREFIX or ">" in prefix:
        return await _form(ctx, failure="The interwiki prefix is not valid.")
    mapping = _mapping(ctx)
    if isinstance(mapping, str):
        wrong = await wikitext_html(ctx, message("import-options-wrong", mapping, 1))
        return await _form(ctx, wrong=Markup(wrong))
    options = ImportOptions(username_prefix=prefix, assign_known_users=ctx.flag("assignKnownUsers"))
    reason = ctx.param("log-comment")[:500]
    run = await workers.run(
        run_import, ctx.db, ctx.site, ctx.performer(), upload.path, options, reason, mapping
    )
    if run.failure:
        return await _form(ctx, failure=run.failure, run=run)
    if not run.reports:
        return await _form(ctx, failure="No pages to import.", run=run)
    return await _form(ctx, run=run)


async def handle(ctx: SpecialContext) -> Response:
    if not (ctx.reader.allowed("import") or ctx.reader.allowed("importupload")):
        return await permission_error(
            ctx, "import pages from another wiki", badaccess(ctx.site, "import")
        )
    block = await block_of(ctx, None)
    if block is not None:
        return await block_notice(ctx, block)
    if ctx.method != "POST":
        return await _form(ctx)
    if not ctx.token_ok():
        return await _form(ctx, failure=message("import-token-mismatch"))
    return await _import(ctx)


PAGE = SpecialPage("Import", "Import pages", "pagetools", handle, "import")

"""The maintenance and high-use reports as Special pages (QueryPage: Lonelypages, Wantedpages,
Shortpages, Mostlinked, DoubleRedirects …) under MediaWiki's canonical names, each a page of
the live report `list=querypage` also runs (`reads.reports`), with `limit` and `offset` paging
and MediaWiki's line for each kind of report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup
from starlette.responses import Response

from atrium.core.db import Row
from atrium.wiki.changes.protection import badaccess
from atrium.wiki.reads.page_view import link_states
from atrium.wiki.reads.reports import REPORTS, report_rows
from atrium.wiki.titles import NS_FILE, Title
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, permission_error, render

LIMITS = (20, 50, 100, 250, 500)
MAX_OFFSET = 10_000_000


@dataclass(frozen=True)
class Kind:
    """How a report's line reads: the page, then its value as `unit` ("links", "bytes" …)."""

    title: str
    group: str
    unit: str = ""  # "" (the page only), a counted noun, "bytes", "time", "redirect", …
    intro: str = ""


KINDS: dict[str, Kind] = {
    "Ancientpages": Kind("Oldest pages", "maintenance", "time"),
    "BrokenRedirects": Kind(
        "Broken redirects",
        "maintenance",
        "redirect",
        "The following redirects link to non-existent pages:",
    ),
    "Deadendpages": Kind(
        "Dead-end pages",
        "maintenance",
        "",
        "The following pages do not link to other pages in this wiki.",
    ),
    "DoubleRedirects": Kind(
        "Double redirects",
        "maintenance",
        "double",
        "This page lists pages that redirect to other redirect pages.",
    ),
    "Fewestrevisions": Kind("Pages with the fewest revisions", "maintenance", "revision"),
    "ListDuplicatedFiles": Kind("List of duplicated files", "media", "duplicate"),
    "Listredirects": Kind("List of redirects", "pages", "redirect"),
    "Lonelypages": Kind(
        "Orphaned pages",
        "maintenance",
        "",
        "The following pages are not linked from or transcluded into other pages in this wiki.",
    ),
    "Longpages": Kind("Long pages", "maintenance", "bytes"),
    "MediaStatistics": Kind("Media statistics", "media", "media"),
    "Mostcategories": Kind("Pages with the most categories", "highuse", "category"),
    "Mostimages": Kind("Most linked-to files", "highuse", "use"),
    "Mostinterwikis": Kind("Pages with the most interwikis", "highuse", "interwiki"),
    "Mostlinked": Kind("Most linked-to pages", "highuse", "link"),
    "Mostlinkedcategories": Kind("Most linked-to categories", "highuse", "member"),
    "Mostlinkedtemplates": Kind("Most transcluded pages", "highuse", "transclusion"),
    "Mostrevisions": Kind("Pages with the most revisions", "highuse", "revision"),
    "Shortpages": Kind("Short pages", "maintenance", "bytes"),
    "Uncategorizedcategories": Kind("Uncategorized categories", "maintenance"),
    "Uncategorizedimages": Kind("Uncategorized files", "maintenance"),
    "Uncategorizedpages": Kind("Uncategorized pages", "maintenance"),
    "Uncategorizedtemplates": Kind("Uncategorized templates", "maintenance"),
    "Unusedcategories": Kind(
        "Unused categories",
        "maintenance",
        "",
        "The following category pages exist, although no other page or category makes use of them.",
    ),
    "Unusedimages": Kind("Unused files", "maintenance", "time"),
    "Unusedtemplates": Kind(
        "Unused templates",
        "maintenance",
        "",
        "This page lists all pages in the Template namespace that are not included in another "
        "page.",
    ),
    "Unwatchedpages": Kind("Unwatched pages", "maintenance"),
    "Wantedcategories": Kind("Wanted categories", "maintenance", "member"),
    "Wantedfiles": Kind("Wanted files", "maintenance", "use"),
    "Wantedpages": Kind("Wanted pages", "maintenance", "link"),
    "Wantedtemplates": Kind("Wanted templates", "maintenance", "transclusion"),
    "Withoutinterwiki": Kind("Pages without language links", "maintenance"),
}
# The counted value of a line (the `nlinks`, `nrevisions` … messages).
COUNTS = {
    "link": ("1 link", "{} links"),
    "revision": ("1 revision", "{} revisions"),
    "category": ("1 category", "{} categories"),
    "member": ("1 member", "{} members"),
    "interwiki": ("1 interwiki", "{} interwikis"),
    "transclusion": ("used on 1 page", "used on {} pages"),
    "use": ("used on 1 page", "used on {} pages"),
}


def _count(unit: str, value: Any) -> str:
    one, many = COUNTS[unit]
    number = int(value or 0)
    return one if number == 1 else many.format(f"{number:,}")


class _Lines:
    """Links to the pages of one page of results, blue or red as the pages exist."""

    def __init__(self, links: Links, known: set[tuple[int, str]], may_edit: bool) -> None:
        self.links, self.known, self.may_edit = links, known, may_edit

    def page(self, title: Title) -> Markup:
        name = self.links.name(title)
        if (title.ns, title.dbkey) in self.known or title.ns < 0:
            return Markup('<a href="{}" title="{}">{}</a>').format(
                self.links.page(title), name, name
            )
        return Markup('<a href="{}" class="new" title="{} (page does not exist)">{}</a>').format(
            self.links.index(title, action="edit", redlink="1"), name, name
        )

    def line(self, kind: Kind, row: Row) -> Markup:
        title = Title(int(row["namespace"]), str(row["title"]))
        unit, value = kind.unit, row.get("value")
        shown = self.page(title)
        if unit == "bytes":
            history = Markup('(<a href="{}">hist</a>) ').format(
                self.links.index(title, action="history")
            )
            return history + shown + Markup(" \u200e[{} bytes]").format(f"{int(value or 0):,}")
        if unit == "time":
            return shown + Markup(" \u200e({})").format(local_time(str(value or "")))
        if unit in COUNTS:
            return shown + Markup(" \u200e({})").format(_count(unit, value))
        if unit == "redirect":
            target = Title(int(row["rd_namespace"]), str(row["rd_title"]))
            arrow = Markup(" \u2192 ") + self.page(target)
            if self.may_edit and kind.title == "Broken redirects":
                tools = Markup(' (<a href="{}">edit</a>)').format(
                    self.links.index(title, action="edit")
                )
                return shown + tools + arrow
            return shown + arrow
        if unit == "double":
            middle = Title(int(row["b_namespace"]), str(row["b_title"]))
            last = Title(int(row["c_namespace"]), str(row["c_title"]))
            return (
                shown
                + Markup(" \u2192 ")
                + self.page(middle)
                + Markup(" \u2192 ")
                + (self.page(last))
            )
        if unit == "duplicate":
            count = int(value or 0) - 1
            search = self.links.special("FileDuplicateSearch", filename=str(row["title"]))
            noun = "a duplicate" if count == 1 else f"{count} duplicates"
            return shown + Markup(' has <a href="{}">{}</a>.').format(search, noun)
        return shown


def _targets(kind: Kind, rows: list[Row]) -> set[tuple[int, str]]:
    found: set[tuple[int, str]] = set()
    for row in rows:
        found.add((int(row["namespace"]), str(row["title"])))
        if kind.unit == "redirect":
            found.add((int(row["rd_namespace"]), str(row["rd_title"])))
        if kind.unit == "double":
            found.add((int(row["b_namespace"]), str(row["b_title"])))
            found.add((int(row["c_namespace"]), str(row["c_title"])))
    return {t for t in found if t[0] >= 0}


def _media_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """MediaStatistics's rows: its title packs `media type;mime;count;bytes`."""
    table = []
    for row in rows:
        parts = str(row["title"]).split(";")
        if len(parts) != 4:
            continue
        media, mime, count, total = parts
        table.append({"media": media or "UNKNOWN", "mime": mime, "count": int(count or 0),
                      "bytes": int(total or 0)})  # fmt: skip
    return table


def _page(name: str, kind: Kind) -> SpecialPage:
    report = REPORTS[name]

    async def handle(ctx: SpecialContext) -> Response:
        if report.right is not None and not ctx.reader.allowed(report.right):
            return await permission_error(
                ctx, "use this special page", badaccess(ctx.site, report.right)
            )
        limit = ctx.int_param("limit", 50, 1, 5000)
        offset = ctx.int_param("offset", 0, 0, MAX_OFFSET)
        rows = await ctx.db.read(report_rows, name, offset, limit)
        more = len(rows) > limit
        rows = rows[:limit]
        links = Links(ctx.site)
        known: set[tuple[int, str]] = set()
        targets = _targets(kind, rows) if kind.unit != "media" else set()
        if targets:
            known = (await ctx.db.read(link_states, targets))[0]
        lines = _Lines(links, known, ctx.reader.allowed("edit"))
        items = [] if kind.unit == "media" else [lines.line(kind, row) for row in rows]
        return await render(
            ctx, "report.html", kind.title, name=name, kind=kind, items=items,
            media=_media_rows(rows) if kind.unit == "media" else [], offset=offset, limit=limit,
            more=more, limits=LIMITS, gallery=name == "Unusedimages", file_ns=NS_FILE,
        )  # fmt: skip

    return SpecialPage(name, kind.title, kind.group, handle, report.right)


PAGES: tuple[SpecialPage, ...] = tuple(_page(name, kind) for name, kind in KINDS.items())

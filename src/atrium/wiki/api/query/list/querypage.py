"""`list=querypage`: the maintenance special pages (ApiQueryQueryPage), run live as MediaWiki
does without miser mode: each page is a query giving (namespace, title[, value][, extra fields]),
sorted by value (then namespace and title) or by title, paged by `offset`.

Values are strings, as PHP hands them over; extra fields appear under `databaseResult`.
"""

from __future__ import annotations

from typing import Any

from atrium.core.db import Row
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    INTEGER,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.listing import prefixed
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads.reports import REPORTS, report_rows
from atrium.wiki.timestamps import iso

QUERYPAGE = ModuleSpec(
    "querypage",
    "ApiQueryQueryPage",
    "list",
    "qp",
    (
        Param(
            "page",
            enum(
                "Ancientpages",
                "BrokenRedirects",
                "Deadendpages",
                "DoubleRedirects",
                "Fewestrevisions",
                "ListDuplicatedFiles",
                "Listredirects",
                "Lonelypages",
                "Longpages",
                "MediaStatistics",
                "Mostcategories",
                "Mostimages",
                "Mostinterwikis",
                "Mostlinked",
                "Mostlinkedcategories",
                "Mostlinkedtemplates",
                "Mostrevisions",
                "Shortpages",
                "Uncategorizedcategories",
                "Uncategorizedimages",
                "Uncategorizedpages",
                "Uncategorizedtemplates",
                "Unusedcategories",
                "Unusedimages",
                "Unusedtemplates",
                "Unwatchedpages",
                "Wantedcategories",
                "Wantedfiles",
                "Wantedpages",
                "Wantedtemplates",
                "Withoutinterwiki",
            ),
            required=True,
        ),
        Param("offset", INTEGER, default=0),
        limit(),
    ),
    generator=True,
)


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], int | None]:
    name = params["page"]
    report = REPORTS[name]
    if report.right is not None and not q.ctx.caller.allowed(report.right):
        raise ApiUsageError(
            "specialpage-cantexecute",
            msg.api("apierror-specialpage-cantexecute"),
            module=QUERYPAGE.path,
        )
    offset, limit = max(params["offset"], 0), params["limit"]
    rows = await q.ctx.db.read(report_rows, name, offset, limit)
    if len(rows) > limit:
        return rows[:limit], offset + limit
    return rows, None


def _text(value: Any) -> Any:
    """A database value as PHP's drivers give it: a string (or null)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    report = REPORTS[params["page"]]
    results = []
    for row in rows:
        data: dict[str, Any] = {}
        if "value" in row and row["value"] is not None:
            data["value"] = _text(row["value"])
            if report.timestamps:
                data["timestamp"] = iso(str(row["value"]))
        ns = int(row["namespace"])
        data["ns"] = ns
        data["title"] = prefixed(q, ns, str(row["title"]))
        extra = {k: _text(v) for k, v in row.items() if k not in ("namespace", "title", "value")}
        if extra:
            data["databaseResult"] = extra
        results.append(data)
    q.data["querypage"] = {"name": params["page"], "results": results}
    if cont is not None:
        q.continuation.add(QUERYPAGE, "offset", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rows(q, params)
    if cont is not None:
        q.continuation.add_generator(QUERYPAGE, "offset", cont)
    return GeneratedPages(titles=[(int(r["namespace"]), str(r["title"])) for r in rows])


MODULE = QueryModule(QUERYPAGE, run, generate)

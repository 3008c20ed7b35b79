"""`prop=categoryinfo` (ApiQueryCategoryInfo): for each category page of the set, present or
missing, how many pages, files and subcategories it holds and whether it is hidden."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.params import ModuleSpec, Param
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.reads import links as linkreads
from atrium.wiki.titles import NS_CATEGORY

CATEGORYINFO = ModuleSpec(
    "categoryinfo",
    "ApiQueryCategoryInfo",
    "prop",
    "ci",
    (Param("continue"),),
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    # MediaWiki's cicontinue is a category name (`cat_title >= continue`), for present and
    # missing category pages alike.
    start: str | None = params["continue"]
    keyed: dict[str, int] = {}
    for page in q.pages.sorted_good():
        if page.ns == NS_CATEGORY and (start is None or page.dbkey >= start):
            keyed[page.dbkey] = page.page_id
    for missing in q.pages.missing:
        if missing.ns == NS_CATEGORY and (start is None or missing.dbkey >= start):
            keyed[missing.dbkey] = missing.fake_id
    if not keyed:
        return

    def read(conn: Any) -> tuple[dict[str, dict[str, int]], set[str]]:
        names = list(keyed)
        return linkreads.category_counts(conn, names), linkreads.hidden_categories(conn, names)

    counts, hidden = await q.ctx.db.read(read)
    good = {p.page_id for p in q.pages.good.values()}
    for name, key in keyed.items():
        by_type = counts.get(name)
        if by_type is None and key not in good:
            continue
        by_type = by_type or {}
        pages, files, subcats = (by_type.get(t, 0) for t in ("page", "file", "subcat"))
        info: dict[str, Any] = {
            "size": pages + files + subcats,
            "pages": pages,
            "files": files,
            "subcats": subcats,
        }
        q.ctx.out.flag(info, "hidden", name in hidden)
        q.page_entry(key)["categoryinfo"] = info


MODULE = QueryModule(CATEGORYINFO, run)

"""`prop=categoryinfo`, `prop=pageprops` and `prop=contributors`: facts about each page of the set
that come from other tables (category membership counts, page properties, the editors)."""

from __future__ import annotations

from typing import Any

from atrium.wiki.accounts.rights import ALL_RIGHTS, EXPLICIT_GROUPS, implicit_groups, rights_of
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    ModuleSpec,
    Param,
    limit,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun, badcontinue, cont_int
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import links as linkreads
from atrium.wiki.titles import NS_CATEGORY


def _int_continue(value: str | None) -> int | None:
    if value is None:
        return None
    return cont_int(value)


async def run_categoryinfo(q: QueryRun, params: dict[str, Any]) -> None:
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


async def run_pageprops(q: QueryRun, params: dict[str, Any]) -> None:
    start = _int_continue(params["continue"])
    ids = [p for p in sorted(q.pages.good) if start is None or p >= start]
    names = params["prop"] or None
    props = await q.ctx.db.read(linkreads.page_props, ids, names)
    for page_id in ids:
        if page_id in props:
            q.page_entry(page_id)["pageprops"] = props[page_id]


def _contributor_filter(params: dict[str, Any]) -> tuple[str, set[str]] | None:
    given = [name for name in ("group", "excludegroup", "rights", "excluderights") if params[name]]
    if len(given) > 1:
        raise ApiUsageError(
            "invalidparammix",
            msg.invalidparammix([f"pc{n}" for n in given]),
            module="query+contributors",
        )
    if not given:
        return None
    return given[0], set(params[given[0]])


CONTRIBUTORS = ModuleSpec(
    "contributors",
    "ApiQueryContributors",
    "prop",
    "pc",
    (
        Param("group", EXPLICIT_GROUPS, multi=True),
        Param("excludegroup", EXPLICIT_GROUPS, multi=True),
        Param("rights", ALL_RIGHTS, multi=True),
        Param("excluderights", ALL_RIGHTS, multi=True),
        limit(default=10),
        Param("continue"),
    ),
)


async def run_contributors(q: QueryRun, params: dict[str, Any]) -> None:
    ids = sorted(q.pages.good)
    cont: tuple[int, int] | None = None
    if params["continue"] is not None:
        parts = params["continue"].split("|")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise badcontinue()
        cont = (cont_int(parts[0]), cont_int(parts[1]))
        ids = [i for i in ids if i >= cont[0]]
    if not ids:
        return
    chosen = _contributor_filter(params)

    def read(conn: Any) -> tuple[list[Any], dict[int, set[str]]]:
        rows = linkreads.contributors(conn, ids)
        users = sorted({int(r["actor_user"]) for r in rows if r["actor_user"] is not None})
        return rows, linkreads.user_groups(conn, users)

    rows, groups = await q.ctx.db.read(read)
    anon: dict[int, int] = {}
    named: list[tuple[int, int, str]] = []
    for row in rows:
        page = int(row["rev_page"])
        if row["actor_user"] is None:
            anon[page] = anon.get(page, 0) + 1
            continue
        user = int(row["actor_user"])
        if cont is not None and (page, user) < cont:
            continue
        if chosen is not None:
            kind, values = chosen
            user_groups = groups.get(user, set())
            if kind in ("group", "excludegroup"):
                hit = bool(user_groups & values)
            else:
                hit = bool(set(rights_of([*implicit_groups(True), *user_groups])) & values)
            if hit == kind.startswith("exclude"):
                continue
        named.append((page, user, str(row["actor_name"])))
    named.sort()
    limit = params["limit"]
    if len(named) > limit:
        q.continuation.add(CONTRIBUTORS, "continue", f"{named[limit][0]}|{named[limit][1]}")
        named = named[:limit]
    last_page = named[-1][0] if named and q.continuation.prop_data.get("contributors") else None
    for page, user, name in named:
        q.page_entry(page).setdefault("contributors", []).append({"userid": user, "name": name})
    for page in ids:
        if page in anon and (last_page is None or page <= last_page):
            if cont is not None and page == cont[0] and cont[1] > 0:
                continue
            q.page_entry(page)["anoncontributors"] = anon[page]


PAGEPROPS = ModuleSpec(
    "pageprops",
    "ApiQueryPageProps",
    "prop",
    "pp",
    (
        Param("continue"),
        Param("prop", multi=True),
    ),
)


CATEGORYINFO = ModuleSpec(
    "categoryinfo",
    "ApiQueryCategoryInfo",
    "prop",
    "ci",
    (Param("continue"),),
)


MODULES = (
    QueryModule(CATEGORYINFO, run_categoryinfo),
    QueryModule(PAGEPROPS, run_pageprops),
    QueryModule(CONTRIBUTORS, run_contributors),
)

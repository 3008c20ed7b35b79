"""`prop=contributors` (ApiQueryContributors): the registered editors of each page of the set, by
(page id, user id), optionally only those in or out of some groups or holding some rights, and the
count of anonymous editors; continued by `<page id>|<user id>`."""

from __future__ import annotations

from typing import Any

from atrium.wiki.accounts.rights import ALL_RIGHTS, EXPLICIT_GROUPS, implicit_groups, rights_of
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import ModuleSpec, Param, limit
from atrium.wiki.api.query.pageset import QueryModule, QueryRun, badcontinue, cont_int
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import links as linkreads


def _filter(params: dict[str, Any]) -> tuple[str, set[str]] | None:
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


async def run(q: QueryRun, params: dict[str, Any]) -> None:
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
    chosen = _filter(params)

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


MODULE = QueryModule(CONTRIBUTORS, run)

"""`prop=redirects`, `linkshere`, `transcludedin` and `fileusage`: the pages pointing at each page of
the set (MediaWiki's ApiQueryBacklinksprop); all four are also generators of those pages.

The sort key, and so the continuation value, names the target's namespace only when the targets
span several namespaces and its title only when there are several titles, then the source page id:
`ns|title|from`, `title|from` or just `from`.

The four modules stay in one file: they are one MediaWiki class, one body over a table of link kinds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    NAMESPACE,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.pageset import (
    GeneratedPages,
    QueryModule,
    QueryRun,
    badcontinue,
    cont_int,
)
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import links as linkreads
from atrium.wiki.titles import NS_FILE


@dataclass(frozen=True)
class _Kind:
    spec: ModuleSpec
    table: str  # what linkreads.incoming reads
    result_key: str


TRANSCLUDEDIN = ModuleSpec(
    "transcludedin",
    "ApiQueryBacklinksprop",
    "prop",
    "ti",
    (
        Param(
            "prop", enum("pageid", "redirect", "title"), default="pageid|title|redirect", multi=True
        ),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("show", enum("!redirect", "redirect"), multi=True),
        limit(default=10),
        Param("continue"),
    ),
    generator=True,
)


# MediaWiki serves it with the same class and parameters as the spec's transcludedin.
LINKSHERE = dataclasses.replace(TRANSCLUDEDIN, name="linkshere", prefix="lh")


# MediaWiki serves it with the same class and parameters as the spec's transcludedin.
FILEUSAGE = dataclasses.replace(TRANSCLUDEDIN, name="fileusage", prefix="fu")


REDIRECTS = ModuleSpec(
    "redirects",
    "ApiQueryBacklinksprop",
    "prop",
    "rd",
    (
        Param("prop", enum("fragment", "pageid", "title"), default="pageid|title", multi=True),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("show", enum("!fragment", "fragment"), multi=True),
        limit(default=10),
        Param("continue"),
    ),
    generator=True,
)


_KINDS = (
    _Kind(REDIRECTS, "redirects", "redirects"),
    _Kind(LINKSHERE, "links", "linkshere"),
    _Kind(TRANSCLUDEDIN, "templates", "transcludedin"),
    _Kind(FILEUSAGE, "files", "fileusage"),
)


def _targets(kind: _Kind, q: QueryRun) -> dict[tuple[int, str], int]:
    """(ns, dbkey) -> page-set key (page id, or the fake id of a missing title)."""
    pages = q.pages
    found: dict[tuple[int, str], int] = {}
    for page in pages.sorted_good():
        found[(page.ns, page.dbkey)] = page.page_id
    if kind.table != "redirects":
        for missing in pages.missing:
            if missing.ns >= 0:
                found[(missing.ns, missing.dbkey)] = missing.fake_id
    if kind.table == "files":
        found = {k: v for k, v in found.items() if k[0] == NS_FILE}
    return found


def _show(kind: _Kind, show: list[str]) -> tuple[bool | None, bool | None]:
    values = set(show)
    flag = "fragment" if kind.table == "redirects" else "redirect"
    if {flag, "!" + flag} <= values:
        raise ApiUsageError(
            "show",
            msg.api("apierror-show"),
            module=kind.spec.path,
        )
    chosen = True if flag in values else False if "!" + flag in values else None
    return (None, chosen) if kind.table == "redirects" else (chosen, None)


async def _fetch(
    kind: _Kind, q: QueryRun, params: dict[str, Any]
) -> tuple[list[Any], str | None, dict[tuple[int, str], int]]:
    redirect_filter, fragment_filter = _show(kind, params["show"])
    targets = _targets(kind, q)
    if not targets:
        return [], None, targets
    key: list[str] = []
    if len({ns for ns, _ in targets}) > 1:
        key.append("target_ns")
    if len(targets) > 1:
        key.append("target_title")
    key.append("page_id")
    cont: list[object] | None = None
    if params["continue"] is not None:
        parts = params["continue"].split("|")
        if len(parts) != len(key):
            raise badcontinue()
        cont = []
        for name, part in zip(key, parts, strict=True):
            if name == "target_title":
                cont.append(part)
            else:
                cont.append(cont_int(part))
    limit = params["limit"]
    rows = await q.ctx.db.read(
        lambda conn: linkreads.incoming(
            conn,
            kind.table,
            list(targets),
            namespaces=params["namespace"] or None,
            redirect_filter=redirect_filter,
            fragment_filter=fragment_filter,
            cont=cont,
            key=key,
            limit=limit + 1,
        )
    )
    following = None
    if len(rows) > limit:
        following = "|".join(str(rows[limit][k]) for k in key)
        rows = rows[:limit]
    return list(rows), following, targets


def _runner(kind: _Kind) -> Callable[[QueryRun, dict[str, Any]], Any]:
    async def run(q: QueryRun, params: dict[str, Any]) -> None:
        rows, following, targets = await _fetch(kind, q, params)
        out = q.ctx.out
        parser = q.ctx.site.parser
        props = set(params["prop"])
        for row in rows:
            owner = targets[(int(row["target_ns"]), str(row["target_title"]))]
            item: dict[str, Any] = {}
            if "pageid" in props:
                item["pageid"] = int(row["page_id"])
            if "title" in props:
                ns = int(row["page_namespace"])
                item["ns"] = ns
                item["title"] = parser.prefixed_text(ns, str(row["page_title"]))
            if kind.table == "redirects":
                if "fragment" in props and row["rd_fragment"]:
                    item["fragment"] = str(row["rd_fragment"])
            elif "redirect" in props:
                out.flag(item, "redirect", bool(row["page_is_redirect"]))
            q.page_entry(owner).setdefault(kind.result_key, []).append(item)
        if following is not None:
            q.continuation.add(kind.spec, "continue", following)

    return run


def _generator(kind: _Kind) -> Callable[[QueryRun, dict[str, Any]], Any]:
    async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
        rows, following, _ = await _fetch(kind, q, params)
        generated = GeneratedPages()
        for row in rows:
            if int(row["page_id"]) not in generated.page_ids:
                generated.page_ids.append(int(row["page_id"]))
        if following is not None:
            q.continuation.add_generator(kind.spec, "continue", following)
        return generated

    return generate


MODULES = tuple(QueryModule(k.spec, _runner(k), _generator(k)) for k in _KINDS)

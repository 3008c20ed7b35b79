"""`prop=templates`: the templates each page of the set transcludes; also a generator."""

from __future__ import annotations

from typing import Any

from atrium.wiki import pages as page_reads
from atrium.wiki.api.querybase import GeneratedPages, QueryModule, QueryRun, badcontinue
from atrium.wiki.api.querymodules import TEMPLATES
from atrium.wiki.titles import InvalidTitle


async def _fetch(q: QueryRun, params: dict[str, Any]) -> list[Any]:
    ids = sorted(q.pages.good)
    if not ids:
        return []
    cont = None
    if params["continue"] is not None:
        parts = params["continue"].split("|", 2)
        if len(parts) != 3 or not parts[0].isdigit() or not parts[1].lstrip("-").isdigit():
            raise badcontinue()
        cont = (int(parts[0]), int(parts[1]), parts[2])
    targets = None
    if params["templates"]:
        targets = []
        for text in params["templates"]:
            try:
                title = q.ctx.site.parser.parse(text)
            except InvalidTitle:
                continue
            targets.append((title.ns, title.dbkey))
    namespaces = params["namespace"] or None
    limit = params["limit"]
    rows = await q.ctx.db.read(
        lambda conn: page_reads.templates_of(
            conn,
            ids,
            namespaces=namespaces,
            targets=targets,
            descending=params["dir"] == "descending",
            cont=cont,
            limit=limit + 1,
        )
    )
    if len(rows) > limit:
        nxt = rows[limit]
        value = f"{nxt['tl_from']}|{nxt['tl_namespace']}|{nxt['tl_title']}"
        rows = rows[:limit]
        return [*rows, value]
    return list(rows)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows = await _fetch(q, params)
    parser = q.ctx.site.parser
    for row in rows:
        if isinstance(row, str):
            q.continuation.add(TEMPLATES, "continue", row)
            continue
        entry = q.page_entry(int(row["tl_from"]))
        entry.setdefault("templates", []).append(
            {
                "ns": int(row["tl_namespace"]),
                "title": parser.prefixed_text(int(row["tl_namespace"]), str(row["tl_title"])),
            }
        )


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows = await _fetch(q, params)
    generated = GeneratedPages()
    for row in rows:
        if isinstance(row, str):
            q.continuation.add_generator(TEMPLATES, "continue", row)
            continue
        key = (int(row["tl_namespace"]), str(row["tl_title"]))
        if key not in generated.titles:
            generated.titles.append(key)
    return generated


MODULE = QueryModule(TEMPLATES, run, generate)

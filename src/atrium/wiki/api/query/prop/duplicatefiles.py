"""`prop=duplicatefiles` (ApiQueryDuplicateFiles): for each file of the page set, the other files with
the same SHA-1."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.params import (
    BOOLEAN,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.fileinfo import (
    file_titles,
)
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun, badcontinue
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import NS_FILE

IMG = schema.image


def _duplicates(conn: Conn, names: list[str]) -> dict[str, list[Row]]:
    """For each named file, the other files with its SHA-1, by name."""
    if not names:
        return {}
    mine = conn.all(sa.select(IMG.c.img_name, IMG.c.img_sha1).where(IMG.c.img_name.in_(names)))
    by_sha: dict[str, list[str]] = {}
    for row in mine:
        by_sha.setdefault(str(row["img_sha1"]), []).append(str(row["img_name"]))
    if not by_sha:
        return {}
    others = conn.all(
        sa.select(IMG.c.img_name, IMG.c.img_sha1, IMG.c.img_timestamp, schema.actor.c.actor_name)
        .select_from(IMG.join(schema.actor, schema.actor.c.actor_id == IMG.c.img_actor))
        .where(IMG.c.img_sha1.in_(list(by_sha)))
    )
    found: dict[str, list[Row]] = {}
    for sha1, files in by_sha.items():
        same = [r for r in others if str(r["img_sha1"]) == sha1]
        for name in files:
            found[name] = [r for r in same if str(r["img_name"]) != name]
    return found


async def _duplicate_pairs(
    q: QueryRun, params: dict[str, Any]
) -> tuple[list[tuple[int, str, Row]], tuple[str, str] | None]:
    """(page key, file, duplicate row) in MediaWiki's order, and the continue point."""
    titles = [(k, n) for k, n in file_titles(q) if k > 0]
    descending = params["dir"] == "descending"
    found = await q.ctx.db.read(_duplicates, [n for _, n in titles])
    pairs: list[tuple[int, str, Row]] = []
    for key, name in sorted(titles, key=lambda t: t[1], reverse=descending):
        for dup in sorted(
            found.get(name, []), key=lambda r: str(r["img_name"]), reverse=descending
        ):
            pairs.append((key, name, dup))
    cont: tuple[str, str] | None = None
    if params["continue"] is not None:
        parts = params["continue"].split("|")
        if len(parts) != 2:
            raise badcontinue()
        cont = (parts[0], parts[1])
    if cont is not None:
        if descending:
            pairs = [p for p in pairs if (p[1], str(p[2]["img_name"])) <= cont]
        else:
            pairs = [p for p in pairs if (p[1], str(p[2]["img_name"])) >= cont]
    limit = params["limit"]
    following = None
    if len(pairs) > limit:
        nxt = pairs[limit]
        following = (nxt[1], str(nxt[2]["img_name"]))
        pairs = pairs[:limit]
    return pairs, following


DUPLICATEFILES = ModuleSpec(
    "duplicatefiles",
    "ApiQueryDuplicateFiles",
    "prop",
    "df",
    (
        limit(default=10),
        Param("continue"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("localonly", BOOLEAN),
    ),
    generator=True,
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    pairs, following = await _duplicate_pairs(q, params)
    for key, _, dup in pairs:
        q.page_entry(key).setdefault("duplicatefiles", []).append(
            {
                "name": str(dup["img_name"]),
                "user": dup["actor_name"],
                "timestamp": iso(str(dup["img_timestamp"])),
            }
        )
    if following is not None:
        q.continuation.add(DUPLICATEFILES, "continue", "|".join(following))


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    pairs, following = await _duplicate_pairs(q, params)
    if following is not None:
        q.continuation.add_generator(DUPLICATEFILES, "continue", "|".join(following))
    titles = list(dict.fromkeys((NS_FILE, str(dup["img_name"])) for _, _, dup in pairs))
    return GeneratedPages(titles=titles)


MODULE = QueryModule(DUPLICATEFILES, run, generate)

"""`list=allrevisions` (ApiQueryAllRevisions): every revision, newest first unless `dir=newer`,
walked by (rev_timestamp, rev_id) with continue `<timestamp>|<rev_id>`; each batch is grouped by
page. As a generator: the revisions, or with `generatetitles` their pages.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.params import (
    BOOLEAN,
    NAMESPACE,
    TIMESTAMP,
    USER,
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.api.query.journal import DELETED_USER, Walk, by_user
from atrium.wiki.api.query.listing import prefixed
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.api.query.revision_lists import content_slots, revision_entry, revision_limit
from atrium.wiki.api.query.revision_params import revision_params
from atrium.wiki.reads import pages as page_reads

R = schema.revision
A = schema.actor
C = schema.comment
P = schema.page
T = schema.text

_CONTENT = {"content", "parsetree"}


ALLREVISIONS = ModuleSpec(
    "allrevisions",
    "ApiQueryAllRevisions",
    "list",
    "arv",
    (
        *revision_params(),
        Param("user", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("dir", enum("newer", "older"), default="older"),
        Param("excludeuser", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("continue"),
        Param("generatetitles", BOOLEAN),
    ),
    generator=True,
)


async def _rows(
    q: QueryRun, params: dict[str, Any], with_text: bool
) -> tuple[list[Row], str | None]:
    spec = ALLREVISIONS
    walk = Walk.of(params, revision_limit(q, spec, params, with_text))
    columns: list[Any] = [*page_reads.REVISION_COLUMNS, P.c.page_namespace, P.c.page_title]
    joined = (
        R.join(C, C.c.comment_id == R.c.rev_comment_id)
        .join(A, A.c.actor_id == R.c.rev_actor)
        .join(P, P.c.page_id == R.c.rev_page)
    )
    if with_text:
        columns.append(T.c.old_text)
        joined = joined.join(T, T.c.old_id == R.c.rev_text_id)
    query = walk.window(sa.select(*columns).select_from(joined), R.c.rev_timestamp)
    if params["namespace"]:
        query = query.where(P.c.page_namespace.in_(params["namespace"]))
    query = by_user(spec, params, query)
    if (
        params["user"] is not None or params["excludeuser"] is not None
    ) and not q.ctx.caller.allowed("deletedhistory"):
        query = query.where(R.c.rev_deleted.op("&")(DELETED_USER) == 0)
    return await walk.page(
        q, query, (R.c.rev_timestamp, R.c.rev_id), (str, int), ("rev_timestamp", "rev_id")
    )


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    props = set(params["prop"])
    with_text = bool(props & _CONTENT)
    rows, cont = await _rows(q, params, with_text)
    slots = content_slots(q, ALLREVISIONS, params, props)
    tags = (
        await q.ctx.db.read(page_reads.revision_tags, [int(r["rev_id"]) for r in rows])
        if "tags" in props
        else {}
    )
    groups: dict[int, dict[str, Any]] = {}
    for row in rows:
        page_id = int(row["rev_page"])
        rev = revision_entry(q, row, props, slots, tags)
        group = groups.get(page_id)
        if group is None:
            ns = int(row["page_namespace"])
            group = {
                "pageid": page_id,
                "revisions": [],
                "ns": ns,
                "title": prefixed(q, ns, str(row["page_title"])),
            }
            groups[page_id] = group
        group["revisions"].append(rev)
    q.data["allrevisions"] = list(groups.values())
    if cont is not None:
        q.continuation.add(ALLREVISIONS, "continue", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rows(q, params, False)
    if cont is not None:
        q.continuation.add_generator(ALLREVISIONS, "continue", cont)
    if params["generatetitles"]:
        return GeneratedPages(page_ids=list(dict.fromkeys(int(r["rev_page"]) for r in rows)))
    return GeneratedPages(revids=[int(r["rev_id"]) for r in rows])


MODULE = QueryModule(ALLREVISIONS, run, generate)

"""`prop=extlinks`: the external URLs of each page of the set, as ApiQueryExternalLinks.

External links sort by their stored `el_index` (atrium.wiki.wikitext.linkfilter: the host's labels
reversed, so links group by domain), a protocol-relative one shown once; their continuation is
`from|index|id`, without `from` when the set has one page.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.wiki import schema
from atrium.wiki.api.params import (
    BOOLEAN,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun, badcontinue, cont_int
from atrium.wiki.wikitext.linkfilter import PROTOCOL_NAMES

EXTLINKS = ModuleSpec(
    "extlinks",
    "ApiQueryExternalLinks",
    "prop",
    "el",
    (
        limit(default=10),
        Param("continue"),
        Param(
            "protocol",
            enum(*PROTOCOL_NAMES),
            default="",
        ),
        Param("query"),
        Param("expandurl", BOOLEAN),
    ),
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    ids = sorted(q.pages.good)
    if not ids:
        return
    el = schema.externallinks
    rows = await q.ctx.db.read(
        lambda conn: conn.all(
            sa.select(el.c.el_id, el.c.el_from, el.c.el_to, el.c.el_index).where(
                el.c.el_from.in_(ids)
            )
        )
    )
    protocol = params["protocol"]
    query = params["query"]
    if query and not protocol:
        protocol = "http"
    entries = []
    for row in rows:
        url = str(row["el_to"])
        index = str(row["el_index"])
        if not protocol and url.startswith("//") and index.startswith("https:"):
            continue  # a protocol-relative link once, by its http: row
        if protocol:
            lead = "mailto:" if protocol == "mailto" else f"{protocol}://"
            if not url.lower().startswith(lead):
                continue
            if query and not url[len(lead) :].startswith(query):
                continue
        entries.append((int(row["el_from"]), index, int(row["el_id"]), url))
    entries.sort()
    single = len(ids) == 1
    if params["continue"] is not None:
        parts = params["continue"].split("|")
        if single and len(parts) == 2:
            parts = [str(ids[0]), *parts]
        if len(parts) != 3 or not parts[0].isdigit() or not parts[2].isdigit():
            raise badcontinue()
        start = (cont_int(parts[0]), parts[1], cont_int(parts[2]))
        entries = [e for e in entries if e[:3] >= start]
    limit = params["limit"]
    if len(entries) > limit:
        nxt = entries[limit]
        value = f"{nxt[1]}|{nxt[2]}" if single else f"{nxt[0]}|{nxt[1]}|{nxt[2]}"
        q.continuation.add(EXTLINKS, "continue", value)
        entries = entries[:limit]
    server_protocol = q.ctx.site.server.split(":", 1)[0]
    for page_id, _, _, url in entries:
        if params["expandurl"] and url.startswith("//"):
            url = f"{server_protocol}:{url}"
        item: dict[str, Any] = {}
        q.ctx.out.content(item, "url", url)
        q.page_entry(page_id).setdefault("extlinks", []).append(item)


MODULE = QueryModule(EXTLINKS, run)

"""`list=exturlusage` (ApiQueryExtLinksUsage): by (el_index_60, el_id); `query` is a LinkFilter
pattern (`*.example.org/path`) matched as the constant prefix of the links' indexes."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
    NAMESPACE,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.listing import (
    from_key,
    prefix_pattern,
    prefixed,
    split_page,
)
from atrium.wiki.api.query.pageset import (
    GeneratedPages,
    QueryModule,
    QueryRun,
    badcontinue,
    cont_int,
)
from atrium.wiki.messages import messages as msg
from atrium.wiki.wikitext.linkfilter import PROTOCOL_NAMES, URL_PROTOCOLS, like_prefix

P = schema.page
EL = schema.externallinks


def _starts_with(column: Any, prefix: str) -> Any:
    """A case-sensitive prefix match (MediaWiki's binary LIKE; SQLite's LIKE ignores case), as
    a range the index can walk."""
    return sa.and_(
        column >= prefix,
        column < prefix + "\U0010ffff",
        sa.func.substr(column, 1, len(prefix)) == prefix,
    )


def _protocol_prefix(protocol: str) -> str | None:
    """ApiQueryExtLinksUsage::getProtocolPrefix: `http` -> `http://`, `mailto` -> `mailto:`."""
    if not protocol:
        return None
    return next((p for p in URL_PROTOCOLS if p.startswith(protocol)), protocol)


EXTURLUSAGE = ModuleSpec(
    "exturlusage",
    "ApiQueryExtLinksUsage",
    "list",
    "eu",
    (
        Param("prop", enum("ids", "title", "url"), default="ids|title|url", multi=True),
        Param("continue"),
        Param(
            "protocol",
            enum(*PROTOCOL_NAMES),
            default="",
        ),
        Param("query"),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        limit(),
        Param("expandurl", BOOLEAN),
    ),
    generator=True,
)


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    protocol = _protocol_prefix(params["protocol"])
    text = params["query"]
    query = sa.select(
        EL.c.el_id, EL.c.el_from, EL.c.el_to, EL.c.el_index_60, P.c.page_namespace, P.c.page_title
    ).select_from(EL.join(P, P.c.page_id == EL.c.el_from))
    keys: list[Any] = [EL.c.el_index_60, EL.c.el_id]
    if text:
        prefix = like_prefix((protocol or "http://") + text)
        if prefix is None:
            raise ApiUsageError(
                "badquery",
                msg.api("apierror-badquery"),
                module=EXTURLUSAGE.path,
            )
        if len(prefix) >= 60:
            # The prefix fills el_index_60: one value of it, so the order is the link id.
            query = query.where(EL.c.el_index_60 == prefix[:60])
            keys = [EL.c.el_id]
        else:
            query = query.where(_starts_with(EL.c.el_index_60, prefix))
        # el_index (unbounded, no byte-wise collation on PostgreSQL): the exact comparison only
        query = query.where(sa.func.substr(EL.c.el_index, 1, len(prefix)) == prefix)
    elif protocol:
        query = query.where(_starts_with(EL.c.el_index_60, protocol))
    else:
        # Every protocol: a protocol-relative link once (its http: row).
        query = query.where(
            sa.or_(
                EL.c.el_to.not_like(prefix_pattern("//"), escape="\\"),
                _starts_with(EL.c.el_index_60, "http://"),
            )
        )
    if params["namespace"]:
        query = query.where(P.c.page_namespace.in_(params["namespace"]))
    if params["continue"] is not None:
        parts = params["continue"].split("|")
        if len(parts) != len(keys):
            raise badcontinue()
        values: list[Any] = [unquote(part) for part in parts]
        values[-1] = cont_int(values[-1])
        query = query.where(from_key(keys, values, False))
    limit = params["limit"]
    query = query.order_by(*keys).limit(limit + 1)
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    if following is None:
        return rows, None
    # ApiQueryExtLinksUsage::setContinue escapes `%` and `|` in each value.
    shown = [str(following[k.name]).replace("%", "%25").replace("|", "%7C") for k in keys]
    return rows, "|".join(shown)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    props = set(params["prop"])
    items = []
    for row in rows:
        item: dict[str, Any] = {}
        if "ids" in props:
            item["pageid"] = int(row["el_from"])
        if "title" in props:
            ns = int(row["page_namespace"])
            item["ns"] = ns
            item["title"] = prefixed(q, ns, str(row["page_title"]))
        if "url" in props:
            url = str(row["el_to"])
            if params["expandurl"] and url.startswith("//"):
                url = "http:" + url
            item["url"] = url
        items.append(item)
    q.data["exturlusage"] = items
    if cont is not None:
        q.continuation.add(EXTURLUSAGE, "continue", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rows(q, params)
    if cont is not None:
        q.continuation.add_generator(EXTURLUSAGE, "continue", cont)
    return GeneratedPages(page_ids=list(dict.fromkeys(int(r["el_from"]) for r in rows)))


MODULE = QueryModule(EXTURLUSAGE, run, generate)

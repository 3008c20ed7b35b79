"""Lists over pages and what is recorded about them: `watchlistraw`, `allcategories`,
`pagepropnames`, `pageswithprop`, `random`, `protectedtitles`, `exturlusage`, as MediaWiki 1.39's
ApiQuery* modules; each continue value is the sort key of the first row not shown."""

from __future__ import annotations

import random as random_numbers
import re
from typing import Any
from urllib.parse import unquote

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api import messages as msg
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.listmodules import (
    EXTURLUSAGE,
    PAGEPROPNAMES,
    PAGESWITHPROP,
    PROTECTEDTITLES,
    RANDOM,
)
from atrium.wiki.api.modules.changefeeds import watchlist_owner
from atrium.wiki.api.modules.journalrows import (
    check_show,
    keyset,
    parsed_comment,
    time_window,
    timestamp,
)
from atrium.wiki.api.modules.listing import (
    from_key,
    order,
    parse_continue,
    prefixed,
    split_page,
    starts_with,
    title_key,
)
from atrium.wiki.api.querybase import GeneratedPages, QueryModule, QueryRun, badcontinue, cont_int
from atrium.wiki.api.querymodules import ALLCATEGORIES, WATCHLISTRAW
from atrium.wiki.changes.expiry import api_expiry
from atrium.wiki.linkfilter import URL_PROTOCOLS, like_prefix
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import NS_CATEGORY, InvalidTitle

P = schema.page
WL = schema.watchlist
CL = schema.categorylinks
PP = schema.page_props
PT = schema.protected_titles
EL = schema.externallinks


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


# list=watchlistraw


async def _wr_rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    spec = WATCHLISTRAW
    owner = await watchlist_owner(q, spec, params)
    show = list(params["show"] or ())
    check_show(spec, show, (("changed", "!changed"),))
    descending = params["dir"] == "descending"
    columns = [WL.c.wl_namespace, WL.c.wl_title]
    query = sa.select(WL.c.wl_namespace, WL.c.wl_title, WL.c.wl_notificationtimestamp).where(
        WL.c.wl_user == owner
    )
    if params["namespace"]:
        query = query.where(WL.c.wl_namespace.in_(params["namespace"]))
    if "changed" in show:
        query = query.where(WL.c.wl_notificationtimestamp.is_not(None))
    if "!changed" in show:
        query = query.where(WL.c.wl_notificationtimestamp.is_(None))
    for side in ("fromtitle", "totitle"):
        text = params[side]
        if text is None:
            continue
        try:
            title = q.ctx.site.parser.parse(text)
        except InvalidTitle as exc:
            raise ApiUsageError(
                "invalidtitle",
                msg.api("apierror-invalidtitle", msg.escape_wikitext(text)),
                module=spec.path,
            ) from exc
        # fromtitle: where the walk begins; totitle: where it ends (both inclusive).
        reverse = descending if side == "fromtitle" else not descending
        query = query.where(from_key(columns, [title.ns, title.dbkey], reverse))
    cont = parse_continue(params["continue"], (int, str))
    if cont is not None:
        query = query.where(from_key(columns, cont, descending))
    limit = params["limit"]
    query = query.order_by(*order(columns, descending)).limit(limit + 1)
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    nxt = None
    if following is not None:
        nxt = f"{following['wl_namespace']}|{following['wl_title']}"
    return rows, nxt


async def wr_run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _wr_rows(q, params)
    changed = "changed" in (params["prop"] or ())
    items = []
    for row in rows:
        ns = int(row["wl_namespace"])
        item: dict[str, Any] = {"ns": ns, "title": prefixed(q, ns, str(row["wl_title"]))}
        if changed and row["wl_notificationtimestamp"] is not None:
            item["changed"] = timestamp(row["wl_notificationtimestamp"])
        items.append(item)
    # ApiQueryWatchlistRaw adds its list at the top of the result, beside `query`.
    q.root["watchlistraw"] = items
    if cont is not None:
        q.continuation.add(WATCHLISTRAW, "continue", cont)


async def wr_generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _wr_rows(q, params)
    if cont is not None:
        q.continuation.add_generator(WATCHLISTRAW, "continue", cont)
    return GeneratedPages(titles=[(int(r["wl_namespace"]), str(r["wl_title"])) for r in rows])


WATCHLISTRAW_MODULE = QueryModule(WATCHLISTRAW, wr_run, wr_generate)


# list=allcategories: MediaWiki's `category` table, whose row for a category exists while it has
# members or a description page (WikiPage::updateCategoryCounts adds it, Category::refreshCounts
# drops it once both are gone); here that set is read from categorylinks and the category pages,
# with the counts of categorylinks.


def _ac_bounds(column: Any, start: str | None, end: str | None, prefix: str | None,
               descending: bool) -> list[Any]:  # fmt: skip
    where: list[Any] = []
    if start is not None:
        where.append(column <= start if descending else column >= start)
    if end is not None:
        where.append(column >= end if descending else column <= end)
    if prefix is not None:
        where.append(starts_with(column, prefix))
    return where


async def _ac_rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    descending = params["dir"] == "descending"
    start = title_key(q, params["from"], NS_CATEGORY)
    if params["continue"] is not None:
        start = params["continue"]
    end = title_key(q, params["to"], NS_CATEGORY)
    prefix = title_key(q, params["prefix"], NS_CATEGORY)
    members = sa.select(CL.c.cl_to.label("cat"), CL.c.cl_type.label("type")).where(
        *_ac_bounds(CL.c.cl_to, start, end, prefix, descending)
    )
    described = sa.select(P.c.page_title, sa.null()).where(
        P.c.page_namespace == NS_CATEGORY,
        *_ac_bounds(P.c.page_title, start, end, prefix, descending),
    )
    both = sa.union_all(members, described).subquery()
    name, kind = both.c.cat, both.c.type
    size = sa.func.count(kind)
    query = sa.select(
        name.label("cat"),
        size.label("size"),
        sa.func.sum(sa.case((kind == "page", 1), else_=0)).label("pages"),
        sa.func.sum(sa.case((kind == "file", 1), else_=0)).label("files"),
        sa.func.sum(sa.case((kind == "subcat", 1), else_=0)).label("subcats"),
    ).group_by(name)
    if params["min"] is not None:
        query = query.having(size >= params["min"])
    if params["max"] is not None:
        query = query.having(size <= params["max"])
    limit = params["limit"]
    query = query.order_by(name.desc() if descending else name).limit(limit + 1)
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    return rows, None if following is None else str(following["cat"])


async def ac_run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _ac_rows(q, params)
    props = set(params["prop"] or ())
    hidden: set[str] = set()
    if "hidden" in props and rows:
        names = [str(r["cat"]) for r in rows]
        hidden = set(
            await q.ctx.db.read(
                lambda conn: conn.scalars(
                    sa.select(P.c.page_title)
                    .select_from(P.join(PP, PP.c.pp_page == P.c.page_id))
                    .where(
                        P.c.page_namespace == NS_CATEGORY,
                        P.c.page_title.in_(names),
                        PP.c.pp_propname == "hiddencat",
                    )
                )
            )
        )
    items = []
    for row in rows:
        item: dict[str, Any] = {}
        q.ctx.out.content(item, "category", str(row["cat"]).replace("_", " "))
        if "size" in props:
            item["size"] = int(row["size"])
            item["pages"] = int(row["pages"] or 0)
            item["files"] = int(row["files"] or 0)
            item["subcats"] = int(row["subcats"] or 0)
        if "hidden" in props:
            q.ctx.out.flag(item, "hidden", str(row["cat"]) in hidden)
        items.append(item)
    q.data["allcategories"] = items
    if cont is not None:
        q.continuation.add(ALLCATEGORIES, "continue", cont)


async def ac_generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _ac_rows(q, params)
    if cont is not None:
        q.continuation.add_generator(ALLCATEGORIES, "continue", cont)
    return GeneratedPages(titles=[(NS_CATEGORY, str(r["cat"])) for r in rows])


ALLCATEGORIES_MODULE = QueryModule(ALLCATEGORIES, ac_run, ac_generate)


# list=pagepropnames


async def ppn_run(q: QueryRun, params: dict[str, Any]) -> None:
    query = sa.select(PP.c.pp_propname).distinct()
    if params["continue"] is not None:
        query = query.where(PP.c.pp_propname >= params["continue"])
    limit = params["limit"]
    query = query.order_by(PP.c.pp_propname).limit(limit + 1)
    names = [str(n) for n in await q.ctx.db.read(lambda conn: conn.scalars(query))]
    q.data["pagepropnames"] = [{"propname": n} for n in names[:limit]]
    if len(names) > limit:
        q.continuation.add(PAGEPROPNAMES, "continue", names[limit])


PAGEPROPNAMES_MODULE = QueryModule(PAGEPROPNAMES, ppn_run)


# list=pageswithprop


async def _pwp_rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    descending = params["dir"] == "descending"
    query = (
        sa.select(PP.c.pp_page, PP.c.pp_value, P.c.page_namespace, P.c.page_title)
        .select_from(PP.join(P, P.c.page_id == PP.c.pp_page))
        .where(PP.c.pp_propname == params["propname"])
    )
    cont = parse_continue(params["continue"], (int,))
    if cont is not None:
        query = query.where(from_key([PP.c.pp_page], cont, descending))
    limit = params["limit"]
    query = query.order_by(*order([PP.c.pp_page], descending)).limit(limit + 1)
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    return rows, None if following is None else str(following["pp_page"])


async def pwp_run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _pwp_rows(q, params)
    props = set(params["prop"])
    items = []
    for row in rows:
        item: dict[str, Any] = {}
        if "ids" in props:
            item["pageid"] = int(row["pp_page"])
        if "title" in props:
            ns = int(row["page_namespace"])
            item["ns"] = ns
            item["title"] = prefixed(q, ns, str(row["page_title"]))
        if "value" in props:
            item["value"] = row["pp_value"]
        items.append(item)
    q.data["pageswithprop"] = items
    if cont is not None:
        q.continuation.add(PAGESWITHPROP, "continue", int(cont))


async def pwp_generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _pwp_rows(q, params)
    if cont is not None:
        q.continuation.add_generator(PAGESWITHPROP, "continue", int(cont))
    return GeneratedPages(page_ids=[int(r["pp_page"]) for r in rows])


PAGESWITHPROP_MODULE = QueryModule(PAGESWITHPROP, pwp_run, pwp_generate)


# list=random: from a random point of page_random, wrapping around once (ApiQueryRandom);
# continue `<rand>|<page_random>|<page_id>|<wrapped 0/1>`.

_RAND = re.compile(r"^0\.\d+$")


def _rand_text(value: float) -> str:
    text = repr(float(value))
    return text if _RAND.match(text) else f"{value:.17f}"


async def _rn_rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    filterredir = params["filterredir"]
    if params["redirect"]:
        filterredir = "redirects"

    def base() -> Any:
        query = sa.select(P.c.page_id, P.c.page_namespace, P.c.page_title, P.c.page_random)
        if params["namespace"]:
            query = query.where(P.c.page_namespace.in_(params["namespace"]))
        if filterredir == "redirects":
            query = query.where(P.c.page_is_redirect == sa.true())
        elif filterredir == "nonredirects":
            query = query.where(P.c.page_is_redirect == sa.false())
        return query

    cont = params["continue"]
    if cont is not None:
        parts = cont.split("|")
        if (
            len(parts) != 4
            or not _RAND.match(parts[0])
            or not _RAND.match(parts[1])
            or not parts[2].isdigit()
            or parts[3] not in ("0", "1")
        ):
            raise badcontinue()
        rand, start, start_id = float(parts[0]), float(parts[1]), cont_int(parts[2])
        end: float | None = rand if parts[3] == "1" else None
    else:
        rand = float(f"{random_numbers.random():.12f}")
        start, start_id, end = rand, 0, None
    limit = params["limit"]
    keys = [P.c.page_random, P.c.page_id]

    def run_query(
        conn: Conn, count: int, lower: tuple[float, int] | None, upper: float | None
    ) -> tuple[list[Row], Row | None]:
        query = base()
        if lower is not None:
            query = query.where(from_key(keys, list(lower), False))
        if upper is not None:
            query = query.where(P.c.page_random < upper)
        query = query.order_by(*keys).limit(count + 1)
        return split_page(conn.all(query), count)

    def read(conn: Conn) -> tuple[list[Row], str | None]:
        rows, following = run_query(conn, limit, (start, start_id), end)
        wrapped = end
        if end is None and following is None:
            wrapped = rand
            more, following = run_query(conn, limit - len(rows), None, rand)
            rows = rows + more
        if following is None:
            return rows, None
        flag = 0 if wrapped is None else 1
        nxt = f"{_rand_text(rand)}|{_rand_text(following['page_random'])}|"
        return rows, nxt + f"{following['page_id']}|{flag}"

    return await q.ctx.db.read(read)


async def rn_run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rn_rows(q, params)
    q.data["random"] = [
        {
            "id": int(r["page_id"]),
            "ns": int(r["page_namespace"]),
            "title": prefixed(q, int(r["page_namespace"]), str(r["page_title"])),
        }
        for r in rows
    ]
    if cont is not None:
        q.continuation.add(RANDOM, "continue", cont)


async def rn_generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rn_rows(q, params)
    if cont is not None:
        q.continuation.add_generator(RANDOM, "continue", cont)
    return GeneratedPages(page_ids=[int(r["page_id"]) for r in rows])


RANDOM_MODULE = QueryModule(RANDOM, rn_run, rn_generate)


# list=protectedtitles


async def _pt_rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    newer = params["dir"] == "newer"
    actor_user = schema.user
    query = (
        sa.select(PT, schema.comment.c.comment_text, actor_user.c.user_name)
        .select_from(
            PT.join(schema.comment, schema.comment.c.comment_id == PT.c.pt_reason_id).outerjoin(
                actor_user, actor_user.c.user_id == PT.c.pt_user
            )
        )
        .where(sa.or_(PT.c.pt_expiry == "infinity", PT.c.pt_expiry > now14()))
    )
    query = time_window(query, PT.c.pt_timestamp, params["start"], params["end"], newer)
    if params["namespace"]:
        query = query.where(PT.c.pt_namespace.in_(params["namespace"]))
    if params["level"]:
        query = query.where(PT.c.pt_create_perm.in_(params["level"]))
    limit = params["limit"]
    query = keyset(
        query, [PT.c.pt_timestamp, PT.c.pt_namespace, PT.c.pt_title], params["continue"],
        (str, int, str), newer,
    ).limit(limit + 1)  # fmt: skip
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    nxt = None
    if following is not None:
        nxt = f"{following['pt_timestamp']}|{following['pt_namespace']}|{following['pt_title']}"
    return rows, nxt


async def pt_run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _pt_rows(q, params)
    props = set(params["prop"])
    items = []
    for row in rows:
        ns = int(row["pt_namespace"])
        item: dict[str, Any] = {"ns": ns, "title": prefixed(q, ns, str(row["pt_title"]))}
        if "timestamp" in props:
            item["timestamp"] = timestamp(row["pt_timestamp"])
        if "user" in props and row["user_name"] is not None:
            item["user"] = row["user_name"]
        if "userid" in props or "user" in props:
            item["userid"] = int(row["pt_user"])
        if "comment" in props:
            item["comment"] = row["comment_text"]
        if "parsedcomment" in props:
            item["parsedcomment"] = parsed_comment(str(row["comment_text"]))
        if "expiry" in props:
            item["expiry"] = api_expiry(str(row["pt_expiry"]), "infinity")
        if "level" in props:
            item["level"] = row["pt_create_perm"]
        items.append(item)
    q.data["protectedtitles"] = items
    if cont is not None:
        q.continuation.add(PROTECTEDTITLES, "continue", cont)


async def pt_generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _pt_rows(q, params)
    if cont is not None:
        q.continuation.add_generator(PROTECTEDTITLES, "continue", cont)
    return GeneratedPages(titles=[(int(r["pt_namespace"]), str(r["pt_title"])) for r in rows])


PROTECTEDTITLES_MODULE = QueryModule(PROTECTEDTITLES, pt_run, pt_generate)


# list=exturlusage: by (el_index_60, el_id), as ApiQueryExtLinksUsage; `query` is a LinkFilter
# pattern (`*.example.org/path`) matched as the constant prefix of the links' indexes.


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


async def _eu_rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
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
                EL.c.el_to.not_like(_like_prefix("//"), escape="\\"),
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


async def eu_run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _eu_rows(q, params)
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


async def eu_generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _eu_rows(q, params)
    if cont is not None:
        q.continuation.add_generator(EXTURLUSAGE, "continue", cont)
    return GeneratedPages(page_ids=list(dict.fromkeys(int(r["el_from"]) for r in rows)))


EXTURLUSAGE_MODULE = QueryModule(EXTURLUSAGE, eu_run, eu_generate)

MODULES = (
    WATCHLISTRAW_MODULE,
    ALLCATEGORIES_MODULE,
    PAGEPROPNAMES_MODULE,
    PAGESWITHPROP_MODULE,
    RANDOM_MODULE,
    PROTECTEDTITLES_MODULE,
    EXTURLUSAGE_MODULE,
)

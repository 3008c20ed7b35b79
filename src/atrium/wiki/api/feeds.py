"""The feed modules: `feedrecentchanges`, `feedcontributions` and `feedwatchlist`, in RSS 2.0 or
Atom 1.0 (MediaWiki's ChannelFeed elements).

Each runs the query list it shows (`list=recentchanges`, `usercontribs`, `watchlist`) inside the
request, as ApiFeedWatchlist does, so a feed sees exactly what the list would show the caller:
the wiki's audience, hidden users and summaries, and the watchlist's owner and token checks all
apply. What an item says is built as MediaWiki's feeds build it (`feed_items`): the diff of a
recent change, the text of a contribution, the plain summary of a watchlist entry.
"""

from __future__ import annotations

import dataclasses
import html
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any
from urllib.parse import quote, urlencode

from atrium.core.db import Conn
from atrium.wiki.api.actions import Action
from atrium.wiki.api.context import ApiContext, Out
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.feed_items import Change, contribution_description, describe_changes
from atrium.wiki.api.params import (
    BOOLEAN,
    INTEGER,
    NAMESPACE,
    TIMESTAMP,
    USER,
    ModuleSpec,
    Param,
    ParamReader,
    enum,
)
from atrium.wiki.api.query import QUERY, execute
from atrium.wiki.site import GENERATOR, SCRIPT_PATH, Site

FEED_LIMIT = 50  # $wgFeedLimit
_MAX_DAYS = 365 * 1000
MEDIA_TYPE = "application/xml; charset=utf-8"
_FORMAT = Param("feedformat", enum("atom", "rss"), default="rss")


def _spec(name: str, classname: str, params: tuple[Param, ...]) -> ModuleSpec:
    return ModuleSpec(name, classname, "action", "", (_FORMAT, *params))


FEEDRECENTCHANGES = _spec(
    "feedrecentchanges",
    "ApiFeedRecentChanges",
    (
        Param("namespace", NAMESPACE),
        Param("days", INTEGER, default=7, min=1),
        Param("limit", INTEGER, default=50, min=1, max=50),
        Param("from", TIMESTAMP),
        Param("hideminor", BOOLEAN),
        Param("hidebots", BOOLEAN),
        Param("hideanons", BOOLEAN),
        Param("hideliu", BOOLEAN),
        Param("hidepatrolled", BOOLEAN),
        Param("hidemyself", BOOLEAN),
        Param("hidecategorization", BOOLEAN),
        Param("tagfilter"),
    ),
)
FEEDCONTRIBUTIONS = _spec(
    "feedcontributions",
    "ApiFeedContributions",
    (
        Param("user", USER, required=True, subtypes=("name", "ip")),
        Param("namespace", NAMESPACE),
        Param("year", INTEGER),
        Param("month", INTEGER),
        Param("tagfilter"),
        Param("toponly", BOOLEAN),
        Param("newonly", BOOLEAN),
        Param("hideminor", BOOLEAN),
    ),
)
FEEDWATCHLIST = _spec(
    "feedwatchlist",
    "ApiFeedWatchlist",
    (
        Param("hours", INTEGER, default=24, min=1, max=72),
        Param("allrev", BOOLEAN),
        Param("wlowner", USER, subtypes=("name",)),
        Param("wltoken", sensitive=True),
        Param(
            "wlshow",
            enum(
                "!anon",
                "!autopatrolled",
                "!bot",
                "!minor",
                "!patrolled",
                "!unread",
                "anon",
                "autopatrolled",
                "bot",
                "minor",
                "patrolled",
                "unread",
            ),
            multi=True,
        ),
        Param(
            "wltype",
            enum("categorize", "edit", "external", "log", "new"),
            default="edit|new|log|categorize",
            multi=True,
        ),
        Param("wlexcludeuser", USER, subtypes=("name", "ip")),
    ),
)


@dataclasses.dataclass
class Item:
    title: str
    link: str
    summary: str
    timestamp: str  # ISO 8601
    author: str
    # The description as HTML with a link to the talk page (recent changes, contributions), or
    # the summary as plain text naming the author (the watchlist: ApiFeedWatchlist).
    rich: bool = True
    html: str = ""


async def _query(ctx: ApiContext, raw: dict[str, str]) -> dict[str, Any]:
    """Run `action=query` with `raw` inside this request, as the caller."""
    reader = ParamReader(
        {"action": "query", "format": "json", **raw},
        high_limits=False,
        namespaces=ctx.params.namespaces,
    )
    inner = dataclasses.replace(ctx, params=reader, out=Out(2))
    return await execute(inner, QUERY)


def _iso14(moment: datetime) -> str:
    return moment.strftime("%Y%m%d%H%M%S")


def _diff_link(site: Site, title: str, revid: int, oldid: int | None = None) -> str:
    query = {"title": title.replace(" ", "_"), "diff": str(revid)}
    if oldid is not None:
        query["oldid"] = str(oldid)
    return f"{site.server}{SCRIPT_PATH}/index.php?" + urlencode(query, safe=":/")


def _page_link(site: Site, title: str) -> str:
    return site.article_url(quote(title.replace(" ", "_"), safe=":/"))


def _summary(row: dict[str, Any]) -> str:
    if row.get("commenthidden"):
        return "(edit summary removed)"
    return str(row.get("comment") or "")


# The flags of a `list=recentchanges` row that say part of it is revision-deleted.
_HIDDEN_FLAGS = ("userhidden", "commenthidden", "actionhidden", "suppressed")


def _contributions(conn: Conn, site: Site, rows: list[dict[str, Any]]) -> list[str]:
    return [
        contribution_description(
            conn, site, int(row["revid"]), _author(row),
            None if row.get("commenthidden") else row.get("comment"),
        )
        for row in rows
    ]  # fmt: skip


def _author(row: dict[str, Any]) -> str:
    return "" if row.get("userhidden") else str(row.get("user") or "")


def _plain(item: Item) -> str:
    return f"{item.summary} ({item.author})" if item.author else item.summary


def _rss(site: Site, title: str, link: str, description: str, items: list[Item]) -> str:
    now = format_datetime(datetime.now(UTC), usegmt=True)
    out = [
        '<?xml version="1.0"?>\n<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">',
        "\t<channel>",
        f"\t\t<title>{html.escape(title)}</title>",
        f"\t\t<link>{html.escape(link)}</link>",
        f"\t\t<description>{html.escape(description)}</description>",
        "\t\t<language>en</language>",
        f"\t\t<generator>{GENERATOR}</generator>",
        f"\t\t<lastBuildDate>{now}</lastBuildDate>",
    ]
    for item in items:
        out.append("\t\t<item>")
        out.append(f"\t\t\t<title>{html.escape(item.title)}</title>")
        out.append(f"\t\t\t<link>{html.escape(item.link)}</link>")
        out.append(f'\t\t\t<guid isPermaLink="false">{html.escape(item.link)}</guid>')
        body = html.escape(item.html if item.rich else _plain(item))
        out.append(f"\t\t\t<description>{body}</description>")
        if item.timestamp:
            moment = datetime.fromisoformat(item.timestamp.replace("Z", "+00:00"))
            out.append(f"\t\t\t<pubDate>{format_datetime(moment, usegmt=True)}</pubDate>")
        out.append(f"\t\t\t<dc:creator>{html.escape(item.author)}</dc:creator>")
        if item.link and item.rich:
            talk = _page_link(site, "Talk:" + item.title)
            out.append(f"\t\t\t<comments>{html.escape(talk)}</comments>")
        out.append("\t\t</item>")
    out.append("</channel></rss>")
    return "\n".join(out)


def _atom(self_url: str, title: str, link: str, subtitle: str, items: list[Item]) -> str:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = [
        '<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">',
        f"\t<id>{html.escape(self_url)}</id>",
        f"\t<title>{html.escape(title)}</title>",
        f'\t<link rel="self" type="application/atom+xml" href="{html.escape(self_url)}"/>',
        f'\t<link rel="alternate" type="text/html" href="{html.escape(link)}"/>',
        f"\t<updated>{now}</updated>",
        f"\t<subtitle>{html.escape(subtitle)}</subtitle>",
        f"\t<generator>{GENERATOR}</generator>",
    ]
    for item in items:
        out.append("\t<entry>")
        out.append(f"\t\t<id>{html.escape(item.link)}</id>")
        out.append(f"\t\t<title>{html.escape(item.title)}</title>")
        out.append(f'\t\t<link rel="alternate" type="text/html" href="{html.escape(item.link)}"/>')
        out.append(f"\t\t<updated>{item.timestamp or now}</updated>")
        body = html.escape(item.html if item.rich else html.escape(_plain(item)))
        out.append(f'\t\t<summary type="html">{body}</summary>')
        out.append(f"\t\t<author><name>{html.escape(item.author)}</name></author>")
        out.append("\t</entry>")
    out.append("</feed>")
    return "\n".join(out)


def _send(
    ctx: ApiContext, spec_format: str, title: str, link: str, text: str, items: list[Item]
) -> dict[str, Any]:
    """The feed as the response's body; `title` names the wiki as `$1`."""
    site = ctx.site
    shown = title.replace("$1", site.sitename)
    if spec_format == "atom":
        raw = {k: v for k, v in ctx.params.raw.items() if k != "wltoken"}
        self_url = site.api_url + "?" + urlencode(raw)
        body = _atom(self_url, shown, link, text, items)
    else:
        body = _rss(site, shown, link, text, items)
    ctx.raw_body = (body.encode(), MEDIA_TYPE)
    return {}


async def feed_recent_changes(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    # Any number of days back (no maximum, as in MediaWiki): past the calendar's start, all.
    days = min(params["days"], _MAX_DAYS)
    since = datetime.now(UTC) - timedelta(days=days)
    end = _iso14(since) if days < _MAX_DAYS else "00000000000000"
    if params["from"] is not None and params["from"] > end:
        end = params["from"]
    show = [
        flag
        for name, flag in (
            ("hideminor", "!minor"), ("hidebots", "!bot"), ("hideanons", "!anon"),
            ("hideliu", "anon"), ("hidepatrolled", "!patrolled"),
        )
        if params[name]
    ]  # fmt: skip
    raw = {
        "list": "recentchanges",
        "rcprop": "title|ids|sizes|flags|user|comment|timestamp|loginfo",
        "rclimit": str(params["limit"]),
        "rcend": end,
        "rctype": "edit|new|log" if params["hidecategorization"] else "edit|new|log|categorize",
    }
    if show:
        raw["rcshow"] = "|".join(show)
    if params["namespace"] is not None:
        raw["rcnamespace"] = str(params["namespace"])
    if params["hidemyself"]:
        raw["rcexcludeuser"] = ctx.caller.name
    if params["tagfilter"]:
        raw["rctag"] = params["tagfilter"]
    result = await _query(ctx, raw)
    changes = [
        Change(
            title=ctx.site.parser.parse(row["title"]), page_id=int(row.get("pageid") or 0),
            kind=row.get("type", ""), user=None if row.get("userhidden") else row.get("user"),
            revid=int(row.get("revid") or 0), old_revid=int(row.get("old_revid") or 0),
            timestamp=row.get("timestamp", ""), comment=row.get("comment") or "",
            hidden=any(row.get(flag) for flag in _HIDDEN_FLAGS),
            logid=int(row.get("logid") or 0),
        )
        for row in result.get("query", {}).get("recentchanges", [])
    ]  # fmt: skip
    items = []
    for change in await ctx.db.read(describe_changes, ctx.site, changes):
        title = ctx.site.parser.prefixed_text(change.title.ns, change.title.dbkey)
        link = (
            _diff_link(ctx.site, title, change.revid, change.old_revid)
            if change.revid
            else _page_link(ctx.site, title)
        )
        items.append(Item(title, link, "", change.timestamp, change.user or "",
                          html=change.description))  # fmt: skip
    return _send(
        ctx, params["feedformat"], "$1  - Recent changes [en]",
        _page_link(ctx.site, "Special:RecentChanges"),
        "Track the most recent changes to the wiki in this feed.", items,
    )  # fmt: skip


async def feed_contributions(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    user = params["user"]
    raw = {
        "list": "usercontribs",
        "ucuser": user,
        "ucprop": "ids|title|timestamp|comment|size|flags",
        "uclimit": str(FEED_LIMIT),
    }
    if params["namespace"] is not None:
        raw["ucnamespace"] = str(params["namespace"])
    year, month = params["year"], params["month"]
    if year is not None or month is not None:
        # Contributions up to the end of that month (of that year, or of the current one); a
        # month that is none is the whole year (ReverseChronologicalPager::getOffsetDate).
        now = datetime.now(UTC)
        year = min(max(year or now.year, 1), 9998)
        month = month if month is not None and 1 <= month <= 12 else 12
        following = (datetime(year, month, 1, tzinfo=UTC) + timedelta(days=32)).replace(day=1)
        raw["ucstart"] = _iso14(following - timedelta(seconds=1))
    show = [f for name, f in (("toponly", "top"), ("newonly", "new"), ("hideminor", "!minor"))
            if params[name]]  # fmt: skip
    if show:
        raw["ucshow"] = "|".join(show)
    if params["tagfilter"]:
        raw["uctag"] = params["tagfilter"]
    result = await _query(ctx, raw)
    rows = result.get("query", {}).get("usercontribs", [])
    descriptions = await ctx.db.read(_contributions, ctx.site, rows)
    items = [
        Item(row["title"], _diff_link(ctx.site, row["title"], int(row["revid"])), "",
             row.get("timestamp", ""), _author(row), html=description)
        for row, description in zip(rows, descriptions, strict=True)
    ]  # fmt: skip
    link = _page_link(ctx.site, "Special:Contributions/" + user)
    return _send(
        ctx, params["feedformat"], "$1 - User contributions [en]", link, "User contributions",
        items,
    )  # fmt: skip


async def feed_watchlist(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    since = datetime.now(UTC) - timedelta(hours=params["hours"])
    raw = {
        "list": "watchlist",
        "wlprop": "title|user|comment|timestamp|ids|loginfo",
        "wldir": "older",
        "wlend": _iso14(since),
        "wllimit": str(FEED_LIMIT),
        "wltype": "|".join(params["wltype"]),
    }
    for name in ("wlowner", "wltoken", "wlexcludeuser"):
        if params[name] is not None:
            raw[name] = params[name]
    if params["wlshow"]:
        raw["wlshow"] = "|".join(params["wlshow"])
    if params["allrev"]:
        raw["wlallrev"] = "1"
    link = _page_link(ctx.site, "Special:Watchlist")
    try:
        result = await _query(ctx, raw)
    except ApiUsageError as exc:
        # ApiFeedWatchlist answers a refusal with a feed of one item naming it.
        error = Item(f"Error ({exc.code})", "", exc.message.text, "", "", rich=False)
        return _send(
            ctx, params["feedformat"], "$1 - Error - Watchlist [en]", link, "Watchlist", [error]
        )
    items = []
    for row in result.get("query", {}).get("watchlist", []):
        revid, logid = int(row.get("revid") or 0), row.get("logid")
        if logid:
            target = f"{ctx.site.server}{SCRIPT_PATH}/index.php?title=Special:Log&logid={logid}"
        elif revid:
            target = _diff_link(ctx.site, row["title"], revid)
        else:
            target = _page_link(ctx.site, row["title"])
        items.append(Item(row["title"], target, _summary(row), row.get("timestamp", ""),
                          _author(row), rich=False))  # fmt: skip
    return _send(ctx, params["feedformat"], "$1 - Watchlist [en]", link, "Watchlist", items)


ACTIONS = [
    Action(FEEDCONTRIBUTIONS, feed_contributions),
    Action(FEEDRECENTCHANGES, feed_recent_changes),
    Action(FEEDWATCHLIST, feed_watchlist),
]

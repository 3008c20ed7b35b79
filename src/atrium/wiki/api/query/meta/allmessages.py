"""`meta=allmessages`: interface messages from the message store, with local overrides."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.api.params import (
    BOOLEAN,
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.messages.store import MESSAGES, format_message
from atrium.wiki.titles import NS_MEDIAWIKI


def overrides(conn: Conn) -> dict[str, str]:
    """Message texts from `MediaWiki:` pages, keyed by lower-cased-first-letter message key."""
    page, rev, text = schema.page, schema.revision, schema.text
    rows = conn.all(
        sa.select(page.c.page_title, text.c.old_text)
        .select_from(
            page.join(rev, rev.c.rev_id == page.c.page_latest).join(
                text, text.c.old_id == rev.c.rev_text_id
            )
        )
        .where(page.c.page_namespace == NS_MEDIAWIKI)
    )
    result: dict[str, str] = {}
    for row in rows:
        key = str(row["page_title"])
        result[key[:1].lower() + key[1:]] = str(row["old_text"])
    return result


def _spaces(text: str) -> str:
    """MediaWiki hands messages out with `&#32;` (the entity that keeps a message's edge spaces
    in its source) as a plain space; clients paste them into edit summaries."""
    return text.replace("&#32;", " ")


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    ctx = q.ctx
    out = ctx.out
    local = await ctx.db.read(overrides)
    wanted: list[str] = params["messages"]
    names = sorted(MESSAGES) if wanted == ["*"] else wanted
    if params["includelocal"] and wanted == ["*"]:
        names = sorted(set(names) | set(local))
    result = []
    for name in names:
        key = name[:1].lower() + name[1:]
        if params["prefix"] and not key.startswith(params["prefix"]):
            continue
        if params["from"] and key < params["from"]:
            continue
        if params["to"] and key > params["to"]:
            continue
        if params["filter"] and params["filter"] not in key:
            continue
        default = MESSAGES.get(key)
        custom = local.get(key)
        customised = custom is not None
        if params["customised"] == "modified" and not customised:
            continue
        if params["customised"] == "unmodified" and customised:
            continue
        entry: dict[str, Any] = {"name": name, "normalizedname": key}
        current = custom if custom is not None else default
        if current is None:
            out.flag_if(entry, "missing", True)
        elif not params["nocontent"]:
            text = format_message(
                _spaces(current), params["args"], ctx.site.sitename, params["enableparser"]
            )
            out.content(entry, "content", text)
        if customised:
            out.flag_if(entry, "customised", True)
        if "default" in params["prop"] and customised:
            if default is None:
                out.flag_if(entry, "defaultmissing", True)
            else:
                entry["default"] = _spaces(default)
        result.append(entry)
    q.data["allmessages"] = result


ALLMESSAGES = ModuleSpec(
    "allmessages",
    "ApiQueryAllMessages",
    "meta",
    "am",
    (
        Param("messages", default="*", multi=True),
        Param("prop", enum("default"), multi=True),
        Param("enableparser", BOOLEAN),
        Param("nocontent", BOOLEAN),
        Param("includelocal", BOOLEAN),
        Param("args", multi=True, allowsduplicates=True),
        Param("filter"),
        Param("customised", enum("all", "modified", "unmodified"), default="all"),
        Param("lang"),
        Param("from"),
        Param("to"),
        Param("title"),
        Param("prefix"),
    ),
)


MODULE = QueryModule(ALLMESSAGES, run)

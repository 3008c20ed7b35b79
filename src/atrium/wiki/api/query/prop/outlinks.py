"""`prop=extlinks`, `prop=langlinks` and `prop=iwlinks`: the external URLs, language links and
interwiki links of each page of the set (MediaWiki's ApiQueryExternalLinks, ApiQueryLangLinks and
ApiQueryIWLinks).

External links sort by their stored `el_index` (atrium.wiki.wikitext.linkfilter: the host's labels
reversed, so links group by domain), a protocol-relative one shown once; their continuation is
`from|index|id`, without `from` when the set has one page.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import sqlalchemy as sa

from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun, badcontinue, cont_int
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import links as linkreads
from atrium.wiki.site import LANGUAGE_NAMES

# English names of the interlanguage prefixes (langname with the default inlanguagecode).
_ENGLISH_NAMES = {
    "ar": "Arabic", "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek",
    "en": "English", "eo": "Esperanto", "es": "Spanish", "fa": "Persian", "fi": "Finnish",
    "fr": "French", "he": "Hebrew", "hu": "Hungarian", "id": "Indonesian", "it": "Italian",
    "ja": "Japanese", "ko": "Korean", "nl": "Dutch", "no": "Norwegian", "pl": "Polish",
    "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sv": "Swedish", "tr": "Turkish",
    "uk": "Ukrainian", "vi": "Vietnamese", "zh": "Chinese",
}  # fmt: skip


def interwiki_url(prefix: str, title: str) -> str:
    return f"https://{prefix}.wikipedia.org/wiki/" + quote(title.replace(" ", "_"), safe=":/()")


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
            enum(
                "",
                "bitcoin",
                "ftp",
                "ftps",
                "geo",
                "git",
                "gopher",
                "http",
                "https",
                "irc",
                "ircs",
                "magnet",
                "mailto",
                "matrix",
                "mms",
                "news",
                "nntp",
                "redis",
                "sftp",
                "sip",
                "sips",
                "sms",
                "ssh",
                "svn",
                "tel",
                "telnet",
                "urn",
                "worldwind",
                "xmpp",
            ),
            default="",
        ),
        Param("query"),
        Param("expandurl", BOOLEAN),
    ),
)


async def run_extlinks(q: QueryRun, params: dict[str, Any]) -> None:
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


def _mustusewith(spec: ModuleSpec, param: str, other: str) -> ApiUsageError:
    return ApiUsageError(
        "invalidparammix",
        msg.api("apierror-invalidparammix-mustusewith", spec.prefix + param, spec.prefix + other),
        module=spec.path,
    )


def _url_deprecation(q: QueryRun, spec: ModuleSpec, params: dict[str, Any]) -> set[str]:
    props = set(params["prop"])
    if params["url"]:
        props.add("url")
    return props


LANGLINKS = ModuleSpec(
    "langlinks",
    "ApiQueryLangLinks",
    "prop",
    "ll",
    (
        Param("prop", enum("autonym", "langname", "url"), multi=True),
        Param("lang"),
        Param("title"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("inlanguagecode", default="en"),
        limit(default=10),
        Param("continue"),
        Param("url", BOOLEAN, deprecated=True),
    ),
)


async def run_langlinks(q: QueryRun, params: dict[str, Any]) -> None:
    if params["title"] is not None and params["lang"] is None:
        raise _mustusewith(LANGLINKS, "title", "lang")
    ids = sorted(q.pages.good)
    if not ids:
        return
    ll = schema.langlinks
    where: list[sa.ColumnElement[bool]] = []
    if params["lang"] is not None:
        where.append(ll.c.ll_lang == params["lang"])
        if params["title"] is not None:
            where.append(ll.c.ll_title == params["title"])
    cont = None
    if params["continue"] is not None:
        parts = params["continue"].split("|", 1)
        if len(parts) != 2 or not parts[0].isdigit():
            raise badcontinue()
        cont = [cont_int(parts[0]), parts[1]]
    limit = params["limit"]
    rows = await q.ctx.db.read(
        lambda conn: linkreads.outgoing(
            conn,
            ll,
            ids,
            ["ll_lang"],
            where=where,
            extra=["ll_title"],
            cont=cont,
            descending=params["dir"] == "descending",
            limit=limit + 1,
        )
    )
    if len(rows) > limit:
        q.continuation.add(
            LANGLINKS, "continue", f"{rows[limit]['ll_from']}|{rows[limit]['ll_lang']}"
        )
        rows = rows[:limit]
    props = _url_deprecation(q, LANGLINKS, params)
    for row in rows:
        lang, title = str(row["ll_lang"]), str(row["ll_title"])
        item: dict[str, Any] = {"lang": lang}
        if "url" in props:
            item["url"] = interwiki_url(lang, title)
        if "langname" in props:
            names = LANGUAGE_NAMES if params["inlanguagecode"] == lang else _ENGLISH_NAMES
            item["langname"] = names.get(lang, lang)
        if "autonym" in props:
            item["autonym"] = LANGUAGE_NAMES.get(lang, lang)
        q.ctx.out.content(item, "title", title)
        q.page_entry(int(row["ll_from"])).setdefault("langlinks", []).append(item)


IWLINKS = ModuleSpec(
    "iwlinks",
    "ApiQueryIWLinks",
    "prop",
    "iw",
    (
        Param("prop", enum("url"), multi=True),
        Param("prefix"),
        Param("title"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        limit(default=10),
        Param("continue"),
        Param("url", BOOLEAN, deprecated=True),
    ),
)


async def run_iwlinks(q: QueryRun, params: dict[str, Any]) -> None:
    if params["title"] is not None and params["prefix"] is None:
        raise _mustusewith(IWLINKS, "title", "prefix")
    ids = sorted(q.pages.good)
    if not ids:
        return
    iwl = schema.iwlinks
    where: list[sa.ColumnElement[bool]] = []
    if params["prefix"] is not None:
        where.append(iwl.c.iwl_prefix == params["prefix"])
        if params["title"] is not None:
            where.append(iwl.c.iwl_title == params["title"])
    cont = None
    if params["continue"] is not None:
        parts = params["continue"].split("|", 2)
        if len(parts) != 3 or not parts[0].isdigit():
            raise badcontinue()
        cont = [cont_int(parts[0]), parts[1], parts[2]]
    limit = params["limit"]
    rows = await q.ctx.db.read(
        lambda conn: linkreads.outgoing(
            conn,
            iwl,
            ids,
            ["iwl_prefix", "iwl_title"],
            where=where,
            cont=cont,
            descending=params["dir"] == "descending",
            limit=limit + 1,
        )
    )
    if len(rows) > limit:
        nxt = rows[limit]
        q.continuation.add(
            IWLINKS, "continue", f"{nxt['iwl_from']}|{nxt['iwl_prefix']}|{nxt['iwl_title']}"
        )
        rows = rows[:limit]
    props = _url_deprecation(q, IWLINKS, params)
    for row in rows:
        prefix, title = str(row["iwl_prefix"]), str(row["iwl_title"])
        item: dict[str, Any] = {"prefix": prefix}
        if "url" in props:
            item["url"] = interwiki_url(prefix, title)
        q.ctx.out.content(item, "title", title.replace("_", " "))
        q.page_entry(int(row["iwl_from"])).setdefault("iwlinks", []).append(item)


MODULES = (
    QueryModule(EXTLINKS, run_extlinks),
    QueryModule(LANGLINKS, run_langlinks),
    QueryModule(IWLINKS, run_iwlinks),
)

"""`meta=siteinfo`: the wiki's configuration, one `siprop` section at a time."""

from __future__ import annotations

import re
import sqlite3
from functools import cache
from importlib import metadata
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.accounts import rights
from atrium.wiki.accounts.audience import anonymous_group_rights
from atrium.wiki.api.context import DB_LAG, ApiContext, Out
from atrium.wiki.api.params import (
    BOOLEAN,
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.messages.language_facts import autonym, known_languages, variant_fallbacks
from atrium.wiki.reads.site_statistics import statistics
from atrium.wiki.reads.users import DEFAULT_OPTIONS
from atrium.wiki.site import (
    ARTICLE_PATH,
    GENERATOR,
    INTERWIKI_URL,
    MAIN_PAGE,
    MAX_ARTICLE_SIZE,
    SCRIPT_PATH,
    WIKI_ID,
)
from atrium.wiki.timestamps import iso, now14
from atrium.wiki.wikitext import linkfilter

URL_PROTOCOLS = (*linkfilter.URL_PROTOCOLS, "//")
EXTENSION_TAGS = ("<pre>", "<nowiki>", "<gallery>", "<indicator>", "<langconvert>")
FUNCTION_HOOKS = (
    "ns", "nse", "urlencode", "lcfirst", "ucfirst", "lc", "uc", "localurl", "localurle",
    "fullurl", "fullurle", "canonicalurl", "canonicalurle", "formatnum", "grammar", "gender",
    "plural", "bidi", "numberofpages", "numberofusers", "numberofactiveusers",
    "numberofarticles", "numberoffiles", "numberofadmins", "numberingroup", "numberofedits",
    "language", "padleft", "padright", "anchorencode", "defaultsort", "filepath",
    "pagesincategory", "pagesize", "protectionlevel", "protectionexpiry", "namespace",
    "namespacee", "namespacenumber", "talkspace", "talkspacee", "subjectspace", "subjectspacee",
    "pagename", "pagenamee", "fullpagename", "fullpagenamee", "rootpagename", "rootpagenamee",
    "basepagename", "basepagenamee", "subpagename", "subpagenamee", "talkpagename",
    "talkpagenamee", "subjectpagename", "subjectpagenamee", "pageid", "revisionid",
    "revisionday", "revisionday2", "revisionmonth", "revisionmonth1", "revisionyear",
    "revisiontimestamp", "revisionuser", "cascadingsources", "int", "special", "speciale",
    "tag", "formatdate", "displaytitle",
)  # fmt: skip
VARIABLES = (
    "!", "=", "currentmonth", "currentmonth1", "currentmonthname", "currentmonthnamegen",
    "currentmonthabbrev", "currentday", "currentday2", "currentdayname", "currentyear",
    "currenttime", "currenthour", "localmonth", "localmonth1", "localmonthname",
    "localmonthnamegen", "localmonthabbrev", "localday", "localday2", "localdayname",
    "localyear", "localtime", "localhour", "numberofarticles", "numberoffiles",
    "numberofedits", "articlepath", "pageid", "sitename", "server", "servername", "scriptpath",
    "stylepath", "pagename", "pagenamee", "fullpagename", "fullpagenamee", "namespace",
    "namespacee", "namespacenumber", "currentweek", "currentdow", "localweek", "localdow",
    "revisionid", "revisionday", "revisionday2", "revisionmonth", "revisionmonth1",
    "revisionyear", "revisiontimestamp", "revisionuser", "revisionsize", "subpagename",
    "subpagenamee", "talkspace", "talkspacee", "subjectspace", "subjectspacee", "talkpagename",
    "talkpagenamee", "subjectpagename", "subjectpagenamee", "numberofusers",
    "numberofactiveusers", "numberofpages", "currentversion", "rootpagename", "rootpagenamee",
    "basepagename", "basepagenamee", "currenttimestamp", "localtimestamp", "directionmark",
    "contentlanguage", "pagelanguage", "numberofadmins", "cascadingsources",
)  # fmt: skip
MAGIC_WORDS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("redirect", ("#REDIRECT",), False),
    ("notoc", ("__NOTOC__",), False),
    ("nogallery", ("__NOGALLERY__",), False),
    ("forcetoc", ("__FORCETOC__",), False),
    ("toc", ("__TOC__",), False),
    ("noeditsection", ("__NOEDITSECTION__",), False),
    ("notitleconvert", ("__NOTITLECONVERT__", "__NOTC__"), False),
    ("nocontentconvert", ("__NOCONTENTCONVERT__", "__NOCC__"), False),
    ("defaultsort", ("DEFAULTSORT:", "DEFAULTSORTKEY:", "DEFAULTCATEGORYSORT:"), True),
    ("displaytitle", ("DISPLAYTITLE",), True),
    ("hiddencat", ("__HIDDENCAT__",), False),
    ("index", ("__INDEX__",), False),
    ("noindex", ("__NOINDEX__",), False),
    ("newsectionlink", ("__NEWSECTIONLINK__",), False),
    ("nonewsectionlink", ("__NONEWSECTIONLINK__",), False),
    ("staticredirect", ("__STATICREDIRECT__",), False),
    ("expectunusedcategory", ("__EXPECTUNUSEDCATEGORY__",), False),
    ("subst", ("SUBST:",), False),
    ("safesubst", ("SAFESUBST:",), False),
    ("msg", ("MSG:",), False),
    ("msgnw", ("MSGNW:",), False),
    ("int", ("INT:",), False),
    ("ns", ("NS:",), False),
    ("pagename", ("PAGENAME",), True),
    ("fullpagename", ("FULLPAGENAME",), True),
    ("namespace", ("NAMESPACE",), True),
    ("sitename", ("SITENAME",), True),
    ("server", ("SERVER",), False),
    ("img_thumbnail", ("thumb", "thumbnail"), True),
    ("img_right", ("right",), True),
    ("img_left", ("left",), True),
    ("img_none", ("none",), True),
    ("img_center", ("center", "centre"), True),
    ("img_framed", ("frame", "framed", "enframed"), True),
    ("img_frameless", ("frameless",), True),
    ("img_width", ("$1px",), True),
    ("img_link", ("link=$1",), True),
    ("img_alt", ("alt=$1",), True),
)
SPECIAL_PAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Allpages", ("AllPages",)),
    ("Categories", ("Categories",)),
    ("CreateAccount", ("CreateAccount",)),
    ("Export", ("Export",)),
    ("Listusers", ("ListUsers", "UserList", "Users")),
    ("Log", ("Log", "Logs")),
    ("Preferences", ("Preferences",)),
    ("Randompage", ("Random", "RandomPage")),
    ("Recentchanges", ("RecentChanges",)),
    ("Search", ("Search",)),
    ("Userlogin", ("UserLogin", "Login")),
    ("Userlogout", ("UserLogout", "Logout")),
    ("Version", ("Version",)),
    ("Watchlist", ("Watchlist",)),
    ("Whatlinkshere", ("WhatLinksHere",)),
)


def _general(ctx: ApiContext, out: Out) -> dict[str, Any]:
    site = ctx.site
    server = site.server
    servername = server.split("//", 1)[-1].split(":", 1)[0].split("/", 1)[0]
    g: dict[str, Any] = {
        "mainpage": MAIN_PAGE,
        "base": site.article_url(MAIN_PAGE.replace(" ", "_")),
        "sitename": site.sitename,
    }
    out.flag(g, "mainpageisdomainroot", False)
    g.update(
        {
            "logo": f"{server}{SCRIPT_PATH}/resources/assets/change-your-logo.svg",
            "generator": GENERATOR,
            "phpversion": "8.2.35",
            "phpsapi": "atrium",
            "dbtype": "sqlite" if ctx.db.is_sqlite else "postgres",
            "dbversion": sqlite3.sqlite_version if ctx.db.is_sqlite else "",
        }
    )
    out.flag(g, "imagewhitelistenabled", False)
    for key in ("langconversion", "linkconversion", "titleconversion"):
        out.flag(g, key, True)
    g.update(
        {
            "linkprefixcharset": "",
            "linkprefix": "",
            "linktrail": "/^([a-z]+)(.*)$/sD",
            "legaltitlechars": " %!\"$&'()*,\\-.\\/0-9:;=?@A-Z\\\\^_`a-z~\\x80-\\xFF+",
            "invalidusernamechars": "@:>",
        }
    )
    out.flag(g, "allunicodefixes", False)
    out.flag(g, "fixarabicunicode", True)
    out.flag(g, "fixmalayalamunicode", True)
    g.update({"case": "first-letter", "lang": "en", "fallback": []})
    out.flag(g, "rtl", False)
    g["fallback8bitEncoding"] = "windows-1252"
    out.flag(g, "readonly", False)
    out.flag(g, "writeapi", True)
    g.update(
        {
            "maxarticlesize": MAX_ARTICLE_SIZE,
            "timezone": "UTC",
            "timeoffset": 0,
            "articlepath": ARTICLE_PATH,
            "scriptpath": SCRIPT_PATH,
            "script": f"{SCRIPT_PATH}/index.php",
            "variantarticlepath": False,
            "server": server,
            "servername": servername,
            "wikiid": WIKI_ID,
            "time": iso(now14()),
        }
    )
    out.flag(g, "misermode", False)
    # $wgEnableUploads: on when the wiki has somewhere to keep files (pywikibot refuses to
    # upload otherwise).
    out.flag(g, "uploadsenabled", site.files_dir is not None)
    g.update({"maxuploadsize": 104857600, "minuploadchunksize": 1024})
    gallery: dict[str, Any] = {"imagesPerRow": 0, "imageWidth": 120, "imageHeight": 120}
    for key in ("captionLength", "showBytes", "showDimensions"):
        out.flag(gallery, key, True)
    gallery["mode"] = "traditional"
    g["galleryoptions"] = gallery
    thumbs = [120, 150, 180, 200, 250, 300]
    sizes = [(320, 240), (640, 480), (800, 600), (1024, 768), (1280, 1024), (2560, 2048)]
    images = [{"width": w, "height": h} for w, h in sizes]
    if out.fv >= 2:
        g["thumblimits"] = {str(i): v for i, v in enumerate(thumbs)}
        g["imagelimits"] = {str(i): v for i, v in enumerate(images)}
    else:
        g["thumblimits"] = thumbs
        g["imagelimits"] = images
    g.update(
        {
            "favicon": f"{server}/favicon.ico",
            "centralidlookupprovider": "local",
            "allcentralidlookupproviders": ["local"],
        }
    )
    out.flag(g, "interwikimagic", True)
    magic: dict[str, Any] = {}
    for key in ("ISBN", "PMID", "RFC"):
        out.flag(magic, key, False)
    g["magiclinks"] = magic if magic else []
    g["categorycollation"] = "uppercase"
    out.flag(g, "nofollowlinks", True)
    g["nofollownsexceptions"] = []
    g["nofollowdomainexceptions"] = ["mediawiki.org"]
    out.flag(g, "externallinktarget", False)
    return g


def _namespaces(ctx: ApiContext, out: Out) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for ns in ctx.site.namespaces.by_id.values():
        entry: dict[str, Any] = {"id": ns.id, "case": ns.case}
        out.content(entry, "name", ns.name)
        out.flag(entry, "subpages", ns.subpages)
        if ns.id != 0:
            entry["canonical"] = ns.canonical
        out.flag(entry, "content", ns.content)
        out.flag(entry, "nonincludable", ns.nonincludable)
        if ns.protection:
            entry["namespaceprotection"] = ns.protection
        result[str(ns.id)] = entry
    return result


def _aliases(ctx: ApiContext, out: Out) -> list[dict[str, Any]]:
    result = []
    for alias, ns_id in ctx.site.namespaces.aliases:
        entry: dict[str, Any] = {"id": ns_id}
        out.content(entry, "alias", alias)
        result.append(entry)
    return result


def group_sizes(conn: Conn) -> dict[str, int]:
    ug = schema.user_groups
    rows = conn.all(sa.select(ug.c.ug_group, sa.func.count().label("n")).group_by(ug.c.ug_group))
    sizes = {str(r["ug_group"]): int(r["n"]) for r in rows}
    users = int(conn.scalar(sa.select(sa.func.count()).select_from(schema.user)))
    sizes["user"] = users
    sizes["autoconfirmed"] = users
    sizes["*"] = users
    return sizes


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    ctx = q.ctx
    out = ctx.out
    data = q.data
    for prop in params["prop"]:
        if prop == "general":
            data["general"] = _general(ctx, out)
        elif prop == "namespaces":
            data["namespaces"] = _namespaces(ctx, out)
        elif prop == "namespacealiases":
            data["namespacealiases"] = _aliases(ctx, out)
        elif prop == "specialpagealiases":
            data["specialpagealiases"] = [
                {"realname": real, "aliases": list(aliases)} for real, aliases in SPECIAL_PAGES
            ]
        elif prop == "magicwords":
            words = []
            for name, aliases, case in MAGIC_WORDS:
                entry: dict[str, Any] = {"name": name, "aliases": list(aliases)}
                out.flag(entry, "case-sensitive", case)
                words.append(entry)
            data["magicwords"] = words
        elif prop == "interwikimap":
            data["interwikimap"] = _interwiki(ctx, out, params["filteriw"])
        elif prop == "dbrepllag":
            data["dbrepllag"] = [{"host": "", "lag": DB_LAG}]
        elif prop == "statistics":
            data["statistics"] = await ctx.db.read(statistics)
        elif prop == "usergroups":
            data["usergroups"] = await _usergroups(ctx, params["numberingroup"])
        elif prop == "libraries":
            data["libraries"] = installed_libraries()
        elif prop == "extensions":
            # MediaWiki lists its extensions and skins (SpecialVersion credits); Atrium loads
            # no extensions and no skins as extensions, so the list is empty.
            data["extensions"] = []
        elif prop == "fileextensions":
            data["fileextensions"] = [{"ext": e} for e in ("png", "gif", "jpg", "jpeg", "webp")]
        elif prop == "rightsinfo":
            data["rightsinfo"] = {"url": "", "text": ""}
        elif prop == "restrictions":
            data["restrictions"] = {
                "types": ["create", "edit", "move", "upload"],
                "levels": ["", "autoconfirmed", "sysop"],
                "cascadinglevels": ["sysop"],
                "semiprotectedlevels": ["autoconfirmed"],
            }
        elif prop == "languages":
            langs = []
            for facts in known_languages().values():
                entry = {"code": facts.code, "bcp47": facts.bcp47}
                out.content(entry, "name", facts.autonym)
                langs.append(entry)
            data["languages"] = langs
        elif prop == "languagevariants":
            # The languages with a converter, each variant with its fallbacks: a kvp object
            # keyed by language code, then by variant.
            data["languagevariants"] = {
                code: {variant: {"fallbacks": list(chain)} for variant, chain in table.items()}
                for code, table in variant_fallbacks().items()
            }
        elif prop == "skins":
            skin: dict[str, Any] = {"code": "vector"}
            out.content(skin, "name", "Vector")
            out.flag_if(skin, "default", True)
            data["skins"] = [skin]
        elif prop == "extensiontags":
            data["extensiontags"] = list(EXTENSION_TAGS)
        elif prop == "functionhooks":
            data["functionhooks"] = list(FUNCTION_HOOKS)
        elif prop == "showhooks":
            # `{"name": hook, "subscribers": [...]}` per $wgHooks entry; Atrium has no hooks.
            data["showhooks"] = []
        elif prop == "variables":
            data["variables"] = list(VARIABLES)
        elif prop == "protocols":
            data["protocols"] = list(URL_PROTOCOLS)
        elif prop == "defaultoptions":
            data["defaultoptions"] = dict(DEFAULT_OPTIONS)
        elif prop == "uploaddialog":
            data["uploaddialog"] = _upload_dialog()


@cache
def installed_libraries() -> list[dict[str, str]]:
    """`siprop=libraries`: what the wiki runs on, as `{"name", "version"}` sorted by name.

    MediaWiki lists the PHP libraries Composer installed (vendor/composer/installed.json, without
    extensions and skins). Atrium has no PHP and no Composer; its counterpart is the Python
    distributions it requires at run time (the `dependencies` of the `atrium` distribution), so
    those are listed, by their PyPI names and installed versions. A requirement that is not
    installed is left out, as Composer lists only what is installed.
    """
    try:
        requires = metadata.requires("atrium") or []
    except metadata.PackageNotFoundError:
        return []
    names: set[str] = set()
    for requirement in requires:
        if "extra ==" in requirement:
            continue
        names.add(re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0])
    libraries = []
    for name in sorted(names, key=str.lower):
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        libraries.append({"name": name, "version": version})
    return libraries


def _interwiki(ctx: ApiContext, out: Out, filteriw: str | None) -> list[dict[str, Any]]:
    if filteriw == "local":
        return []
    entries = []
    for code in sorted(ctx.site.languages):
        entry: dict[str, Any] = {"prefix": code}
        entry["language"] = autonym(code) or code
        entry["url"] = INTERWIKI_URL.replace("{prefix}", code)
        entries.append(entry)
    return entries


async def _usergroups(ctx: ApiContext, numberingroup: bool) -> list[dict[str, Any]]:
    sizes = await ctx.db.read(group_sizes) if numberingroup else {}
    groups = []
    for name, granted in rights.GROUP_RIGHTS.items():
        if name == "*":
            granted = anonymous_group_rights(ctx.site.audience)
        entry: dict[str, Any] = {"name": name, "rights": list(granted)}
        if numberingroup:
            entry["number"] = sizes.get(name, 0)
        groups.append(entry)
    return groups


def _upload_dialog() -> dict[str, Any]:
    return {
        "fields": {"description": True, "date": False, "categories": False},
        "licensemessages": {"local": "generic-local", "foreign": "generic-foreign"},
        "comment": {"local": "", "foreign": ""},
        "format": {
            "filepage": "$DESCRIPTION",
            "description": "$TEXT",
            "ownwork": "",
            "license": "",
            "uncategorized": "",
        },
    }


SITEINFO = ModuleSpec(
    "siteinfo",
    "ApiQuerySiteinfo",
    "meta",
    "si",
    (
        Param(
            "prop",
            enum(
                "dbrepllag",
                "defaultoptions",
                "extensions",
                "extensiontags",
                "fileextensions",
                "functionhooks",
                "general",
                "interwikimap",
                "languages",
                "languagevariants",
                "libraries",
                "magicwords",
                "namespacealiases",
                "namespaces",
                "protocols",
                "restrictions",
                "rightsinfo",
                "showhooks",
                "skins",
                "specialpagealiases",
                "statistics",
                "uploaddialog",
                "usergroups",
                "variables",
            ),
            default="general",
            multi=True,
        ),
        Param("filteriw", enum("!local", "local")),
        Param("showalldb", BOOLEAN),
        Param("numberingroup", BOOLEAN),
        Param("inlanguagecode"),
    ),
)


MODULE = QueryModule(SITEINFO, run)

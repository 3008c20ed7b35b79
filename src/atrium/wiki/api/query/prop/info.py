"""`prop=info`: basic page information (content model, language, touched, length, flags, URLs)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import content_models, schema
from atrium.wiki.api.params import (
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.api.query.pageset import PageRow, QueryModule, QueryRun
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.site import SCRIPT_PATH
from atrium.wiki.timestamps import iso, now14
from atrium.wiki.titles import NS_FILE, NS_MEDIA, NS_SPECIAL

_ACTION_RIGHTS = {
    "edit": "edit",
    "create": "createpage",
    "move": "move",
    "read": "read",
    "delete": "delete",
}


def _common(
    q: QueryRun,
    entry: dict[str, Any],
    ns: int,
    dbkey: str,
    page: PageRow | None,
    props: set[str],
    params: dict[str, Any],
) -> None:
    ctx = q.ctx
    out = ctx.out
    site = ctx.site
    parser = site.parser
    # A missing page shows the model it would be created in.
    entry["contentmodel"] = (
        page.content_model
        if page is not None
        else content_models.default_model(ns, dbkey.replace("_", " "))
    )
    entry["pagelanguage"] = "en"
    entry["pagelanguagehtmlcode"] = "en"
    entry["pagelanguagedir"] = "ltr"
    if page is not None:
        entry["touched"] = iso(page.touched)
        entry["lastrevid"] = page.latest
        entry["length"] = page.length
        out.flag_if(entry, "redirect", page.is_redirect)
        out.flag_if(entry, "new", page.is_new)
    prefixed = parser.prefixed_dbkey(ns, dbkey)
    if "protection" in props:
        entry["protection"] = []
        entry["restrictiontypes"] = (
            (["edit", "move"] if ns not in (NS_FILE,) else ["edit", "move", "upload"])
            if page
            else ["create"]
        )
    if "url" in props:
        url = site.article_url(prefixed)
        entry["fullurl"] = url
        entry["editurl"] = f"{site.server}{SCRIPT_PATH}/index.php?title={prefixed}&action=edit"
        entry["canonicalurl"] = url
    if "readable" in props:
        out.flag(entry, "readable", ctx.caller.allowed("read"))
    if "preload" in props:
        entry["preload"] = None if page is not None else ""
    if "displaytitle" in props:
        entry["displaytitle"] = parser.prefixed_text(ns, dbkey)
    if "varianttitles" in props:
        entry["varianttitles"] = {"en": parser.prefixed_text(ns, dbkey)}
    if "associatedpage" in props and ns >= 0:
        other = ns + 1 if ns % 2 == 0 else ns - 1
        entry["associatedpage"] = parser.prefixed_text(other, dbkey)
    if params["testactions"]:
        actions: dict[str, Any] = {}
        for action in params["testactions"]:
            right = _ACTION_RIGHTS.get(action, action)
            if action == "edit" and page is None:
                right = "createpage"
            allowed = ctx.caller.allowed(right) and ns >= 0
            level = params.get("_levels", {}).get(
                (ns, dbkey, "create" if page is None and action == "edit" else action)
            )
            if allowed and level:
                allowed = ctx.caller.allowed(_LEVEL_RIGHTS.get(level, level))
            if params["testactionsdetail"] == "boolean":
                actions[action] = allowed if out.fv >= 2 else ("" if allowed else None)
                if actions[action] is None:
                    del actions[action]
            else:
                actions[action] = (
                    []
                    if allowed
                    else [{"code": "permissiondenied", "text": "You do not have permission."}]
                )
        entry["actions"] = actions


_LEVEL_RIGHTS = {"sysop": "editprotected", "autoconfirmed": "editsemiprotected"}


async def _levels(q: QueryRun) -> dict[tuple[int, str, str], str]:
    """The protection level of each (title, action) in the set, for `intestactions`."""
    missing = {(m.ns, m.dbkey) for m in q.pages.missing if m.ns >= 0}
    pages, created = await q.ctx.db.read(_protection_rows, list(q.pages.good), list(missing))
    levels: dict[tuple[int, str, str], str] = {}
    for row in pages:
        page = q.pages.good.get(int(row["pr_page"]))
        if page is not None:
            levels[(page.ns, page.dbkey, str(row["pr_type"]))] = str(row["pr_level"])
    for row in created:
        levels[(int(row["pt_namespace"]), str(row["pt_title"]), "create")] = str(
            row["pt_create_perm"]
        )
    return levels


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    props = set(params["prop"])
    if params["testactions"]:
        params = params | {"_levels": await _levels(q)}
    for page in q.pages.good.values():
        _common(q, q.page_entry(page.page_id), page.ns, page.dbkey, page, props, params)
    for missing in q.pages.missing:
        if missing.ns in (NS_SPECIAL, NS_MEDIA):
            continue
        _common(q, q.page_entry(missing.fake_id), missing.ns, missing.dbkey, None, props, params)
    if props & {"talkid", "subjectid"}:
        await _associated_ids(q, props)
    if "protection" in props:
        await _protection(q)
    if props & {"watched", "notificationtimestamp", "watchers", "visitingwatchers"}:
        await _watching(q, props)
    if "displaytitle" in props:
        await _display_titles(q)


def _expiry(value: object) -> str:
    text = str(value or "infinity")
    return "infinity" if text == "infinity" or not text.isdigit() else iso(text)


def _protection_rows(
    conn: Conn, page_ids: list[int], titles: list[tuple[int, str]]
) -> tuple[list[Row], list[Row]]:
    pr, pt = schema.page_restrictions, schema.protected_titles
    now = now14()
    live = sa.or_(pr.c.pr_expiry.is_(None), pr.c.pr_expiry == "infinity", pr.c.pr_expiry > now)
    pages = (
        conn.all(sa.select(pr).where(pr.c.pr_page.in_(page_ids), live).order_by(pr.c.pr_id))
        if page_ids
        else []
    )
    created = (
        conn.all(
            sa.select(pt).where(
                sa.or_(
                    *(sa.and_(pt.c.pt_namespace == ns, pt.c.pt_title == key) for ns, key in titles)
                ),
                sa.or_(pt.c.pt_expiry == "infinity", pt.c.pt_expiry > now),
            )
        )
        if titles
        else []
    )
    return pages, created


async def _protection(q: QueryRun) -> None:
    """ApiQueryInfo::getProtectionInfo: page_restrictions of existing pages, protected_titles
    (`create`) of missing ones."""
    missing = {(m.ns, m.dbkey): m.fake_id for m in q.pages.missing if m.ns >= 0}
    pages, created = await q.ctx.db.read(_protection_rows, list(q.pages.good), list(missing))
    out = q.ctx.out
    for row in pages:
        item: dict[str, Any] = {
            "type": row["pr_type"],
            "level": row["pr_level"],
            "expiry": _expiry(row["pr_expiry"]),
        }
        out.flag_if(item, "cascade", bool(row["pr_cascade"]))
        q.page_entry(int(row["pr_page"])).setdefault("protection", []).append(item)
    for row in created:
        key = missing.get((int(row["pt_namespace"]), str(row["pt_title"])))
        if key is not None:
            q.page_entry(key).setdefault("protection", []).append(
                {
                    "type": "create",
                    "level": row["pt_create_perm"],
                    "expiry": _expiry(row["pt_expiry"]),
                }
            )


def _watch_rows(
    conn: Conn, user_id: int | None, titles: list[tuple[int, str]], count: bool
) -> tuple[dict[tuple[int, str], Any], dict[tuple[int, str], int]]:
    wl = schema.watchlist
    where = sa.or_(*(sa.and_(wl.c.wl_namespace == ns, wl.c.wl_title == key) for ns, key in titles))
    mine: dict[tuple[int, str], Any] = {}
    if user_id is not None:
        for row in conn.all(
            sa.select(wl.c.wl_namespace, wl.c.wl_title, wl.c.wl_notificationtimestamp).where(
                wl.c.wl_user == user_id, where
            )
        ):
            mine[(int(row["wl_namespace"]), str(row["wl_title"]))] = row["wl_notificationtimestamp"]
    counts: dict[tuple[int, str], int] = {}
    if count:
        for row in conn.all(
            sa.select(wl.c.wl_namespace, wl.c.wl_title, sa.func.count().label("n"))
            .where(where)
            .group_by(wl.c.wl_namespace, wl.c.wl_title)
        ):
            counts[(int(row["wl_namespace"]), str(row["wl_title"]))] = int(row["n"])
    return mine, counts


async def _watching(q: QueryRun, props: set[str]) -> None:
    """`watched` and `notificationtimestamp` for the caller's watchlist (`viewmywatchlist`),
    `watchers` for those with `unwatchedpages` (zero included)."""
    caller = q.ctx.caller
    keys: dict[tuple[int, str], int] = {(p.ns, p.dbkey): p.page_id for p in q.pages.good.values()}
    keys.update({(m.ns, m.dbkey): m.fake_id for m in q.pages.missing if m.ns >= 0})
    if not keys:
        return
    own = bool(props & {"watched", "notificationtimestamp"}) and (
        caller.registered and caller.allowed("viewmywatchlist")
    )
    count = bool(props & {"watchers", "visitingwatchers"}) and caller.allowed("unwatchedpages")
    if not own and not count:
        return
    mine, counts = await q.ctx.db.read(_watch_rows, caller.id if own else None, list(keys), count)
    out = q.ctx.out
    for title, key in keys.items():
        entry = q.page_entry(key)
        if own and "watched" in props:
            out.flag(entry, "watched", title in mine)
        if count and "watchers" in props:
            entry["watchers"] = counts.get(title, 0)
        if count and "visitingwatchers" in props:
            entry["visitingwatchers"] = counts.get(title, 0)
        if own and "notificationtimestamp" in props and title in mine:
            stamp = mine[title]
            entry["notificationtimestamp"] = iso(str(stamp)) if stamp else ""


async def _display_titles(q: QueryRun) -> None:
    """A `{{DISPLAYTITLE:}}` stored in page_props replaces the plain title."""
    ids = list(q.pages.good)
    if not ids:
        return
    pp = schema.page_props
    rows = await q.ctx.db.read(
        lambda conn: conn.all(
            sa.select(pp.c.pp_page, pp.c.pp_value).where(
                pp.c.pp_page.in_(ids), pp.c.pp_propname == "displaytitle"
            )
        )
    )
    for row in rows:
        q.page_entry(int(row["pp_page"]))["displaytitle"] = row["pp_value"]


async def _associated_ids(q: QueryRun, props: set[str]) -> None:
    wanted: dict[tuple[int, str], int] = {}
    for page in q.pages.good.values():
        if page.ns < 0:
            continue
        other = page.ns + 1 if page.ns % 2 == 0 else page.ns - 1
        wanted[(other, page.dbkey)] = page.page_id
    rows = await q.ctx.db.read(page_reads.pages_by_titles, list(wanted))
    for row in rows:
        owner = wanted[(int(row["page_namespace"]), str(row["page_title"]))]
        is_talk = int(row["page_namespace"]) % 2 == 1
        key = "talkid" if is_talk else "subjectid"
        if key in props:
            q.page_entry(owner)[key] = int(row["page_id"])


# Modules outside the specification that clients need to read pages back.
INFO = ModuleSpec(
    "info",
    "ApiQueryInfo",
    "prop",
    "in",
    (
        Param(
            "prop",
            enum(
                "associatedpage",
                "displaytitle",
                "linkclasses",
                "notificationtimestamp",
                "preload",
                "protection",
                "subjectid",
                "talkid",
                "url",
                "varianttitles",
                "visitingwatchers",
                "watched",
                "watchers",
                "readable",
            ),
            multi=True,
            deprecatedvalues=("readable",),
        ),
        Param("linkcontext", "title", default="Main Page"),
        Param("testactions", multi=True),
        Param("testactionsdetail", enum("boolean", "full", "quick"), default="boolean"),
        Param("continue"),
    ),
)


MODULE = QueryModule(INFO, run)

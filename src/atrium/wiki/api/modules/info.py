"""`prop=info`: basic page information (content model, language, touched, length, flags, URLs)."""

from __future__ import annotations

from typing import Any

from atrium.wiki import pages as page_reads
from atrium.wiki.api.querybase import PageRow, QueryModule, QueryRun
from atrium.wiki.api.querymodules import INFO
from atrium.wiki.site import SCRIPT_PATH
from atrium.wiki.timestamps import iso
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
    entry["contentmodel"] = page.content_model if page else "wikitext"
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


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    props = set(params["prop"])
    for page in q.pages.good.values():
        _common(q, q.page_entry(page.page_id), page.ns, page.dbkey, page, props, params)
    for missing in q.pages.missing:
        if missing.ns in (NS_SPECIAL, NS_MEDIA):
            continue
        _common(q, q.page_entry(missing.fake_id), missing.ns, missing.dbkey, None, props, params)
    if props & {"talkid", "subjectid"}:
        await _associated_ids(q, props)


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


MODULE = QueryModule(INFO, run)

"""Page write actions: `delete`, `undelete`, `move`, `protect`, `rollback`, `patrol`, `purge`,
`watch`. Each checks its token (before it runs), rights and blocks, then calls `changes/`."""

from __future__ import annotations

import contextlib
from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.actions.common import (
    UNKNOWN_USER,
    WATCHLIST_VALUES,
    apply_watchlist,
    check_blocked,
    check_rate_limit,
    parse_title,
    performer,
    prefixed,
    target,
)
from atrium.wiki.api.context import ApiContext, change_errors
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
    INTEGER,
    TAGS,
    TIMESTAMP,
    USER,
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.changes import ChangeError, pageops, protection, watching
from atrium.wiki.changes.expiry import api_expiry, checked_expiry
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.reads.users import account_by_id
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import NS_FILE, Title


def _token(kind: str = "csrf") -> Param:
    return Param("token", required=True, sensitive=True, tokentype=kind)


def _watchlist(values: tuple[str, ...] = WATCHLIST_VALUES) -> Param:
    return Param("watchlist", enum(*values), default="preferences")


def _spec(name: str, classname: str, params: tuple[Param, ...]) -> ModuleSpec:
    return ModuleSpec(
        name, classname, "action", "", params, readrights=True, writerights=True, mustbeposted=True
    )


DELETE = _spec(
    "delete",
    "ApiDelete",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("reason"),
        Param("tags", TAGS, multi=True),
        Param("deletetalk", BOOLEAN),
        Param("watch", BOOLEAN, deprecated=True),
        _watchlist(),
        Param("unwatch", BOOLEAN, deprecated=True),
        Param("oldimage"),
        _token(),
    ),
)
UNDELETE = _spec(
    "undelete",
    "ApiUndelete",
    (
        Param("title", required=True),
        Param("reason", default=""),
        Param("tags", TAGS, multi=True),
        Param("timestamps", TIMESTAMP, multi=True),
        Param("fileids", INTEGER, multi=True),
        Param("undeletetalk", BOOLEAN),
        _watchlist(),
        _token(),
    ),
)
MOVE = _spec(
    "move",
    "ApiMove",
    (
        Param("from"),
        Param("fromid", INTEGER),
        Param("to", required=True),
        Param("reason", default=""),
        Param("movetalk", BOOLEAN),
        Param("movesubpages", BOOLEAN),
        Param("noredirect", BOOLEAN),
        _watchlist(),
        Param("ignorewarnings", BOOLEAN),
        Param("tags", TAGS, multi=True),
        _token(),
    ),
)
PROTECT = _spec(
    "protect",
    "ApiProtect",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("protections", multi=True, required=True),
        Param("expiry", multi=True, default="infinite", allowsduplicates=True),
        Param("reason", default=""),
        Param("tags", TAGS, multi=True),
        Param("cascade", BOOLEAN),
        Param("watch", BOOLEAN, deprecated=True),
        _watchlist(),
        _token(),
    ),
)
ROLLBACK = _spec(
    "rollback",
    "ApiRollback",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param("tags", TAGS, multi=True),
        Param("user", USER, required=True, subtypes=("name", "ip", "interwiki", "id")),
        Param("summary", default=""),
        Param("markbot", BOOLEAN),
        _watchlist(),
        _token("rollback"),
    ),
)
PATROL = _spec(
    "patrol",
    "ApiPatrol",
    (
        Param("rcid", INTEGER),
        Param("revid", INTEGER),
        Param("tags", TAGS, multi=True),
        _token("patrol"),
    ),
)
_PAGESET = (
    Param("continue"),
    Param("titles", multi=True),
    Param("pageids", INTEGER, multi=True),
    Param("revids", INTEGER, multi=True),
    Param("redirects", BOOLEAN),
    Param("converttitles", BOOLEAN),
)
PURGE = _spec(
    "purge",
    "ApiPurge",
    (Param("forcelinkupdate", BOOLEAN), Param("forcerecursivelinkupdate", BOOLEAN), *_PAGESET),
)
WATCH = _spec(
    "watch",
    "ApiWatch",
    (
        Param("title", deprecated=True),
        Param("unwatch", BOOLEAN),
        *_PAGESET,
        _token("watch"),
    ),
)


async def delete(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    title = await target(ctx, params, spec.name)
    await check_blocked(ctx, spec.name, title)
    who = performer(ctx)
    with change_errors(spec.name):
        done = await ctx.db.write(pageops.delete_page, ctx.site, who, title, params["reason"])
        if params["deletetalk"] and title.ns % 2 == 0:
            talk = Title(title.ns + 1, title.dbkey)
            if await ctx.db.read(protection.page_row, talk) is not None:
                await ctx.db.write(pageops.delete_page, ctx.site, who, talk, params["reason"])
    watch = (
        "watch" if params["watch"] else ("unwatch" if params["unwatch"] else params["watchlist"])
    )
    await apply_watchlist(ctx, title, watch, "watchdeletion")
    return {"delete": {"title": prefixed(ctx, title), "reason": done.reason, "logid": done.log_id}}


async def undelete(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    title = parse_title(ctx, params["title"], spec.name)
    await check_blocked(ctx, spec.name, title)
    who = performer(ctx)
    with change_errors(spec.name):
        done = await ctx.db.write(
            pageops.undelete_page,
            ctx.site,
            who,
            title,
            params["reason"],
            params["timestamps"],
            params["fileids"],
        )
    if params["undeletetalk"] and title.ns % 2 == 0:
        # No deleted talk page: nothing to restore there, as MediaWiki.
        with contextlib.suppress(ChangeError):
            await ctx.db.write(
                pageops.undelete_page,
                ctx.site,
                who,
                Title(title.ns + 1, title.dbkey),
                params["reason"],
                [],
            )
    await apply_watchlist(ctx, title, params["watchlist"], "watchundelete")
    return {
        "undelete": {
            "title": prefixed(ctx, title),
            "revisions": done.revisions,
            "fileversions": done.files,
            "reason": params["reason"],
        }
    }


async def move(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    source = await target(ctx, params, spec.name, "from")
    # ApiMove refuses a missing source before it reads `to`.
    if await ctx.db.read(protection.page_row, source) is None:
        raise ApiUsageError("missingtitle", msg.api("apierror-missingtitle"), module=spec.name)
    dest = parse_title(ctx, params["to"], spec.name)
    await check_blocked(ctx, spec.name, source)
    await check_rate_limit(ctx, "move", spec.name)
    who = performer(ctx)
    out = ctx.out
    with change_errors(spec.name):
        moved = await ctx.db.write(
            pageops.move_page,
            ctx.site,
            who,
            source,
            dest,
            params["reason"],
            params["noredirect"],
        )
    result: dict[str, Any] = {
        "from": prefixed(ctx, source),
        "to": prefixed(ctx, dest),
        "reason": params["reason"],
    }
    out.flag(result, "redirectcreated", moved.redirect_created)
    out.flag(result, "moveoverredirect", moved.over_redirect)
    if params["movetalk"] and source.ns >= 0 and source.ns % 2 == 0 and dest.ns % 2 == 0:
        talk_from, talk_to = Title(source.ns + 1, source.dbkey), Title(dest.ns + 1, dest.dbkey)
        if await ctx.db.read(protection.page_row, talk_from) is not None:
            try:
                talk = await ctx.db.write(
                    pageops.move_page,
                    ctx.site,
                    who,
                    talk_from,
                    talk_to,
                    params["reason"],
                    params["noredirect"],
                )
                result["talkfrom"] = prefixed(ctx, talk_from)
                result["talkto"] = prefixed(ctx, talk_to)
                out.flag(result, "talkmoveoverredirect", talk.over_redirect)
            except ChangeError as exc:
                result["talkmove-errors"] = [
                    {
                        "message": each.key,
                        "params": list(each.params),
                        "code": each.code,
                        "type": "error",
                    }
                    for each in (exc, *exc.more)
                ]
    if params["movesubpages"]:
        result["subpages"] = await _move_subpages(ctx, source, dest, params)
        if params["movetalk"] and source.ns >= 0 and source.ns % 2 == 0 and dest.ns % 2 == 0:
            # ApiMove: with movetalk, the talk page's subpages move too.
            talk_source = Title(source.ns + 1, source.dbkey)
            talk_dest = Title(dest.ns + 1, dest.dbkey)
            result["subpages-talk"] = await _move_subpages(ctx, talk_source, talk_dest, params)
    await apply_watchlist(ctx, source, params["watchlist"], "watchmoves")
    await apply_watchlist(ctx, dest, params["watchlist"], "watchmoves")
    return {"move": result}


async def _move_subpages(
    ctx: ApiContext, source: Title, dest: Title, params: dict[str, Any]
) -> list[dict[str, Any]]:
    rows = await ctx.db.read(page_reads.subpages, source)
    moved: list[dict[str, Any]] = []
    for dbkey in rows:
        old = Title(source.ns, dbkey)
        new = Title(dest.ns, dest.dbkey + dbkey[len(source.dbkey) :])
        try:
            await ctx.db.write(
                pageops.move_page,
                ctx.site,
                performer(ctx),
                old,
                new,
                params["reason"],
                params["noredirect"],
            )
            moved.append({"from": prefixed(ctx, old), "to": prefixed(ctx, new)})
        except ChangeError as exc:
            moved.append(
                {
                    "from": prefixed(ctx, old),
                    "errors": [
                        {"message": each.key, "code": each.code, "type": "error"}
                        for each in (exc, *exc.more)
                    ],
                }
            )
    return moved


async def protect(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    title = await target(ctx, params, spec.name)
    await check_blocked(ctx, spec.name, title)
    exists = await ctx.db.read(protection.page_row, title) is not None
    expiries: list[str] = params["expiry"]
    protections: list[str] = params["protections"]
    if len(expiries) != len(protections) and len(expiries) != 1:
        raise ApiUsageError(
            "toofewexpiries",
            msg.api("apierror-toofewexpiries", len(expiries), len(protections)),
            module=spec.name,
        )
    if len(expiries) == 1:
        expiries = expiries * len(protections)
    items: list[pageops.Protection] = []
    now = now14()
    for raw, expiry_text in zip(protections, expiries, strict=True):
        action, _, level = raw.partition("=")
        allowed = (
            (("edit", "move", "upload") if title.ns == NS_FILE else ("edit", "move"))
            if exists
            else ("create",)
        )
        if action not in allowed:
            if action == "create" and exists:
                raise ApiUsageError(
                    "create-titleexists",
                    msg.api("apierror-create-titleexists"),
                    module=spec.name,
                )
            if action in ("edit", "move", "upload") and not exists:
                raise ApiUsageError(
                    "missingtitle-createonly",
                    msg.api("apierror-missingtitle-createonly"),
                    module=spec.name,
                )
            raise ApiUsageError(
                "protect-invalidaction",
                msg.api("apierror-protect-invalidaction", action),
                module=spec.name,
            )
        if level == "all":
            level = ""
        if level not in protection.LEVELS:
            raise ApiUsageError(
                "protect-invalidlevel",
                msg.api("apierror-protect-invalidlevel", level),
                module=spec.name,
            )
        with change_errors(spec.name):
            expiry = checked_expiry(expiry_text, now)
        items.append(pageops.Protection(action, level, expiry))
    with change_errors(spec.name):
        cascade, _log = await ctx.db.write(
            pageops.protect,
            ctx.site,
            performer(ctx),
            title,
            items,
            params["reason"],
            params["cascade"],
        )
    result: dict[str, Any] = {"title": prefixed(ctx, title), "reason": params["reason"]}
    ctx.out.flag_if(result, "cascade", cascade)
    result["protections"] = [{p.action: p.level, "expiry": api_expiry(p.expiry)} for p in items]
    watch = "watch" if params["watch"] else params["watchlist"]
    await apply_watchlist(ctx, title, watch, "watchdefault")
    return {"protect": result}


async def rollback(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    title = await target(ctx, params, spec.name)
    await check_blocked(ctx, spec.name, title)
    user = str(params["user"])
    if user.startswith("#"):
        account = await ctx.db.read(account_by_id, int(user[1:]))
        user = account.name if account is not None else UNKNOWN_USER
    with change_errors(spec.name):
        done = await ctx.db.write(
            pageops.rollback,
            ctx.site,
            performer(ctx),
            title,
            user,
            params["summary"],
            params["markbot"],
        )
    await apply_watchlist(ctx, title, params["watchlist"], "watchrollback")
    return {
        "rollback": {
            "title": prefixed(ctx, title),
            "pageid": done.page_id,
            "summary": done.summary,
            "revid": done.rev_id,
            "old_revid": done.old_revid,
            "last_revid": done.last_revid,
        }
    }


async def patrol(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    if (params["rcid"] is None) == (params["revid"] is None):
        names = ["rcid", "revid"]
        if params["rcid"] is None:
            raise ApiUsageError("missingparam", msg.missing_one_of(names), module=spec.name)
        raise ApiUsageError("invalidparammix", msg.invalidparammix(names), module=spec.name)
    await check_blocked(ctx, spec.name, None)
    with change_errors(spec.name):
        row = await ctx.db.write(
            pageops.patrol, ctx.site, performer(ctx), params["rcid"], params["revid"]
        )
    title = Title(int(row["rc_namespace"]), str(row["rc_title"]))
    return {"patrol": {"rcid": int(row["rc_id"]), "ns": title.ns, "title": prefixed(ctx, title)}}


async def _pageset(ctx: ApiContext, params: dict[str, Any], module: str) -> list[dict[str, Any]]:
    """The pages named by `titles`, `pageids` or `revids`, in MediaWiki's result order (special
    and missing titles first, then existing pages by id)."""
    given = [k for k in ("titles", "pageids", "revids") if params[k]]
    if len(given) > 1:
        raise ApiUsageError(
            "multisource",
            msg.api("apierror-invalidparammix-cannotusewith", given[1], given[0]),
            module=module,
        )
    entries: list[dict[str, Any]] = []
    existing: list[Any] = []
    if params["titles"]:
        titles = []
        for text in params["titles"]:
            try:
                titles.append(parse_title(ctx, text, module))
            except ApiUsageError:
                entries.append({"title": text, "invalid": True})
        special = [t for t in titles if t.ns < 0]
        normal = [t for t in titles if t.ns >= 0]
        rows = await ctx.db.read(page_reads.pages_by_titles, [(t.ns, t.dbkey) for t in normal])
        found = {(int(r["page_namespace"]), str(r["page_title"])) for r in rows}
        for t in special:
            entries.append(
                {"ns": t.ns, "title": prefixed(ctx, t), "special": True, "missing": True}
            )
        for t in normal:
            if (t.ns, t.dbkey) not in found:
                entries.append({"ns": t.ns, "title": prefixed(ctx, t), "missing": True})
        existing = list(rows)
    elif params["pageids"]:
        rows = await ctx.db.read(page_reads.pages_by_ids, params["pageids"])
        seen = {int(r["page_id"]) for r in rows}
        entries += [{"pageid": i, "missing": True} for i in params["pageids"] if i not in seen]
        existing = list(rows)
    elif params["revids"]:
        # ApiPageSet::initFromRevIDs: the pages of the live revisions; the others are missing.
        revisions = await ctx.db.read(page_reads.pages_of_revisions, params["revids"])
        live = {int(r["rev_id"]) for r in revisions}
        entries += [{"revid": i, "missing": True} for i in params["revids"] if i not in live]
        page_ids = list(dict.fromkeys(int(r["rev_page"]) for r in revisions))
        existing = list(await ctx.db.read(page_reads.pages_by_ids, page_ids))
    existing.sort(key=lambda r: int(r["page_id"]))
    for r in existing:
        t = Title(int(r["page_namespace"]), str(r["page_title"]))
        entries.append(
            {"ns": t.ns, "title": prefixed(ctx, t), "pageid": int(r["page_id"]), "_title": t}
        )
    return entries


def _flags(ctx: ApiContext, entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in entry.items():
        if key.startswith("_"):
            continue
        if value is True:
            ctx.out.flag_if(out, key, True)
        else:
            out[key] = value
    return out


async def purge(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    entries = await _pageset(ctx, params, spec.name)
    results = []
    for entry in entries:
        item = _flags(ctx, {k: v for k, v in entry.items() if k != "pageid"})
        if "_title" in entry:
            await ctx.db.write(pageops.purge, entry["pageid"])
            ctx.out.flag_if(item, "purged", True)
            if params["forcelinkupdate"] or params["forcerecursivelinkupdate"]:
                rendered = await ctx.db.read_rendering(
                    pageops.render_current_links, ctx.site, entry["pageid"]
                )
                await ctx.db.write(pageops.refresh_links, ctx.site, entry["pageid"], rendered)
                ctx.out.flag_if(item, "linkupdate", True)
        results.append(item)
    result: dict[str, Any] = {}
    ctx.out.flag_if(result, "batchcomplete", True)
    result["purge"] = results
    return result


async def watch(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    params = ctx.read(spec)
    if not ctx.caller.registered:
        raise ApiUsageError(
            "notloggedin",
            msg.api("watchlistanontext"),
            module=spec.name,
        )
    if not ctx.caller.allowed("editmywatchlist"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-editmywatchlist")),
            module=spec.name,
        )
    if params["title"] is not None:
        params["titles"] = [params["title"], *params["titles"]]
    entries = await _pageset(ctx, params, spec.name)
    user_id = ctx.caller.id
    results = []
    for entry in entries:
        if entry.get("special") or entry.get("invalid") or "title" not in entry:
            results.append(_flags(ctx, entry))
            continue
        title = entry.get("_title") or parse_title(ctx, entry["title"], spec.name)
        await ctx.db.write(watching.set_watch, user_id, title, not params["unwatch"])
        item: dict[str, Any] = {"title": entry["title"], "ns": entry["ns"]}
        ctx.out.flag_if(item, "unwatched" if params["unwatch"] else "watched", True)
        if entry.get("missing"):
            ctx.out.flag_if(item, "missing", True)
        results.append(item)
    result: dict[str, Any] = {}
    ctx.out.flag_if(result, "batchcomplete", True)
    result["watch"] = results
    return result


ACTIONS = (
    Action(DELETE, delete, token="csrf"),
    Action(UNDELETE, undelete, token="csrf"),
    Action(MOVE, move, token="csrf"),
    Action(PROTECT, protect, token="csrf"),
    Action(ROLLBACK, rollback, token="rollback"),
    Action(PATROL, patrol, token="patrol"),
    Action(PURGE, purge),
    Action(WATCH, watch, token="watch"),
)

"""What the write actions share: their declaration (posted, with a token), the target title
(`title` or `pageid`), the performer, the block check with MediaWiki's `blockinfo`, and the
`watchlist` parameter."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import ModuleSpec, Param, enum
from atrium.wiki.changes import blocks as block_changes
from atrium.wiki.changes import watching
from atrium.wiki.changes.expiry import INFINITY, api_expiry
from atrium.wiki.changes.journal import Performer
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import pages as page_reads
from atrium.wiki.reads.users import options
from atrium.wiki.timestamps import formatted
from atrium.wiki.titles import InvalidTitle, Title

WATCHLIST_VALUES = ("nochange", "preferences", "unwatch", "watch")
# The name User::newFromId gives an id of no account (a `#id` user parameter).
UNKNOWN_USER = "Unknown user"


def write_spec(name: str, classname: str, params: tuple[Param, ...]) -> ModuleSpec:
    return ModuleSpec(
        name, classname, "action", "", params, readrights=True, writerights=True, mustbeposted=True
    )


def token_param(kind: str = "csrf") -> Param:
    return Param("token", required=True, sensitive=True, tokentype=kind)


def watchlist_param(values: tuple[str, ...] = WATCHLIST_VALUES) -> Param:
    return Param("watchlist", enum(*values), default="preferences")


async def check_rate_limit(ctx: ApiContext, action: str, module: str) -> None:
    """User::pingLimiter: count one `action` and refuse it past `$wgRateLimits`."""
    if ctx.limits is not None and await ctx.limits.ping(ctx.caller, action, ctx.client_ip):
        raise ApiUsageError("ratelimited", msg.api("apierror-ratelimited"), module=module)


def performer(ctx: ApiContext) -> Performer:
    caller = ctx.caller
    return Performer(caller.id or None, caller.name, frozenset(caller.rights), ctx.client_ip)


def parse_title(ctx: ApiContext, text: str, module: str) -> Title:
    try:
        title = ctx.site.parser.parse(text)
    except InvalidTitle as exc:
        raise ApiUsageError(
            "invalidtitle",
            msg.api("apierror-invalidtitle", msg.escape_wikitext(text)),
            module=module,
        ) from exc
    if title.interwiki or not title.dbkey:
        raise ApiUsageError(
            "invalidtitle",
            msg.api("apierror-invalidtitle", msg.escape_wikitext(text)),
            module=module,
        )
    return Title(title.ns, title.dbkey)


async def target(
    ctx: ApiContext, params: dict[str, Any], module: str, title_key: str = "title"
) -> Title:
    """The page named by `title` or `pageid` (exactly one of them)."""
    id_key = {"from": "fromid", "to": "toid"}.get(title_key, "pageid")
    given_title, given_id = params.get(title_key), params.get(id_key)
    if given_title is not None and given_id is not None:
        raise ApiUsageError(
            "invalidparammix", msg.invalidparammix([title_key, id_key]), module=module
        )
    if given_title is None and given_id is None:
        raise ApiUsageError("missingparam", msg.missing_one_of([title_key, id_key]), module=module)
    if given_id is not None:
        rows = await ctx.db.read(page_reads.pages_by_ids, [given_id])
        if not rows:
            raise ApiUsageError(
                "nosuchpageid",
                msg.api("apierror-nosuchpageid", given_id),
                module=module,
            )
        return Title(int(rows[0]["page_namespace"]), str(rows[0]["page_title"]))
    return parse_title(ctx, str(given_title), module)


def prefixed(ctx: ApiContext, title: Title) -> str:
    return ctx.site.parser.prefixed_text(title.ns, title.dbkey)


def block_info(ctx: ApiContext, block: block_changes.ActiveBlock) -> dict[str, Any]:
    """ApiBlockInfoTrait::getBlockDetails, with ApiErrorFormatter's formatted times."""
    out = ctx.out
    info: dict[str, Any] = {
        "blockid": block.id,
        "blockedby": block.by_name,
        "blockedbyid": block.by_id,
        "blockreason": block.reason,
        "blockedtimestamp": api_expiry(block.timestamp),
        "blockexpiry": api_expiry(block.expiry),
    }
    out.flag(info, "blockpartial", not block.sitewide)
    out.flag(info, "blocknocreate", block.nocreate)
    out.flag(info, "blockanononly", block.anononly)
    info["blockedtimestampformatted"] = formatted(block.timestamp)
    if block.expiry != INFINITY:
        info["blockexpiryformatted"] = formatted(block.expiry)
        info["blockexpiryrelative"] = formatted(block.expiry)
    return info


async def check_blocked(ctx: ApiContext, module: str, title: Title | None) -> None:
    """Refuse a blocked caller with MediaWiki's `blocked` error and its `blockinfo`."""
    caller = ctx.caller
    found = await ctx.db.read(
        block_changes.blocking, caller.id or None, caller.name, ctx.client_ip, title
    )
    if found is not None:
        raise blocked_error(ctx, module, found)


def blocked_error(ctx: ApiContext, module: str, block: block_changes.ActiveBlock) -> ApiUsageError:
    """MediaWiki's `blocked` error, with the block's `blockinfo`."""
    message = msg.api("apierror-blocked" if block.sitewide else "apierror-blocked-partial")
    return ApiUsageError(
        "blocked", message, module=module, extra={"blockinfo": block_info(ctx, block)}
    )


async def apply_watchlist(
    ctx: ApiContext,
    title: Title,
    value: str,
    option: str,
    *,
    creating: bool = False,
) -> bool:
    """ApiBase::getWatchlistValue and doWatchOrUnwatch; returns whether the page is watched."""
    user_id = ctx.caller.id
    if not user_id:
        return False
    watched = bool(await ctx.db.read(watching.is_watched, user_id, title))
    if value == "nochange":
        return watched
    if value == "watch":
        wanted = True
    elif value == "unwatch":
        wanted = False
    elif watched:
        return True
    else:
        prefs = await ctx.db.read(options, user_id)
        wanted = bool(int(prefs.get(option, 0) or 0)) or (
            creating and bool(int(prefs.get("watchcreations", 0) or 0))
        )
    if wanted != watched:
        await ctx.db.write(watching.set_watch, user_id, title, wanted)
    return wanted

"""`Special:Preferences`, minimal: the account's facts, a link to change the password, the email
address (changing it asks for the password, as Special:ChangeEmail does) and the time zone (the
`timecorrection` option the API's `action=options` sets too)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from starlette.responses import RedirectResponse, Response

from atrium.wiki.changes.accounts import set_email, set_options
from atrium.wiki.changes.email_confirmation import mail_confirmation
from atrium.wiki.limits import duration, wiki_limits
from atrium.wiki.reads.password_check import password_ok
from atrium.wiki.reads.users import options, password_hash
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, bad_token, not_logged_in, render
from atrium.wiki.web.texts import text

DEFAULT_ZONE = "System|0"
# Sanitizer::validateEmail's shape: something@something, no spaces.
EMAIL = re.compile(r"[^\s@]+@[^\s@]+")


@cache
def zones() -> list[str]:
    return sorted(available_timezones())


def zone_value(name: str) -> str:
    """MediaWiki's `ZoneInfo|<offset minutes now>|<zone>`."""
    offset = datetime.now(UTC).astimezone(ZoneInfo(name)).utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset is not None else 0
    return f"ZoneInfo|{minutes}|{name}"


async def _page(ctx: SpecialContext, error: str = "", status: int = 200) -> Response:
    prefs = await ctx.db.read(options, ctx.reader.id)
    current = str(prefs.get("timecorrection") or DEFAULT_ZONE)
    zone = (
        current.split("|")[2] if current.startswith("ZoneInfo|") and current.count("|") == 2 else ""
    )
    return await render(
        ctx,
        "preferences.html",
        "Preferences",
        status,
        account=ctx.reader,
        zones=zones(),
        zone=zone,
        saved=ctx.flag("success"),
        error=error,
    )


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.registered:
        return await not_logged_in(ctx, "change your preferences")
    if ctx.method != "POST":
        return await _page(ctx)
    if not ctx.token_ok():
        return await bad_token(ctx)
    zone = ctx.param("wptimecorrection")
    if zone and zone not in zones():
        return await _page(ctx, "The time zone is not valid.", 400)
    email = ctx.param("wpEmailAddress").strip()
    if email != ctx.reader.email:
        if email and (not EMAIL.fullmatch(email) or len(email) > 255):
            return await _page(ctx, "The email address cannot be accepted.", 400)
        address = ctx.request.client.host if ctx.request.client else ""
        throttle = wiki_limits(ctx.request).passwords
        refused = await throttle.refusal(ctx.reader.name, address)
        if refused is not None:
            wait = duration(refused.rule.window)
            return await _page(ctx, text("login-throttled", wait), 429)
        stored = await ctx.db.read(password_hash, ctx.reader.id)
        if not await password_ok(stored, ctx.param("wpPassword")):
            await throttle.failed(ctx.reader.name, address)
            return await _page(ctx, "The password you entered is incorrect.", 400)
        await ctx.db.write(set_email, ctx.reader.id, email)
        if email:
            reason = "changed" if ctx.reader.email else "set"
            await ctx.db.write(mail_confirmation, ctx.site, ctx.reader.id, ctx.client_ip, reason)
    value = zone_value(zone) if zone else None
    await ctx.db.write(set_options, ctx.reader.id, {"timecorrection": value}, False)
    return RedirectResponse(Links(ctx.site).special("Preferences", success="1"), status_code=303)


PAGE = SpecialPage("Preferences", "Preferences", "users", handle)

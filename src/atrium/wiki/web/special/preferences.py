"""`Special:Preferences`: the account's facts, a link to change the password, the email address
(changing it asks for the password, as Special:ChangeEmail does), the date format and time zone
every page shows times in, the responsive skin, and the defaults of the watchlist and of recent
changes, and the language (of the API's messages, `uselang=user`); the same options the API's
`action=options` reads and sets."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from starlette.responses import RedirectResponse, Response

from atrium.wiki.changes.accounts import set_email, set_options
from atrium.wiki.changes.email_confirmation import mail_confirmation
from atrium.wiki.limits import duration, wiki_limits
from atrium.wiki.messages.language import CONTENT_LANGUAGE
from atrium.wiki.messages.language_facts import user_languages
from atrium.wiki.reads.password_check import password_ok
from atrium.wiki.reads.users import options, password_hash
from atrium.wiki.web.dates import DATE_FORMATS
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.member_address import request_member_address
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, not_logged_in, render, session_failure
from atrium.wiki.web.texts import text

DEFAULT_ZONE = "System|0"
# Check boxes (HTMLCheckField): absent from a posted form means off.
TOGGLES = {
    "skin-responsive": "Enable responsive mode",
    "watchdefault": "Add pages and files I edit to my watchlist",
    "watchcreations": "Add pages I create and files I upload to my watchlist",
    "watchmoves": "Add pages and files I move to my watchlist",
    "watchdeletion": "Add pages and files I delete to my watchlist",
    "watchuploads": "Add new files I upload to my watchlist",
    "watchlisthideminor": "Hide minor edits from the watchlist",
    "watchlisthidebots": "Hide bot edits from the watchlist",
    "hideminor": "Hide minor edits from recent changes",
}
# Numbers (HTMLIntField): the option, its label and its bounds.
NUMBERS = {
    "watchlistdays": ("Days to show in the watchlist:", 1, 90),
    "wllimit": ("Maximum number of changes to show in the watchlist:", 1, 1000),
    "rcdays": ("Days to show in recent changes:", 1, 90),
    "rclimit": ("Number of edits to show in recent changes by default:", 1, 1000),
}
DATE_LABEL = "Date format:"
INTEGER = re.compile(r"[+-]?[0-9]+")
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


def _number_refusal(typed: str, low: int, high: int) -> str:
    """HTMLIntField's validation: the words for a value that is no integer or out of bounds."""
    if not INTEGER.fullmatch(typed):
        return text("htmlform-int-invalid")
    # Past 18 digits only the sign matters (and int() is never asked thousands of digits).
    value = int(typed) if len(typed) <= 18 else (-1 if typed.startswith("-") else 1) * 10**18
    if value < low:
        return text("htmlform-int-toolow", low)
    if value > high:
        return text("htmlform-int-toohigh", high)
    return ""


async def _page(ctx: SpecialContext, error: str = "") -> Response:
    prefs = await ctx.db.read(options, ctx.reader.id)
    current = str(prefs.get("timecorrection") or DEFAULT_ZONE)
    zone = (
        current.split("|")[2] if current.startswith("ZoneInfo|") and current.count("|") == 2 else ""
    )
    return await render(
        ctx,
        "preferences.html",
        "Preferences",
        account=ctx.reader,
        zones=zones(),
        zone=zone,
        languages=user_languages(),
        language=str(prefs.get("language") or CONTENT_LANGUAGE),
        prefs=prefs,
        date_formats=DATE_FORMATS,
        toggles=TOGGLES,
        numbers=NUMBERS,
        saved=ctx.flag("success"),
        error=error,
    )


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.registered:
        return await not_logged_in(ctx, "change your preferences")
    if ctx.method != "POST":
        return await _page(ctx)
    # HTMLForm shows the form again with the error, at 200, for every refusal below.
    if not ctx.token_ok():
        return await _page(ctx, session_failure())
    zone = ctx.param("wptimecorrection")
    if zone and zone not in zones():
        return await _page(ctx, "The time zone is not valid.")
    email = ctx.param("wpEmailAddress").strip()
    if email != ctx.reader.email:
        if email and (not EMAIL.fullmatch(email) or len(email) > 255):
            return await _page(ctx, "The email address cannot be accepted.")
        address = ctx.request.client.host if ctx.request.client else ""
        throttle = wiki_limits(ctx.request).passwords
        refused = await throttle.refusal(ctx.reader.name, address)
        if refused is not None:
            wait = duration(refused.rule.window)
            return await _page(ctx, text("login-throttled", wait))
        stored = await ctx.db.read(password_hash, ctx.reader.id)
        if not await password_ok(stored, ctx.param("wpPassword")):
            await throttle.failed(ctx.reader.name, address)
            return await _page(ctx, "The password you entered is incorrect.")
        member = await request_member_address(ctx, email)
        if member is not None and member.refused:
            return await _page(ctx, member.refused)
        if member is None:
            await ctx.db.write(set_email, ctx.reader.id, email)
            if email:
                reason = "changed" if ctx.reader.email else "set"
                await ctx.db.write(
                    mail_confirmation, ctx.site, ctx.reader.id, ctx.client_ip, reason
                )
    # Only what the form holds changes: its check boxes when it is the whole form.
    changes: dict[str, str | None] = {"timecorrection": zone_value(zone) if zone else None}
    if "wplanguage" in ctx.form:
        if ctx.form["wplanguage"] not in user_languages():
            return await _page(ctx, text("htmlform-select-badoption"))
        changes["language"] = ctx.form["wplanguage"]
    if "wpdate" in ctx.form:
        if ctx.form["wpdate"] not in DATE_FORMATS:
            return await _page(ctx, f"{DATE_LABEL} {text('htmlform-select-badoption')}")
        changes["date"] = ctx.form["wpdate"]
    if ctx.param("wpFormIdentifier") == "preferences":
        for name in TOGGLES:
            changes[name] = "1" if ctx.flag(f"wp{name}") else "0"
    for name, (label, low, high) in NUMBERS.items():
        if f"wp{name}" not in ctx.form:
            continue
        typed = ctx.form[f"wp{name}"].strip()
        refusal = _number_refusal(typed, low, high)
        if refusal:
            return await _page(ctx, f"{label} {refusal}")
        changes[name] = str(int(typed))
    await ctx.db.write(set_options, ctx.reader.id, changes, False)
    return RedirectResponse(Links(ctx.site).special("Preferences", success="1"), status_code=303)


PAGE = SpecialPage("Preferences", "Preferences", "users", handle)

"""`Special:ResetTokens`: a signed-in user replaces the tokens that open private data without a
session — MediaWiki's core has one, the watchlist feed's `watchlisttoken`. The form shows the
current value (made when first shown, as MediaWiki does) and is never cached; a post needs the
session's token and at least one ticked token."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.changes.watching import reset_watchlist_token, watchlist_token
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.msg import msg_html, msg_inline
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import bad_token, not_logged_in, render

# The core's tokens: (preference, label message).
TOKENS = (("watchlisttoken", "resettokens-watchlist-token"),)


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.registered:
        return await not_logged_in(ctx, "reset tokens")
    user_id = ctx.reader.id
    if ctx.method == "POST":
        if not ctx.token_ok():
            return await bad_token(ctx)
        chosen = {value for key, value in ctx.request_form_items() if key == "wptokens[]"}
        if "watchlisttoken" in chosen:
            await ctx.db.write(reset_watchlist_token, user_id)
            return await render(
                ctx, "resettokens.html", "Reset tokens",
                done=await msg_html(ctx, "resettokens-done"), tokens=[], intro="",
            )  # fmt: skip
        # Nothing ticked: MediaWiki's form shows itself again, unchanged.
    # User::getTokenFromOption: an empty token is made (and saved) when it is shown.
    current = await ctx.db.write(watchlist_token, user_id)
    tokens = [(pref, await msg_inline(ctx, label), current) for pref, label in TOKENS]
    response = await render(
        ctx, "resettokens.html", "Reset tokens", done="", tokens=tokens,
        intro=await msg_html(ctx, "resettokens-text"),
    )  # fmt: skip
    response.headers["Cache-Control"] = "no-store, private"
    return response


PAGE = SpecialPage("ResetTokens", "Reset tokens", "users", handle)

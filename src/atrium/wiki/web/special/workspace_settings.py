"""`Special:WorkspaceSettings`: the workspace's settings (the pages' discussion stream, the rules
that post wiki changes to chat) for the chat's administrators, beside the chat's Settings → Wiki.
The workspace hands the wiki the operations (`neighbours.WORKSPACE_SETTINGS`), the same the
Atrium endpoints run; without it (the wiki alone) there is no such page. A post needs the
session's token."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.web import neighbours
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import bad_token, message_page, render

HEADING = "Workspace settings"


async def handle(ctx: SpecialContext) -> Response:
    settings = neighbours.workspace_settings(ctx.db)
    if settings is None:
        return await message_page(
            ctx, "No such special page", "You have requested an invalid special page.", 404
        )
    reader = ctx.reader
    screen = await settings.screen(reader.id) if reader.registered else None
    if screen is None:
        return await message_page(
            ctx,
            "Permission error",
            "You do not have permission to change the workspace settings: only the chat's "
            "administrators may.",
            403,
        )
    error = done = ""
    if ctx.method == "POST":
        if not ctx.token_ok():
            return await bad_token(ctx)
        events = [value for name, value in ctx.form_items if name == "wpEvents"]
        error = await settings.change(reader.id, ctx.form, events)
        done = "" if error else "Your changes have been saved."
        screen = await settings.screen(reader.id) or screen
    return await render(
        ctx,
        "workspace_settings.html",
        HEADING,
        400 if error else 200,
        screen=screen,
        error=error,
        done=done,
    )


PAGE = SpecialPage("WorkspaceSettings", HEADING, "wiki", handle, "editinterface")

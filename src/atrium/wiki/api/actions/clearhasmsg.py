"""`action=clearhasmsg`: clear the caller's new-talk notification (ApiClearHasMsg)."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.actions import Action
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.params import ModuleSpec
from atrium.wiki.changes import newtalk

CLEARHASMSG = ModuleSpec(
    "clearhasmsg", "ApiClearHasMsg", "action", "", (), writerights=True, mustbeposted=True
)


async def clearhasmsg(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    ctx.read(spec)
    caller = ctx.caller
    user_id = caller.id if caller.registered else None
    await ctx.db.write(newtalk.clear, user_id, "" if user_id else ctx.client_ip)
    return {"clearhasmsg": "success"}


ACTION = Action(CLEARHASMSG, clearhasmsg)

"""GET/POST /drafts, PATCH/DELETE /drafts/{draft_id}."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.drafts import DraftData, create_drafts, delete_draft, edit_draft
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries.drafts import user_drafts


@api(Endpoint(()))
async def get_drafts(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    drafts = await req.runtime.db.read(user_drafts, req.me)
    return {"count": len(drafts), "drafts": drafts}


@api(Endpoint((Param("drafts", list[DraftData], [], nul_checked=True),)))
async def create(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    ids = await req.runtime.write(create_drafts, req.me, args["drafts"])
    return {"ids": ids}


@api(
    Endpoint(
        (Param("draft_id", int, path=True), Param("draft", DraftData, REQUIRED, nul_checked=True))
    )
)
async def edit(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(edit_draft, req.me, args["draft_id"], args["draft"])
    return {}


@api(Endpoint((Param("draft_id", int, path=True),)))
async def delete(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(delete_draft, req.me, args["draft_id"])
    return {}

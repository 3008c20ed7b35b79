"""GET/POST /drafts, PATCH/DELETE /drafts/{draft_id}."""

from __future__ import annotations

from typing import Annotated, Any

from atrium.chat.actions.drafts import DraftData, create_drafts, delete_draft, edit_draft
from atrium.chat.http import ApiRequest
from atrium.chat.queries.drafts import user_drafts
from atrium.chat.typed_endpoint import ApiParamConfig, Json, PathOnly, typed_endpoint


@typed_endpoint
async def get_drafts(req: ApiRequest) -> dict[str, Any]:
    drafts = await req.runtime.db.read(user_drafts, req.me)
    return {"count": len(drafts), "drafts": drafts}


@typed_endpoint
async def create(
    req: ApiRequest,
    *,
    drafts: Annotated[Json[list[DraftData]], ApiParamConfig(nul_checked=True)] = [],  # noqa: B006
) -> dict[str, Any]:
    ids = await req.runtime.write(create_drafts, req.me, drafts)
    return {"ids": ids}


@typed_endpoint
async def edit(
    req: ApiRequest,
    *,
    draft_id: PathOnly[int],
    draft: Annotated[Json[DraftData], ApiParamConfig(nul_checked=True)],
) -> dict[str, Any]:
    await req.runtime.write(edit_draft, req.me, draft_id, draft)
    return {}


@typed_endpoint
async def delete(req: ApiRequest, *, draft_id: PathOnly[int]) -> dict[str, Any]:
    await req.runtime.write(delete_draft, req.me, draft_id)
    return {}

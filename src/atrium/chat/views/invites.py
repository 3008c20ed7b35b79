"""POST/GET /invites, POST /invites/multiuse, DELETE /invites/{id} and /invites/multiuse/{id},
POST /invites/{id}/resend."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.invites import (
    DEFAULT_VALIDITY_MINUTES,
    create_multiuse_invite,
    invitation_error,
    invite_users,
    resend_invite,
    revoke_invite,
)
from atrium.chat.errors import ChatError
from atrium.chat.guards import realm_admin
from atrium.chat.http import ApiRequest
from atrium.chat.models import ROLE_MEMBER
from atrium.chat.queries.invites import invite_link, visible_invites
from atrium.chat.typed_endpoint import Json, PathOnly, typed_endpoint


def _member(req: ApiRequest) -> None:
    """Zulip's `@require_member_or_admin`."""
    if req.me.is_guest:
        raise ChatError("Not allowed for guest users")
    if req.me.is_bot:
        raise ChatError("This endpoint does not accept bot requests.")


@typed_endpoint
async def invite(
    req: ApiRequest,
    *,
    invitee_emails: str,
    invite_expires_in_minutes: Json[int | None] = DEFAULT_VALIDITY_MINUTES,
    invite_as: Json[int] = ROLE_MEMBER,
    stream_ids: Json[list[int]],
) -> dict[str, Any]:
    _member(req)
    result = await req.runtime.write(
        invite_users,
        req.me,
        invitee_emails,
        invite_as,
        stream_ids,
        invite_expires_in_minutes,
        req.runtime.composer,
    )
    if result.skipped:  # the others were invited (committed); Zulip still answers an error
        raise invitation_error(
            "Some of those addresses are already using Zulip, so we didn't send them an "
            "invitation. We did send invitations to everyone else!",
            result.skipped,
            True,
        )
    return {}


@typed_endpoint
async def get_invites(req: ApiRequest) -> dict[str, Any]:
    _member(req)
    invites = await req.runtime.db.read(visible_invites, req.me, req.runtime.settings.base_url)
    return {"invites": invites}


@typed_endpoint(guard=realm_admin)
async def create_multiuse(
    req: ApiRequest,
    *,
    invite_expires_in_minutes: Json[int | None] = DEFAULT_VALIDITY_MINUTES,
    invite_as: Json[int] = ROLE_MEMBER,
    stream_ids: Json[list[int]] = [],  # noqa: B006 (never mutated)
) -> dict[str, Any]:
    token = await req.runtime.write(
        create_multiuse_invite,
        req.me,
        invite_as,
        stream_ids,
        invite_expires_in_minutes,
    )
    return {"invite_link": invite_link(req.runtime.settings.base_url, token)}


@typed_endpoint
async def revoke(req: ApiRequest, *, invite_id: PathOnly[int]) -> dict[str, Any]:
    _member(req)
    await req.runtime.write(revoke_invite, req.me, invite_id, False)
    return {}


@typed_endpoint
async def revoke_multiuse(req: ApiRequest, *, invite_id: PathOnly[int]) -> dict[str, Any]:
    _member(req)
    await req.runtime.write(revoke_invite, req.me, invite_id, True)
    return {}


@typed_endpoint
async def resend(req: ApiRequest, *, invite_id: PathOnly[int]) -> dict[str, Any]:
    _member(req)
    await req.runtime.write(resend_invite, req.me, invite_id, req.runtime.composer)
    return {}

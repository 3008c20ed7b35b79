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
from atrium.chat.guards import guarded, realm_admin
from atrium.chat.http import ApiRequest, api
from atrium.chat.models import ROLE_MEMBER
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries.invites import invite_link, visible_invites

_EXPIRY = Param("invite_expires_in_minutes", int | None, DEFAULT_VALIDITY_MINUTES)
_INVITE_AS = Param("invite_as", int, ROLE_MEMBER)


def _member(req: ApiRequest) -> None:
    """Zulip's `@require_member_or_admin`."""
    if req.me.is_guest:
        raise ChatError("Not allowed for guest users")
    if req.me.is_bot:
        raise ChatError("This endpoint does not accept bot requests.")


@api(
    Endpoint(
        (
            Param("invitee_emails", default=REQUIRED),
            _EXPIRY,
            _INVITE_AS,
            Param("stream_ids", list[int], REQUIRED),
        )
    )
)
async def invite(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    _member(req)
    result = await req.runtime.write(
        invite_users,
        req.me,
        args["invitee_emails"],
        args["invite_as"],
        args["stream_ids"],
        args["invite_expires_in_minutes"],
    )
    if result.skipped:  # the others were invited (committed); Zulip still answers an error
        raise invitation_error(
            "Some of those addresses are already using Zulip, so we didn't send them an "
            "invitation. We did send invitations to everyone else!",
            result.skipped,
            True,
        )
    return {}


@api(Endpoint())
async def get_invites(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    _member(req)
    invites = await req.runtime.db.read(visible_invites, req.me, req.runtime.settings.base_url)
    return {"invites": invites}


@guarded(realm_admin, Endpoint((_EXPIRY, _INVITE_AS, Param("stream_ids", list[int], []))))
async def create_multiuse(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    token = await req.runtime.write(
        create_multiuse_invite,
        req.me,
        args["invite_as"],
        args["stream_ids"],
        args["invite_expires_in_minutes"],
    )
    return {"invite_link": invite_link(req.runtime.settings.base_url, token)}


@api(Endpoint((Param("invite_id", path=True),)))
async def revoke(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    _member(req)
    await req.runtime.write(revoke_invite, req.me, args["invite_id"], False)
    return {}


@api(Endpoint((Param("invite_id", path=True),)))
async def revoke_multiuse(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    _member(req)
    await req.runtime.write(revoke_invite, req.me, args["invite_id"], True)
    return {}


@api(Endpoint((Param("invite_id", path=True),)))
async def resend(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    _member(req)
    await req.runtime.write(resend_invite, req.me, args["invite_id"])
    return {}

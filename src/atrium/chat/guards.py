"""Permission checks that come before parameter validation, as Zulip's view decorators do.

In Zulip a view decorated with `@require_realm_admin` (or `@require_user_group_edit_permission`)
refuses a user without the role before `@has_request_variables` reads a single parameter: a
member who sends a malformed or missing parameter to an administrators' endpoint is told "Must be
an organization administrator", not what is wrong with the parameter. Views without such a
decorator validate their parameters first and check permissions in their body; they use `api()`.

`typed_endpoint(guard=...)` (or `guarded(guard, endpoint)`) declares a view of the first kind: `http.run_view` reads the request's
parameters only after `guard` accepted the user. Unknown parameters are still reported as
`ignored_parameters_unsupported`.
"""

from __future__ import annotations

from collections.abc import Callable

from atrium.chat.actions.user_groups import check_can_edit_groups
from atrium.chat.errors import ChatError, must_be_admin
from atrium.chat.http import ApiRequest, Guard, View, ViewSpec
from atrium.chat.params import Endpoint


def guarded(guard: Guard, endpoint: Endpoint) -> Callable[[View], ViewSpec]:
    """A view whose parameters are read only once `guard` has accepted the user."""

    def wrap(view: View) -> ViewSpec:
        return ViewSpec(view, endpoint, guard=guard)

    return wrap


async def realm_admin(req: ApiRequest) -> None:
    """Zulip's `@require_realm_admin`."""
    if not req.me.is_admin:
        raise must_be_admin()


async def user_group_editor(req: ApiRequest) -> None:
    """Zulip's `@require_user_group_edit_permission` (with `@require_member_or_admin`)."""
    if req.me.is_guest:
        raise ChatError("Not allowed for guest users")
    if req.me.is_bot:
        raise ChatError("This endpoint does not accept bot requests.")
    await req.runtime.db.read(check_can_edit_groups, req.me)

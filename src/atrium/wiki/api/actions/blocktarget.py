"""The target of `action=block` and `action=unblock`: a user (by name, `#id` or `userid`), an
IP address or a range, as stored."""

from __future__ import annotations

from typing import Any

from atrium.wiki.accounts.usernames import is_ip_or_range
from atrium.wiki.api.actions.common import UNKNOWN_USER
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.changes import blocks as block_changes
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads.users import account_by_id, account_by_name


async def block_target(
    ctx: ApiContext, params: dict[str, Any], module: str, *, must_exist: bool = True
) -> tuple[str, int]:
    """The target as stored (user name, IP or range) and the account id (0 for addresses). A
    `#id` of no account names "Unknown user" (User::newFromId's name); an unknown name is refused
    with `nosuchusershort` unless `must_exist` is false (unblock: no block is found for it)."""
    if params["user"] is None and params["userid"] is None:
        raise ApiUsageError("missingparam", msg.missing_one_of(["user", "userid"]), module=module)
    user = params["user"]
    if params["userid"] is not None or (user is not None and str(user).startswith("#")):
        user_id = params["userid"] if params["userid"] is not None else int(str(user)[1:])
        account = await ctx.db.read(account_by_id, user_id)
        if account is not None:
            return account.name, account.id
        if params["userid"] is not None:
            raise ApiUsageError(
                "nosuchuserid", msg.api("apierror-nosuchuserid", user_id), module=module
            )
        user = UNKNOWN_USER
    name = str(user)
    if is_ip_or_range(name):
        return block_changes.sanitize_target(name), 0
    account = await ctx.db.read(account_by_name, name)
    if account is None:
        if not must_exist:
            return name, 0
        raise ApiUsageError("nosuchuser", msg.api("nosuchusershort", name), module=module)
    return account.name, account.id

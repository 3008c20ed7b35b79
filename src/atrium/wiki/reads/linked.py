"""A signed-in caller whose account a workspace identity owns: out once the person is
deactivated, and reading only where the person may not write (the chat's guests)."""

from __future__ import annotations

from atrium.core.accounts import AccountLinks
from atrium.wiki.accounts.rights import rights_of
from atrium.wiki.reads.users import Account

# What a read-only member may not do: every way to change a page, a file or a user's mail.
WRITING_RIGHTS = frozenset(
    {
        "edit", "createpage", "createtalk", "minoredit", "move", "move-subpages",
        "move-rootuserpages", "move-categorypages", "movefile", "upload", "reupload",
        "reupload-own", "reupload-shared", "upload_by_url", "sendemail", "editmyuserjs",
        "editmyusercss", "editmyuserjson", "editmyuserjsconfig", "changetags",
    }
)  # fmt: skip


async def as_member(links: AccountLinks | None, account: Account) -> Account | None:
    """`account` as the caller it may be: None when its person is deactivated."""
    if links is None or not account.registered:
        return account
    linked = await links.for_user("wiki", account.id)
    if linked is None:
        return account
    if not linked.active:
        return None
    if linked.read_only:
        held = account.allowed_rights
        every = frozenset(rights_of(account.all_groups)) if held is None else held
        account.allowed_rights = every - WRITING_RIGHTS
    return account

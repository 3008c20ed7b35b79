"""A workspace member's address is their chat address too: a new one asked for on a wiki page
is handed to the layer above both services (`core.accounts`), which mails one confirmation link
for both; the address changes everywhere once it is followed."""

from __future__ import annotations

from atrium.core.accounts import AddressChange, account_links
from atrium.wiki.web.special.context import SpecialContext


async def request_member_address(ctx: SpecialContext, new_email: str) -> AddressChange | None:
    """The member's change asked for, or None for an account no identity owns (the wiki then
    changes its own address, as MediaWiki does)."""
    links = account_links(ctx.request)
    if links is None:
        return None
    return await links.request_email_change("wiki", ctx.reader.id, new_email)


def mailed_text(new_email: str) -> str:
    return (
        f"A confirmation link was sent to {new_email}. Your address changes, for the wiki and "
        "the chat alike, once you follow it."
    )

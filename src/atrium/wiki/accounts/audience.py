"""What anonymous visitors may do under each wiki audience: MediaWiki's `$wgGroupPermissions['*']`
as a private, a public-read and an open wiki set it.

- `private`: `read`, `edit`, `createpage`, `createtalk` and `createaccount` off. Anonymous
  visitors see only the sign-in pages (MediaWiki's `$wgWhitelistRead`), and accounts are made by
  administrators (`sysop` keeps `createaccount`) or the CLI, since the chat beside the wiki is a
  team's own.
- `read`: anyone reads; editing and account creation are off. A team wiki published for reading
  still chooses its editors, so anonymous visitors cannot register themselves in: public read
  must not mean open registration.
- `edit`: MediaWiki's defaults (anyone reads, edits and registers).
"""

from __future__ import annotations

from atrium.wiki.accounts.rights import GROUP_RIGHTS

_WRITING = frozenset({"edit", "createpage", "createtalk", "createaccount"})

WITHHELD: dict[str, frozenset[str]] = {
    "private": _WRITING | {"read"},
    "read": _WRITING,
    "edit": frozenset(),
}


def anonymous_rights(audience: str) -> frozenset[str]:
    """The rights of `*` under `audience`; an unknown audience gives the most restricted."""
    withheld = WITHHELD.get(audience, WITHHELD["private"])
    return frozenset(r for r in GROUP_RIGHTS["*"] if r not in withheld)


def anonymous_group_rights(audience: str) -> tuple[str, ...]:
    """`*`'s rights in MediaWiki's order, as `meta=siteinfo&siprop=usergroups` lists them."""
    allowed = anonymous_rights(audience)
    return tuple(r for r in GROUP_RIGHTS["*"] if r in allowed)

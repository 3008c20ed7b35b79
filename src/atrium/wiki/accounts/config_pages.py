"""Pages that hold code or settings: the site's CSS, JavaScript and JSON (`MediaWiki:` pages of
those models) and each user's own (their user subpages of those models). Anyone who can edit
them can run script or restyle the site for others, so each needs a right of its own beyond
`edit`, as MediaWiki's PermissionManager asks.
"""

from __future__ import annotations

from collections.abc import Collection

from atrium.wiki.titles import NS_MEDIAWIKI, NS_USER, Title

# The namespaces whose pages may be code pages.
CONFIG_NAMESPACES = frozenset({NS_MEDIAWIKI, NS_USER})
# The short name MediaWiki's rights and messages give each model that holds code.
_KINDS = {"css": "css", "javascript": "js", "json": "json"}


def config_refusal(title: Title, model: str, user_name: str, rights: Collection[str]) -> str | None:
    """The message key refusing `user_name` an edit of `title` holding `model` (None: allowed).

    Site pages need `editsite…`; a user's own subpages `editmyuser…`, and another user's
    `edituser…`. Whether a page is a config page follows its model, not its name: a `.js`
    page changed to wikitext is an ordinary page, and a wikitext one changed to JavaScript is
    checked as JavaScript."""
    kind = _KINDS.get(model)
    if kind is None:
        return None
    if title.ns == NS_MEDIAWIKI:
        return None if f"editsite{kind}" in rights else f"site{kind}protected"
    if title.ns != NS_USER or "/" not in title.text:
        return None
    if title.text.startswith(user_name + "/"):
        return None if f"editmyuser{kind}" in rights else f"mycustom{kind}protected"
    return None if f"edituser{kind}" in rights else f"custom{kind}protected"

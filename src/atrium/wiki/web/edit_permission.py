"""May this viewer edit this page: EditPage's permission checks in MediaWiki's order, with the
reason MediaWiki gives. The skin asks the quick form (PermissionManager's RIGOR_QUICK: rights,
protected namespaces and page protection, no block lookup) to choose between the "Edit" and
"View source" tabs; the edit form asks the full form, blocks included.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request

from atrium.core.db import Conn, Database
from atrium.wiki.accounts.config_pages import CONFIG_NAMESPACES, config_refusal
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.blocks import ActiveBlock, blocking
from atrium.wiki.changes.journal import Performer
from atrium.wiki.changes.protection import check_protection
from atrium.wiki.reads.parsing import model_of
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.web.texts import text
from atrium.wiki.web.viewer import Viewer, client_ip


@dataclass(frozen=True)
class Refusal:
    """Why the viewer may not edit: MediaWiki's reason, and the block when one is the reason."""

    reason: str
    block: ActiveBlock | None = None


def edit_refusal(
    conn: Conn, site: Site, title: Title, who: Performer, exists: bool, quick: bool = False
) -> Refusal | None:
    """None when `who` may edit (or create) `title`; with `quick`, blocks are not looked up, as
    the skin's tabs do not look them up in MediaWiki either."""
    if not who.allowed("edit"):
        return Refusal(text("badaccess-group0"))
    if not quick:
        block = blocking(conn, who.user_id, who.name, who.ip, title)
        if block is not None:
            return Refusal("", block)
    protection = site.namespaces.by_id[title.ns].protection
    if protection and not who.allowed(protection):
        return Refusal(text("protectedinterface").split(" To add")[0])
    # The site's and users' CSS, JavaScript and JSON need rights of their own (only those two
    # namespaces hold them: other pages need no read of their model).
    if title.ns in CONFIG_NAMESPACES:
        config = config_refusal(title, model_of(conn, title), who.name, who.rights)
        if config is not None:
            return Refusal(text(config))
    try:
        check_protection(conn, title, who, "edit")
    except ChangeError:
        return Refusal(text("protectedpagetext"))
    if not exists and not who.allowed("createpage" if title.ns % 2 == 0 else "createtalk"):
        return Refusal(text("nocreate-loggedin"))
    return None


async def may_edit(
    request: Request, site: Site, db: Database, viewer: Viewer, title: Title, exists: bool
) -> bool:
    """The quick check for links and tabs ("Edit" or "View source", undo, rollback)."""
    account = viewer.account
    if not account.allowed("edit"):
        return False
    who = Performer(account.id or None, account.name, frozenset(account.rights), client_ip(request))
    return await db.read(edit_refusal, site, title, who, exists, True) is None

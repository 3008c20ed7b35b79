"""The page actions of Vector 2022's "More" menu (`#p-cactions`), each shown only to readers
holding its right, as SkinTemplate::buildContentNavigationUrls does: Delete and Move on an
existing page, Protect (or "Change protection" when protected) on any page, and Undelete on
a missing page with deleted revisions."""

from __future__ import annotations

from dataclasses import dataclass

from atrium.core.db import Database
from atrium.wiki.reads.deleted_pages import archived_count, is_protected
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_FILE, NS_SPECIAL, Title
from atrium.wiki.web import links
from atrium.wiki.web.viewer import Viewer


@dataclass(frozen=True)
class PageAction:
    id: str
    label: str
    href: str
    selected: bool = False


async def page_actions(
    site: Site, db: Database, viewer: Viewer, title: Title, exists: bool, action: str
) -> list[PageAction]:
    """The "More" menu of a page; empty for Special pages and for readers without the rights."""
    if title.ns == NS_SPECIAL:
        return []
    reader = viewer.account
    shown: list[PageAction] = []
    prefixed = links.prefixed_dbkey(site, title)
    if exists:
        if reader.allowed("delete"):
            shown.append(
                PageAction(
                    "ca-delete", "Delete", links.index_href(site, title, action="delete"),
                    action == "delete",
                )
            )  # fmt: skip
        movable = reader.allowed("movefile") if title.ns == NS_FILE else True
        if reader.allowed("move") and movable:
            shown.append(PageAction("ca-move", "Move", links.special_href("MovePage/" + prefixed)))
    elif reader.allowed("deletedhistory"):
        count = await db.read(archived_count, title)
        if count:
            label = "Undelete 1 edit" if count == 1 else f"Undelete {count} edits"
            href = links.special_href("Undelete", target=prefixed)
            shown.append(PageAction("ca-undelete", label, href))
    if reader.allowed("protect"):
        protected = await db.read(is_protected, title)
        shown.append(
            PageAction(
                "ca-unprotect" if protected else "ca-protect",
                "Change protection" if protected else "Protect",
                links.index_href(site, title, action="protect"),
                action == "protect",
            )
        )
    return shown

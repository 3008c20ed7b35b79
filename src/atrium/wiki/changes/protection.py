"""Who may act on a page: page protection and title protection (`page_restrictions`,
`protected_titles`), and the `badaccess-groups` refusal that names the groups holding a right.
Shared by the page operations, the move checks and the edit."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.accounts.rights import GROUP_RIGHTS, IMPLICIT_GROUPS
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.expiry import INFINITY
from atrium.wiki.changes.journal import Performer
from atrium.wiki.messages.messages import GroupLinks
from atrium.wiki.site import Site
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import Title

P = schema.page

GROUP_PAGES = {
    "sysop": "Administrators",
    "bureaucrat": "Bureaucrats",
    "bot": "Bots",
    "interface-admin": "Interface administrators",
    "suppress": "Suppressors",
}


def badaccess(site: Site, right: str) -> ChangeError:
    """PermissionManager's `badaccess-groups`: the groups that hold the right, linked."""
    project = site.namespaces.by_id[4].name
    groups = [
        g for g, rights in GROUP_RIGHTS.items() if right in rights and g not in IMPLICIT_GROUPS
    ]
    links = [f"[[{project}:{GROUP_PAGES.get(g, g)}|{GROUP_PAGES.get(g, g)}]]" for g in groups]
    if len(links) == 1:
        text = f"The action you have requested is limited to users in the group: {links[0]}."
    else:
        text = (
            "The action you have requested is limited to users in one of the groups: "
            f"{', '.join(links)}."
        )
    return ChangeError(
        "permissiondenied",
        text,
        "badaccess-groups",
        (GroupLinks(project, tuple(groups)), len(groups)),
    )


def require(site: Site, who: Performer, right: str) -> None:
    if not who.allowed(right):
        raise badaccess(site, right)


def page_row(conn: Conn, title: Title) -> Any:
    return conn.one(
        sa.select(P).where(P.c.page_namespace == title.ns, P.c.page_title == title.dbkey)
    )


LEVELS = ("", "autoconfirmed", "sysop")
LEVEL_RIGHT = {"autoconfirmed": "editsemiprotected", "sysop": "editprotected"}


def restriction_of(conn: Conn, title: Title, action: str) -> str | None:
    """The protection level that applies to `action` on `title` now, if any."""
    ts = now14()
    page = page_row(conn, title)
    if page is None:
        if action not in ("create", "edit"):
            return None
        pt = schema.protected_titles
        row = conn.one(
            sa.select(pt).where(pt.c.pt_namespace == title.ns, pt.c.pt_title == title.dbkey)
        )
        if row is None or (row["pt_expiry"] != INFINITY and row["pt_expiry"] <= ts):
            return None
        return str(row["pt_create_perm"])
    pr = schema.page_restrictions
    row = conn.one(sa.select(pr).where(pr.c.pr_page == page["page_id"], pr.c.pr_type == action))
    if row is None or (row["pr_expiry"] not in (None, INFINITY) and row["pr_expiry"] <= ts):
        return None
    return str(row["pr_level"]) or None


def check_protection(conn: Conn, title: Title, who: Performer, action: str) -> None:
    """Refuse `action` on a protected page (or creation of a protected title)."""
    exists = page_row(conn, title) is not None
    level = restriction_of(conn, title, action if exists else "create")
    if not level:
        return
    right = LEVEL_RIGHT.get(level, level)
    if level == "sysop" and who.allowed("editprotected"):
        return
    if who.allowed(right):
        return
    # MediaWiki 1.39 refuses creating a create-protected title as it refuses editing a
    # protected page: `protectedpage`, with the right and the `create` action.
    if not exists:
        action = "create"
    # PermissionManager::checkPageRestrictions: the right the level asks for, and the action.
    raise ChangeError(
        "protectedpage",
        "This page has been protected to prevent editing or other actions.",
        "protectedpagetext",
        (right, action),
    )

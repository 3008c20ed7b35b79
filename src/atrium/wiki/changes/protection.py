"""Who may act on a page: page protection and title protection (`page_restrictions`,
`protected_titles`), and the `badaccess-groups` refusal that names the groups holding a right.
Shared by the page operations, the move checks and the edit."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Prepared
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


# Every page view asks whether its reader may edit (the Edit or View source tab): these three
# lookups are compiled once, as building their expressions cost more than running them.
_PAGE = Prepared(
    sa.select(P).where(
        P.c.page_namespace == sa.bindparam("ns"), P.c.page_title == sa.bindparam("title")
    )
)
_PROTECTED_TITLE = Prepared(
    sa.select(schema.protected_titles).where(
        schema.protected_titles.c.pt_namespace == sa.bindparam("ns"),
        schema.protected_titles.c.pt_title == sa.bindparam("title"),
    )
)
_RESTRICTION = Prepared(
    sa.select(schema.page_restrictions).where(
        schema.page_restrictions.c.pr_page == sa.bindparam("page"),
        schema.page_restrictions.c.pr_type == sa.bindparam("action"),
    )
)


def page_row(conn: Conn, title: Title) -> Any:
    return conn.one(_PAGE, {"ns": title.ns, "title": title.dbkey})


LEVELS = ("", "autoconfirmed", "sysop")
LEVEL_RIGHT = {"autoconfirmed": "editsemiprotected", "sysop": "editprotected"}


def restriction_of(conn: Conn, title: Title, action: str) -> str | None:
    """The protection level that applies to `action` on `title` now, if any."""
    return _level(conn, title, action, page_row(conn, title))


def _level(conn: Conn, title: Title, action: str, page: Any | None) -> str | None:
    ts = now14()
    if page is None:
        if action not in ("create", "edit"):
            return None
        row = conn.one(_PROTECTED_TITLE, {"ns": title.ns, "title": title.dbkey})
        if row is None or (row["pt_expiry"] != INFINITY and row["pt_expiry"] <= ts):
            return None
        return str(row["pt_create_perm"])
    row = conn.one(_RESTRICTION, {"page": page["page_id"], "action": action})
    if row is None or (row["pr_expiry"] not in (None, INFINITY) and row["pr_expiry"] <= ts):
        return None
    return str(row["pr_level"]) or None


def check_protection(conn: Conn, title: Title, who: Performer, action: str) -> None:
    """Refuse `action` on a protected page (or creation of a protected title)."""
    page = page_row(conn, title)
    exists = page is not None
    level = _level(conn, title, action if exists else "create", page)
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

"""Every reason a page move is refused, in MediaWiki 1.39's order (`MovePage::moveIfAllowed`):
first `isValidMove` (what the two titles allow), then `authorizeMove` (what the performer may do:
PermissionManager's checks of `move` and `edit` on the source, `move-target` and `edit` on the
target, then the target's title protection). A refused move reports all of them at once."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.accounts.rights import GROUP_RIGHTS
from atrium.wiki.changes import ChangeError, protection
from atrium.wiki.changes.journal import Performer
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_CATEGORY, NS_FILE, NS_MEDIAWIKI, NS_SPECIAL, NS_USER, Title


def move_refusals(
    conn: Conn, site: Site, who: Performer, source: Title, target: Title
) -> list[ChangeError]:
    """The refusals of moving `source` to `target`, empty when the move may go ahead."""
    errors = _invalid_move(conn, site, source, target)
    errors += _move_source(conn, site, who, source)
    errors += _edit(conn, site, who, source)
    errors += _move_target(conn, site, who, target)
    errors += _edit(conn, site, who, target)
    if protection.page_row(conn, target) is None and not _has_level(conn, who, target, "create"):
        errors.append(
            ChangeError(
                "protectedtitle",
                "You cannot move a page to this location because the new title has been "
                "protected from creation.",
                "cantmove-titleprotected",
            )
        )
    return errors


def single_rev_redirect(conn: Conn, page: Any) -> bool:
    """Title::isSingleRevRedirect."""
    if not page["page_is_redirect"]:
        return False
    rev = schema.revision
    count = conn.scalar(
        sa.select(sa.func.count()).select_from(rev).where(rev.c.rev_page == page["page_id"])
    )
    return int(count or 0) == 1


def _valid_target(conn: Conn, source: Title, target: Title, page: Any) -> bool:
    """MovePage::isValidMoveTarget: a one-revision redirect to the source (or to itself)."""
    if not single_rev_redirect(conn, page):
        return False
    rd = conn.one(sa.select(schema.redirect).where(schema.redirect.c.rd_from == page["page_id"]))
    if rd is None:
        return False
    points_to = (int(rd["rd_namespace"]), str(rd["rd_title"]))
    return points_to in ((source.ns, source.dbkey), (target.ns, target.dbkey))


def _invalid_move(conn: Conn, site: Site, source: Title, target: Title) -> list[ChangeError]:
    """MovePage::isValidMove."""
    errors: list[ChangeError] = []
    target_text = site.parser.prefixed_text(target.ns, target.dbkey)
    existing = protection.page_row(conn, target)
    if (source.ns, source.dbkey) == (target.ns, target.dbkey):
        errors.append(
            ChangeError(
                "selfmove", "The title is the same; cannot move a page over itself.", "selfmove"
            )
        )
    elif existing is not None and not _valid_target(conn, source, target, existing):
        if single_rev_redirect(conn, existing):
            errors.append(
                ChangeError(
                    "redirectexists",
                    f"A redirect already exists at [[:{target_text}]], and it cannot be deleted "
                    "automatically. Please choose another name.",
                    "redirectexists",
                    (target_text,),
                )
            )
        else:
            errors.append(
                ChangeError(
                    "articleexists",
                    f"A page already exists at [[:{target_text}]], or the page name you have "
                    "chosen is not valid. Please choose another name.",
                    "articleexists",
                    (target_text,),
                )
            )
    if source.ns < 0:
        errors.append(_immobile(site, "source", source.ns))
    if target.ns < 0:
        errors.append(_immobile(site, "target", target.ns))
    if source.ns == NS_FILE and target.ns != NS_FILE:
        errors.append(
            ChangeError(
                "nonfilenamespace",
                "Cannot move file to non-file namespace.",
                "imagenocrossnamespace",
            )
        )
    if target.ns == NS_FILE and source.ns != NS_FILE:
        errors.append(
            ChangeError(
                "nonfile-cannot-move-to-file",
                "Cannot move non-file to file namespace.",
                "nonfile-cannot-move-to-file",
            )
        )
    return errors


def _immobile(site: Site, side: str, ns: int) -> ChangeError:
    ns_text = site.namespaces.by_id[ns].name
    where = "in" if side == "source" else "into"
    code = f"immobile-{side}-namespace"
    return ChangeError(code, f'Cannot move pages {where} namespace "{ns_text}".', code, (ns_text,))


def _move_source(conn: Conn, site: Site, who: Performer, title: Title) -> list[ChangeError]:
    """PermissionManager's checks of `move` on the source page."""
    errors: list[ChangeError] = []
    if title.ns == NS_USER and "/" not in title.dbkey and not who.allowed("move-rootuserpages"):
        errors.append(
            ChangeError(
                "cant-move-user-page",
                "You do not have permission to move user pages (apart from subpages).",
                "cant-move-user-page",
            )
        )
    if title.ns == NS_FILE and not who.allowed("movefile"):
        errors.append(
            ChangeError(
                "cantmovefile", "You do not have permission to move files.", "movenotallowedfile"
            )
        )
    if title.ns == NS_CATEGORY and not who.allowed("move-categorypages"):
        errors.append(
            ChangeError(
                "cant-move-category-page",
                "You do not have permission to move category pages.",
                "cant-move-category-page",
            )
        )
    if not who.allowed("move"):
        registered_can = any("move" in GROUP_RIGHTS.get(g, ()) for g in ("user", "autoconfirmed"))
        if who.user_id is None and registered_can:
            errors.append(
                ChangeError(
                    "cantmove-anon",
                    "You must be a registered user and [[Special:UserLogin|logged in]] to move "
                    "a page.",
                    "movenologintext",
                )
            )
        else:
            errors.append(_cantmove())
    errors += _namespace_protection(site, who, title, "move")
    errors += _restriction(conn, who, title, "move")
    if title.ns < 0:
        errors.append(_immobile(site, "source", title.ns))
    return errors


def _move_target(conn: Conn, site: Site, who: Performer, title: Title) -> list[ChangeError]:
    """PermissionManager's checks of `move-target` on the target page."""
    errors: list[ChangeError] = []
    if not who.allowed("move"):
        errors.append(_cantmove())
    elif title.ns == NS_USER and "/" not in title.dbkey and not who.allowed("move-rootuserpages"):
        errors.append(
            ChangeError(
                "cant-move-to-user-page",
                "You do not have permission to move a page to a user page (except to a user "
                "subpage).",
                "cant-move-to-user-page",
            )
        )
    elif title.ns == NS_CATEGORY and not who.allowed("move-categorypages"):
        errors.append(
            ChangeError(
                "cant-move-to-category-page",
                "You do not have permission to move a page to a category page.",
                "cant-move-to-category-page",
            )
        )
    errors += _namespace_protection(site, who, title, "move-target")
    if title.ns < 0:
        errors.append(_immobile(site, "target", title.ns))
    return errors


def _edit(conn: Conn, site: Site, who: Performer, title: Title) -> list[ChangeError]:
    """PermissionManager's checks of `edit`; editing a page that does not exist also checks
    `create`, reporting only its first refusal."""
    errors: list[ChangeError] = []
    if not who.allowed("edit"):
        errors.append(protection.badaccess(site, "edit"))
    errors += _namespace_protection(site, who, title, "edit")
    if protection.page_row(conn, title) is not None:
        return errors + _restriction(conn, who, title, "edit")
    talk = title.ns >= 0 and title.ns % 2 == 1
    if not who.allowed("createtalk" if talk else "createpage"):
        anon = who.user_id is None
        errors.append(
            ChangeError(
                "cantcreate-anon" if anon else "cantcreate",
                "You do not have permission to create pages.",
                "nocreatetext" if anon else "nocreate-loggedin",
            )
        )
    else:
        errors += _restriction(conn, who, title, "create")
    return errors


def _namespace_protection(
    site: Site, who: Performer, title: Title, action: str
) -> list[ChangeError]:
    """checkSpecialsAndNSPermissions: nothing is done to a special page, and a protected
    namespace ($wgNamespaceProtection) asks for its right."""
    errors: list[ChangeError] = []
    if title.ns == NS_SPECIAL:
        errors.append(
            ChangeError(
                "unsupportednamespace", "Special pages cannot be edited.", "ns-specialprotected"
            )
        )
    namespace = site.namespaces.by_id.get(title.ns)
    right = namespace.protection if namespace is not None else ""
    if right and not who.allowed(right):
        if title.ns == NS_MEDIAWIKI:
            errors.append(
                ChangeError(
                    "protectednamespace-interface",
                    "This page provides interface text for the software on this wiki, and is "
                    "protected to prevent abuse.",
                    "protectedinterface",
                    (action,),
                )
            )
        else:
            ns_text = site.namespaces.by_id[title.ns].name
            errors.append(
                ChangeError(
                    "protectednamespace",
                    f'You do not have permission to edit pages in the "{ns_text}" namespace.',
                    "namespaceprotected",
                    (ns_text, action),
                )
            )
    return errors


def _has_level(conn: Conn, who: Performer, title: Title, action: str) -> bool:
    level = protection.restriction_of(conn, title, action)
    return not level or who.allowed(protection.LEVEL_RIGHT.get(level, level))


def _restriction(conn: Conn, who: Performer, title: Title, action: str) -> list[ChangeError]:
    """checkPageRestrictions: the right the protection level asks for, and the action."""
    level = protection.restriction_of(conn, title, action)
    if not level:
        return []
    right = protection.LEVEL_RIGHT.get(level, level)
    if who.allowed(right):
        return []
    return [
        ChangeError(
            "protectedpage",
            "This page has been protected to prevent editing or other actions.",
            "protectedpagetext",
            (right, action),
        )
    ]


def _cantmove() -> ChangeError:
    return ChangeError("cantmove", "You do not have permission to move pages.", "movenotallowed")

"""User groups and the rights they grant: MediaWiki's default `$wgGroupPermissions`.

`*` is everyone (anonymous included), `user` every registered account, `autoconfirmed` every
registered account here (no age or edit-count threshold is configured). The other groups are
explicit memberships.
"""

from __future__ import annotations

from collections.abc import Iterable

IMPLICIT_GROUPS: tuple[str, ...] = ("*", "user", "autoconfirmed")

GROUP_RIGHTS: dict[str, tuple[str, ...]] = {
    "*": (
        "createaccount", "read", "edit", "createpage", "createtalk", "writeapi",
        "viewmywatchlist", "editmywatchlist", "viewmyprivateinfo", "editmyprivateinfo",
        "editmyoptions",
    ),
    "user": (
        "move", "move-subpages", "move-rootuserpages", "move-categorypages", "movefile", "read",
        "edit", "createpage", "createtalk", "writeapi", "upload", "reupload", "reupload-shared",
        "minoredit", "editmyusercss", "editmyuserjson", "editmyuserjs", "editmyuserjsredirect",
        "purge", "applychangetags", "changetags", "editcontentmodel",
    ),
    "autoconfirmed": ("autoconfirmed", "editsemiprotected"),
    "bot": (
        "bot", "autoconfirmed", "editsemiprotected", "nominornewtalk", "autopatrol",
        "suppressredirect", "apihighlimits", "writeapi",
    ),
    "sysop": (
        "block", "createaccount", "delete", "bigdelete", "deletedhistory", "deletedtext",
        "undelete", "editinterface", "editsitejson", "edituserjson", "import", "importupload",
        "move", "move-subpages", "move-rootuserpages", "move-categorypages", "patrol",
        "autopatrol", "protect", "editprotected", "rollback", "upload", "reupload",
        "reupload-shared", "unwatchedpages", "autoconfirmed", "editsemiprotected",
        "ipblock-exempt", "blockemail", "markbotedits", "apihighlimits", "browsearchive",
        "noratelimit", "movefile", "unblockself", "suppressredirect", "mergehistory",
        "managechangetags", "deletechangetags",
    ),
    "interface-admin": (
        "editinterface", "editsitecss", "editsitejson", "editsitejs", "editusercss",
        "edituserjson", "edituserjs",
    ),
    "bureaucrat": ("userrights", "noratelimit"),
    "suppress": (
        "hideuser", "suppressrevision", "viewsuppressed", "suppressionlog", "deleterevision",
        "deletelogentry",
    ),
    # A site-specific group (it appears in the spec's allusers values); it grants nothing extra.
    "engineering": (),
}  # fmt: skip

EXPLICIT_GROUPS: tuple[str, ...] = tuple(
    sorted(g for g in GROUP_RIGHTS if g not in IMPLICIT_GROUPS)
)

# Groups a bureaucrat may add and remove (MediaWiki's `$wgAddGroups` / `$wgRemoveGroups`).
CHANGEABLE_BY: dict[str, tuple[str, ...]] = {
    "bureaucrat": ("bot", "sysop", "interface-admin", "bureaucrat", "suppress"),
    "sysop": (),
}

# Every right the wiki knows (`$wgAvailableRights` plus the group rights), as the spec lists them.
ALL_RIGHTS: tuple[str, ...] = (
    "apihighlimits", "applychangetags", "autoconfirmed", "autocreateaccount", "autopatrol",
    "bigdelete", "block", "blockemail", "bot", "browsearchive", "changetags", "createaccount",
    "createpage", "createtalk", "delete", "deletechangetags", "deletedhistory", "deletedtext",
    "deletelogentry", "deleterevision", "edit", "editcontentmodel", "editinterface",
    "editmyoptions", "editmyprivateinfo", "editmyusercss", "editmyuserjs", "editmyuserjson",
    "editmyuserjsredirect", "editmywatchlist", "editprotected", "editsemiprotected",
    "editsitecss", "editsitejs", "editsitejson", "editusercss", "edituserjs", "edituserjson",
    "hideuser", "import", "importupload", "ipblock-exempt", "managechangetags", "markbotedits",
    "mergehistory", "minoredit", "move", "move-categorypages", "move-rootuserpages",
    "move-subpages", "movefile", "nominornewtalk", "noratelimit", "override-export-depth",
    "pagelang", "patrol", "patrolmarks", "protect", "purge", "read", "reupload", "reupload-own",
    "reupload-shared", "rollback", "sendemail", "siteadmin", "suppressionlog", "suppressredirect",
    "suppressrevision", "unblockself", "undelete", "unwatchedpages", "upload", "upload_by_url",
    "userrights", "userrights-interwiki", "viewmyprivateinfo", "viewmywatchlist",
    "viewsuppressed", "writeapi",
)  # fmt: skip


def implicit_groups(registered: bool) -> list[str]:
    return list(IMPLICIT_GROUPS) if registered else ["*"]


def rights_of(groups: Iterable[str]) -> list[str]:
    """The rights of a set of groups in MediaWiki's order (group order, first occurrence)."""
    seen: dict[str, None] = {}
    for group in groups:
        for right in GROUP_RIGHTS.get(group, ()):
            seen.setdefault(right, None)
    return list(seen)


def changeable_groups(groups: Iterable[str]) -> dict[str, list[str]]:
    add: dict[str, None] = {}
    for group in groups:
        for g in CHANGEABLE_BY.get(group, ()):
            add.setdefault(g, None)
    return {"add": list(add), "remove": list(add), "add-self": [], "remove-self": []}

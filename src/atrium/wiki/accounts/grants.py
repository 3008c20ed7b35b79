"""Bot-password grants: MediaWiki 1.39's `$wgGrantPermissions` (the rights each grant allows).

A session opened with a bot password may use only the rights of its grants plus those of the
hidden grants every bot password carries (`basic`, `$wgGrantPermissionGroups['basic'] = 'hidden'`),
intersected with the rights the account has: `User::getRights` with the session's
`getAllowedUserRights()` from `BotPasswordSessionProvider`. The table is carried over from
MediaWiki's MainConfigSchema.php (1.39.17) as data.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

GRANT_RIGHTS: dict[str, tuple[str, ...]] = {
    "basic": ("autocreateaccount", "autoconfirmed", "autopatrol", "editsemiprotected", "ipblock-exempt", "nominornewtalk", "patrolmarks", "purge", "read", "writeapi", "unwatchedpages"),
    "highvolume": ("bot", "apihighlimits", "noratelimit", "markbotedits"),
    "import": ("import", "importupload"),
    "editpage": ("edit", "minoredit", "applychangetags", "changetags", "editcontentmodel"),
    "editprotected": ("edit", "minoredit", "applychangetags", "changetags", "editcontentmodel", "editprotected"),
    "editmycssjs": ("edit", "minoredit", "applychangetags", "changetags", "editcontentmodel", "editmyusercss", "editmyuserjson", "editmyuserjs"),
    "editmyoptions": ("editmyoptions", "editmyuserjson"),
    "editinterface": ("edit", "minoredit", "applychangetags", "changetags", "editcontentmodel", "editinterface", "edituserjson", "editsitejson"),
    "editsiteconfig": ("edit", "minoredit", "applychangetags", "changetags", "editcontentmodel", "editinterface", "edituserjson", "editsitejson", "editusercss", "edituserjs", "editsitecss", "editsitejs"),
    "createeditmovepage": ("edit", "minoredit", "applychangetags", "changetags", "editcontentmodel", "createpage", "createtalk", "delete-redirect", "move", "move-rootuserpages", "move-subpages", "move-categorypages", "suppressredirect"),
    "uploadfile": ("upload", "reupload-own"),
    "uploadeditmovefile": ("upload", "reupload-own", "reupload", "reupload-shared", "upload_by_url", "movefile", "suppressredirect"),
    "patrol": ("patrol",),
    "rollback": ("rollback",),
    "blockusers": ("block", "blockemail"),
    "viewdeleted": ("browsearchive", "deletedhistory", "deletedtext"),
    "viewrestrictedlogs": ("suppressionlog",),
    "delete": ("edit", "minoredit", "applychangetags", "changetags", "editcontentmodel", "browsearchive", "deletedhistory", "deletedtext", "delete", "bigdelete", "deletelogentry", "deleterevision", "undelete"),
    "oversight": ("suppressrevision", "viewsuppressed"),
    "protect": ("edit", "minoredit", "applychangetags", "changetags", "editcontentmodel", "editprotected", "protect"),
    "viewmywatchlist": ("viewmywatchlist",),
    "editmywatchlist": ("editmywatchlist",),
    "sendemail": ("sendemail",),
    "createaccount": ("createaccount",),
    "privateinfo": ("viewmyprivateinfo",),
    "mergehistory": ("mergehistory",),
}  # fmt: skip

# Grants every bot password has, whatever was chosen (`MWGrants::getHiddenGrants()`).
HIDDEN_GRANTS: tuple[str, ...] = ("basic",)


def parse_grants(stored: str) -> list[str]:
    """`bp_grants` as stored: a JSON list (MediaWiki's format) or comma-separated names."""
    stored = stored.strip()
    if stored.startswith("["):
        return [str(g) for g in json.loads(stored)]
    return [g.strip() for g in stored.split(",") if g.strip()]


def allowed_rights(grants: Iterable[str]) -> frozenset[str]:
    """The rights a bot-password session may use: its grants' and the hidden grants'."""
    rights: set[str] = set()
    for grant in (*HIDDEN_GRANTS, *grants):
        rights.update(GRANT_RIGHTS.get(grant, ()))
    return frozenset(rights)

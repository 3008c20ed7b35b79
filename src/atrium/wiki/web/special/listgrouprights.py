"""`Special:ListGroupRights`: every user group with its rights and the groups its members may
add or remove (`$wgGroupPermissions`, `$wgAddGroups`, `$wgRemoveGroups`)."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.accounts.rights import CHANGEABLE_BY, GROUP_RIGHTS
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

GROUP_NAMES = {"*": "(all)", "user": "Users", "autoconfirmed": "Autoconfirmed users",
               "bot": "Bots", "sysop": "Administrators", "bureaucrat": "Bureaucrats",
               "interface-admin": "Interface administrators", "suppress": "Suppressors"}  # fmt: skip


async def handle(ctx: SpecialContext) -> Response:
    groups = [
        {
            "key": key,
            "name": GROUP_NAMES.get(key, key),
            "rights": sorted(rights),
            "changes": list(CHANGEABLE_BY.get(key, ())),
        }
        for key, rights in GROUP_RIGHTS.items()
    ]
    return await render(ctx, "listgrouprights.html", "User group rights", groups=groups)


PAGE = SpecialPage("ListGroupRights", "User group rights", "users", handle)

"""Every `action=query` module (`prop=`, `list=`, `meta=`), each declared beside its body: this
tuple is the one list that dispatch (`RUNNABLE`), the `query` parameters and `action=paraminfo`
all read, so adding a module is its file and one line here.

Where the API specification and MediaWiki 1.39 differ, the declarations follow the specification
(the `token` parameters of revisions and users, five content formats, no watchlist `expiry`,
userinfo's deprecated `preferencestoken`, the `engineering` group, no usercontribs `iprange`).
"""

from __future__ import annotations

from atrium.wiki.api.modules import (
    adminlists,
    alllinks,
    allmessages,
    allpages,
    authmanagerinfo,
    backlinks,
    backlinksprop,
    categories,
    categorymembers,
    changefeeds,
    contribs,
    deletedlist,
    deletedrevs,
    filelists,
    files,
    imageinfo,
    info,
    links,
    logevents,
    outlinks,
    pagelists,
    pagemeta,
    querypage,
    revisions,
    search,
    siteinfo,
    tokens,
    userinfo,
    userlists,
)
from atrium.wiki.api.querybase import QueryModule

MODULES: tuple[QueryModule, ...] = tuple(
    sorted(
        (
            *adminlists.MODULES,
            *alllinks.MODULES,
            allmessages.MODULE,
            allpages.MODULE,
            authmanagerinfo.MODULE,
            *backlinks.MODULES,
            *backlinksprop.MODULES,
            categories.MODULE,
            categorymembers.MODULE,
            *changefeeds.MODULES,
            *contribs.MODULES,
            deletedlist.MODULE,
            deletedrevs.MODULE,
            *filelists.MODULES,
            *files.MODULES,
            imageinfo.MODULE,
            info.MODULE,
            *links.MODULES,
            logevents.MODULE,
            *outlinks.MODULES,
            *pagelists.MODULES,
            *pagemeta.MODULES,
            querypage.MODULE,
            revisions.MODULE,
            *search.MODULES,
            siteinfo.MODULE,
            tokens.MODULE,
            userinfo.MODULE,
            *userlists.MODULES,
        ),
        key=lambda module: module.spec.name,
    )
)

RUNNABLE: dict[str, QueryModule] = {module.spec.name: module for module in MODULES}

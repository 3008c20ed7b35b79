"""Every `action=query` module (`prop=`, `list=`, `meta=`), each declared beside its body: this
tuple is the one list that dispatch (`RUNNABLE`), the `query` parameters and `action=paraminfo`
all read, so adding a module is its file and one line here.

Where the API specification and MediaWiki 1.39 differ, the declarations follow the specification
(the `token` parameters of revisions and users, five content formats, no watchlist `expiry`,
userinfo's deprecated `preferencestoken`, the `engineering` group, no usercontribs `iprange`).
"""

from __future__ import annotations

from atrium.wiki.api.query.list import (
    adminlists,
    allcategories,
    alldeletedrevisions,
    alllinks,
    allpages,
    backlinks,
    categorymembers,
    changefeeds,
    contribs,
    exturlusage,
    filelists,
    logevents,
    pagepropnames,
    pageswithprop,
    protectedtitles,
    querypage,
    random,
    search,
    userlists,
    watchlistraw,
)
from atrium.wiki.api.query.meta import allmessages, authmanagerinfo, siteinfo, tokens, userinfo
from atrium.wiki.api.query.pageset import QueryModule
from atrium.wiki.api.query.prop import (
    backlinksprop,
    categories,
    deletedrevisions,
    duplicatefiles,
    imageinfo,
    info,
    links,
    outlinks,
    pagemeta,
    revisions,
    stashimageinfo,
)

# One line per file; a file that serves a family of modules (MediaWiki's own grouping) lists them.
MODULES: tuple[QueryModule, ...] = tuple(
    sorted(
        (
            *adminlists.MODULES,
            allcategories.MODULE,
            alldeletedrevisions.MODULE,
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
            deletedrevisions.MODULE,
            duplicatefiles.MODULE,
            exturlusage.MODULE,
            *filelists.MODULES,
            imageinfo.MODULE,
            info.MODULE,
            *links.MODULES,
            logevents.MODULE,
            *outlinks.MODULES,
            *pagemeta.MODULES,
            pagepropnames.MODULE,
            pageswithprop.MODULE,
            protectedtitles.MODULE,
            querypage.MODULE,
            random.MODULE,
            revisions.MODULE,
            *search.MODULES,
            siteinfo.MODULE,
            stashimageinfo.MODULE,
            tokens.MODULE,
            userinfo.MODULE,
            *userlists.MODULES,
            watchlistraw.MODULE,
        ),
        key=lambda module: module.spec.name,
    )
)

RUNNABLE: dict[str, QueryModule] = {module.spec.name: module for module in MODULES}

"""Every `action=query` module (`prop=`, `list=`, `meta=`), each declared beside its body: this
tuple is the one list that dispatch (`RUNNABLE`), the `query` parameters and `action=paraminfo`
all read, so adding a module is its file and one line here.

Where the API specification and MediaWiki 1.39 differ, the declarations follow the specification
(the `token` parameters of revisions and users, five content formats, no watchlist `expiry`,
userinfo's deprecated `preferencestoken`, the `engineering` group, no usercontribs `iprange`).
"""

from __future__ import annotations

from atrium.wiki.api.query.list import (
    allcategories,
    alldeletedrevisions,
    allimages,
    alllinks,
    allpages,
    allrevisions,
    allusers,
    backlinks,
    blocks,
    categorymembers,
    exturlusage,
    filearchive,
    logevents,
    pagepropnames,
    pageswithprop,
    prefixsearch,
    protectedtitles,
    querypage,
    random,
    recentchanges,
    search,
    tags,
    usercontribs,
    users,
    watchlist,
    watchlistraw,
)
from atrium.wiki.api.query.meta import (
    allmessages,
    authmanagerinfo,
    filerepoinfo,
    languageinfo,
    siteinfo,
    tokens,
    userinfo,
)
from atrium.wiki.api.query.pageset import QueryModule
from atrium.wiki.api.query.prop import (
    backlinksprop,
    categories,
    categoryinfo,
    contributors,
    deletedrevisions,
    duplicatefiles,
    extlinks,
    imageinfo,
    info,
    iwlinks,
    langlinks,
    links,
    pageprops,
    revisions,
    stashimageinfo,
)

# One line per file. Four files serve a family of modules on purpose: alllinks (ApiQueryAllLinks),
# backlinks (ApiQueryBacklinks), backlinksprop (ApiQueryBacklinksprop) and links (ApiQueryLinks,
# with ApiQueryImages' near copy folded in): each family is one body told apart by a table of link
# kinds, so a file per module would copy that body.
MODULES: tuple[QueryModule, ...] = tuple(
    sorted(
        (
            allcategories.MODULE,
            alldeletedrevisions.MODULE,
            allimages.MODULE,
            *alllinks.MODULES,
            allmessages.MODULE,
            allpages.MODULE,
            allrevisions.MODULE,
            allusers.MODULE,
            authmanagerinfo.MODULE,
            *backlinks.MODULES,
            *backlinksprop.MODULES,
            blocks.MODULE,
            categories.MODULE,
            categoryinfo.MODULE,
            categorymembers.MODULE,
            contributors.MODULE,
            deletedrevisions.MODULE,
            duplicatefiles.MODULE,
            extlinks.MODULE,
            exturlusage.MODULE,
            filearchive.MODULE,
            filerepoinfo.MODULE,
            imageinfo.MODULE,
            info.MODULE,
            iwlinks.MODULE,
            langlinks.MODULE,
            languageinfo.MODULE,
            *links.MODULES,
            logevents.MODULE,
            pagepropnames.MODULE,
            pageprops.MODULE,
            pageswithprop.MODULE,
            prefixsearch.MODULE,
            protectedtitles.MODULE,
            querypage.MODULE,
            random.MODULE,
            recentchanges.MODULE,
            revisions.MODULE,
            search.MODULE,
            siteinfo.MODULE,
            stashimageinfo.MODULE,
            tags.MODULE,
            tokens.MODULE,
            usercontribs.MODULE,
            userinfo.MODULE,
            users.MODULE,
            watchlist.MODULE,
            watchlistraw.MODULE,
        ),
        key=lambda module: module.spec.name,
    )
)

RUNNABLE: dict[str, QueryModule] = {module.spec.name: module for module in MODULES}

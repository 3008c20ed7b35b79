"""URLs of the wiki's pages as MediaWiki writes them: `/wiki/Prefixed_title` for a plain view,
`/w/index.php?title=…&action=…` for everything else."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from atrium.wiki.site import MAIN_PAGE, SCRIPT_PATH, Site
from atrium.wiki.titles import Title

# wfUrlencode's characters left as they are.
_SAFE = ":/!$()*,;@~"


def page_href(site: Site, title: Title) -> str:
    prefixed = site.parser.prefixed_dbkey(title.ns, title.dbkey)
    return "/wiki/" + quote(prefixed, safe=_SAFE)


def index_href(site: Site, title: Title, **params: str) -> str:
    prefixed = quote(site.parser.prefixed_dbkey(title.ns, title.dbkey), safe=_SAFE)
    extra = ("&" + urlencode(params)) if params else ""
    return f"{SCRIPT_PATH}/index.php?title={prefixed}{extra}"


def special_href(name: str, **params: str) -> str:
    extra = ("?" + urlencode(params)) if params else ""
    return "/wiki/Special:" + quote(name, safe=_SAFE) + extra


def main_page_href() -> str:
    return "/wiki/" + quote(MAIN_PAGE.replace(" ", "_"), safe=_SAFE)


def prefixed_dbkey(site: Site, title: Title) -> str:
    return site.parser.prefixed_dbkey(title.ns, title.dbkey)


def user_href(site: Site, name: str, talk: bool = False) -> str:
    """A user's page (or talk page), by the user name."""
    return page_href(site, Title(3 if talk else 2, name.replace(" ", "_")))


def prefixed_text(site: Site, title: Title) -> str:
    return site.parser.prefixed_text(title.ns, title.dbkey)

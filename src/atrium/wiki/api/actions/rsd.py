"""`action=rsd`: the Really Simple Discovery document that points clients (pywikibot's site
detection, blog editors) at this API, as ApiRsd writes it."""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import quoteattr

from atrium.wiki.api.actions import Action
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.params import ModuleSpec
from atrium.wiki.site import MAIN_PAGE

RSD = ModuleSpec("rsd", "ApiRsd", "action", "", (), readrights=False)


def _text(tag: str, value: str, **attrs: str) -> str:
    extra = "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
    return f'<{tag}{extra} xml:space="preserve">{xml_escape(value)}</{tag}>'


async def rsd(ctx: ApiContext, spec: ModuleSpec) -> dict[str, Any]:
    ctx.read(spec)
    site = ctx.site
    home = site.article_url(MAIN_PAGE.replace(" ", "_"))
    document = (
        '<?xml version="1.0"?><rsd version="1.0" xmlns="http://archipelago.phrasewise.com/rsd">'
        "<service><apis>"
        f'<api name="MediaWiki" preferred="true" apiLink={quoteattr(site.api_url)} blogID="">'
        "<settings>"
        + _text("docs", "https://www.mediawiki.org/wiki/Special:MyLanguage/API")
        + _text("setting", "false", name="OAuth")
        + "</settings></api></apis>"
        + _text("engineName", "MediaWiki")
        + _text("engineLink", "https://www.mediawiki.org/")
        + _text("homePageLink", home)
        + "</service></rsd>"
    )
    ctx.raw_body = (document.encode(), "application/rsd+xml; charset=utf-8")
    return {}


ACTION = Action(RSD, rsd)

"""`Special:PageData/main/<title>` (PageDataRequestHandler): a page's data in the format the
client's Accept header prefers, by a 303 to its raw wikitext (`action=raw`, with `oldid` for a
revision) or, when only HTML is acceptable, to the page; without a title, a page that says how
to ask. `action=raw` serves every page's text as `text/x-wiki`, whatever its content model, so
that is the one data format."""

from __future__ import annotations

from starlette.responses import PlainTextResponse, RedirectResponse, Response

from atrium.wiki.titles import InvalidTitle, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, message_page

FORMATS = ("text/x-wiki",)
MAX_ACCEPT = 50  # media ranges read from an Accept header


def accepted(header: str | None) -> list[str]:
    """The media ranges of an Accept header, best first (HttpAcceptParser::parseWeights): a
    missing `q` is 1, a range with `q=0` is left out, equal weights keep their order."""
    if header is None:
        return [FORMATS[0], "*"]
    ranges: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")[:MAX_ACCEPT]):
        media, *params = (p.strip() for p in part.split(";"))
        weight = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if media and weight > 0:
            ranges.append((-weight, index, media.lower()))
    return [media for _, _, media in sorted(ranges)]


def best_format(ranges: list[str]) -> str | None:
    """HttpAcceptNegotiator::getBestSupportedKey, then `text/html` when that is accepted."""
    for media in ranges:
        if media in FORMATS:
            return media
        if media in ("*", "*/*"):
            return FORMATS[0]
        if media.endswith("/*"):
            found = next((f for f in FORMATS if f.startswith(media[:-1])), None)
            if found is not None:
                return found
    return "text/html" if "text/html" in ranges else None


async def handle(ctx: SpecialContext) -> Response:
    slot, _, text = ctx.subpage.partition("/")
    if not ctx.subpage:
        text = ctx.param("target")
    elif slot not in ("main", ""):
        text = ""
    if not text:
        return await message_page(
            ctx, "Page data",
            "This page provides a data interface to pages. Please provide the page title in the "
            "URL, using subpage syntax.\n* Content negotiation applies based on your client's "
            "Accept header. This means that the page data will be provided in the format "
            "preferred by your client.",
            200, box="mw-message-box",
        )  # fmt: skip
    headers = {"Access-Control-Allow-Origin": "*"}
    try:
        title = ctx.site.parser.parse(text)
    except InvalidTitle:
        title = None
    if title is None or title.interwiki or not title.dbkey or title.ns < 0:
        return PlainTextResponse(f"Invalid title: {text}.", status_code=400, headers=headers)
    chosen = best_format(accepted(ctx.request.headers.get("accept")))
    if chosen is None:
        return PlainTextResponse(
            f"No matching format found. Supported MIME types: {', '.join(FORMATS)}",
            status_code=406, headers=headers,
        )  # fmt: skip
    # `revision` wins over `oldid`, as the handler reads them.
    top = 2**31 - 1
    revision = ctx.int_param("revision", 0, 0, top) or ctx.int_param("oldid", 0, 0, top)
    params: dict[str, str | int] = {"oldid": revision} if revision else {}
    links = Links(ctx.site)
    target = Title(title.ns, title.dbkey)  # a fragment goes nowhere
    if chosen == "text/html":
        href = links.page(target, **params)
    else:
        href = links.index(target, **params, action="raw")
    return RedirectResponse(ctx.site.server + href, status_code=303, headers=headers)


PAGE = SpecialPage("PageData", "Page data", "other", handle, listed=False)

"""`Special:Redirect` (`Special:Redirect/<type>/<value>`): a lookup by file name, page id,
revision id, user id or log id that redirects to the file, the page, the revision, the user's
page or the log entry, or answers 404 with the form and why ("Value not found"); and
`Special:FilePath/<file>`, which hands a file name to it (a thumbnail's `width` is not
offered: the original is the answer). A hidden user's id is refused to those
who may not see hidden users."""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.responses import RedirectResponse, Response

from atrium.wiki.changes import ChangeError
from atrium.wiki.files.paths import hash_path, url_name
from atrium.wiki.reads.stored_files import stored_file
from atrium.wiki.reads.users import account_by_id, is_hidden
from atrium.wiki.site import SCRIPT_PATH
from atrium.wiki.titles import NS_FILE, NS_SPECIAL, NS_USER, InvalidTitle, Title
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, permission_error, render

HEADING = "Redirect by file, user, page, revision, or log ID"
# The lookup types in the form's order, with their labels (redirect-user, redirect-page …).
TYPES = {
    "user": "User ID",
    "page": "Page ID",
    "revision": "Page revision",
    "file": "Filename",
    "logid": "Log ID",
}
NOT_FOUND = "Value not found"
NOT_NUMERIC = "Value not numeric"
MAX_ID = 2**31 - 1  # ids are 32-bit: a larger number names nothing
MAX_VALUE = 255


class _Refused(Exception):
    """The reader may not follow this lookup (a hidden user's id)."""


async def _target(ctx: SpecialContext, kind: str, value: str) -> tuple[str, int] | str:
    """The URL and status to redirect to, or the error to show with the form."""
    if kind == "file":
        try:
            title = ctx.site.parser.parse(value, NS_FILE)
            if title.ns != NS_FILE or title.interwiki:
                title = ctx.site.parser.parse(f"File:{value}")
        except InvalidTitle as exc:
            return exc.text
        if title.ns != NS_FILE or title.interwiki or not title.dbkey:
            return NOT_FOUND
        found = await ctx.db.read(stored_file, title.dbkey, None)
        if found is None:
            return NOT_FOUND
        name = title.dbkey
        return f"{ctx.site.images_path}{hash_path(name)}{url_name(name)}", 301
    if not value.isascii() or not value.isdigit():
        return NOT_NUMERIC
    number = int(value) if len(value) <= 12 else MAX_ID + 1
    if number == 0 or number > MAX_ID:
        return NOT_FOUND
    if kind == "user":
        account = await ctx.db.read(account_by_id, number)
        if account is None:
            return NOT_FOUND
        if not ctx.reader.allowed("hideuser") and await ctx.db.read(is_hidden, number):
            raise _Refused
        return Links(ctx.site).page(Title(NS_USER, account.name.replace(" ", "_"))), 302
    if kind == "page":
        # As MediaWiki: on to index.php by the id, which shows the page or says the id is bad.
        return f"{SCRIPT_PATH}/index.php?{urlencode({'curid': number})}", 301
    if kind == "revision":
        return f"{SCRIPT_PATH}/index.php?{urlencode({'oldid': number})}", 301
    query = urlencode({"title": "Special:Log", "logid": number})
    return f"{SCRIPT_PATH}/index.php?{query}", 301


async def handle(ctx: SpecialContext) -> Response:
    kind, _, value = ctx.subpage.partition("/")
    if ctx.param("wptype") and ctx.param("wpvalue"):
        kind, value = ctx.param("wptype"), ctx.param("wpvalue")
    kind, value = kind.strip().lower(), value.strip()[:MAX_VALUE]
    error = ""
    status = 200
    if value and kind in TYPES:
        # A value of an unknown type is only shown in the form, as MediaWiki shows it (200).
        try:
            found = await _target(ctx, kind, value)
        except _Refused:
            return await permission_error(
                ctx, "use this special page",
                ChangeError(
                    "badaccess-group0",
                    "You are not allowed to execute the action you have requested.",
                    "badaccess-group0",
                ),
            )  # fmt: skip
        if isinstance(found, tuple):
            return RedirectResponse(found[0], status_code=found[1])
        error, status = found, 404
    return await render(
        ctx, "redirect_lookup.html", HEADING, status, types=TYPES,
        kind=kind if kind in TYPES else "user", value=value, error=error,
    )  # fmt: skip


async def filepath(ctx: SpecialContext) -> Response:
    """SpecialFilepath: on to `Special:Redirect/file/<name>`, or its form with the name filled
    in when it is not a title."""
    name = (ctx.subpage or ctx.param("file")).strip()[:MAX_VALUE]
    links = Links(ctx.site)
    target = f"Special:Redirect/file/{name}"
    if name and ctx.site.parser.parse_or_none(target) is not None:
        href = links.page(Title(NS_SPECIAL, f"Redirect/file/{name}".replace(" ", "_")))
    else:
        href = links.special("Redirect/file", wpvalue=name)
    return RedirectResponse(href, status_code=302)


PAGE = SpecialPage("Redirect", HEADING, "redirects", handle)
FILEPATH_PAGE = SpecialPage("FilePath", "File path", "media", filepath, listed=False)

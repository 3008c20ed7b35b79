"""Who may fetch `/images/…`: MediaWiki's img_auth.php, which a private wiki serves its files
through. A visitor without `read` gets img_auth's 403 "Access denied" instead of the file or its
thumbnail, and the files of a wiki that is not public are marked for the browser's cache only,
so that no shared cache hands them to a visitor who may not read them."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from atrium.core.db import Database
from atrium.wiki.site import Site
from atrium.wiki.web import files
from atrium.wiki.web.viewer import current_viewer

# img_auth.php's ImageAuthForbidden template with `img-auth-accessdenied` and, as
# `$wgImgAuthDetails` is off by default, `badaccess-group0`.
_FORBIDDEN = (
    '<!DOCTYPE html>\n<html><head><meta charset="UTF-8" /><title>Access denied</title></head>'
    "<body><h1>Access denied</h1>"
    "<p>You are not allowed to execute the action you have requested.</p></body></html>\n"
)


async def image(request: Request, site: Site, db: Database) -> Response:
    viewer = await current_viewer(request, db)
    if not viewer.account.allowed("read"):
        return HTMLResponse(
            _FORBIDDEN,
            status_code=403,
            headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
        )
    response = await files.image(request, site, db)
    if site.private and response.status_code == 200:
        response.headers["Cache-Control"] = "private, max-age=86400"
    return response

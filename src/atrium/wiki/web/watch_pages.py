"""`action=watch` and `action=unwatch`: a confirmation form on GET (a link must not change
anything), the change on a POST carrying the session's token, as MediaWiki's WatchAction."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from atrium.core.db import Database
from atrium.wiki.changes.watching import set_watch
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.web import links
from atrium.wiki.web.skin import render_page
from atrium.wiki.web.texts import text
from atrium.wiki.web.viewer import csrf_ok, current_viewer


async def watch(request: Request, site: Site, db: Database, title: Title, on: bool) -> Response:
    viewer = await current_viewer(request, db)
    name = links.prefixed_text(site, title)
    heading = f"{'Watch' if on else 'Remove from watchlist'}: {name}"
    context = {
        "on": on,
        "done": False,
        "error": "",
        "form_action": links.index_href(site, title, action="watch" if on else "unwatch"),
        "page_href": links.page_href(site, title),
        "name": name,
    }
    action = "watch" if on else "unwatch"
    if not viewer.signed_in:
        # MediaWiki sends an anonymous visitor to the login form, to come back to this action.
        login = links.special_href(
            "UserLogin", returnto=name, returntoquery=f"action={action}",
            warning="watchlistanontext",
        )  # fmt: skip
        return RedirectResponse(login, 302)
    if request.method == "POST":
        form = await request.form()
        token = form.get("wpEditToken")
        if not csrf_ok(request, site, viewer, token if isinstance(token, str) else None):
            context["error"] = text("sessionfailure")
            return await render_page(
                request, site, db, "watch.html", context, title=title, heading=heading,
                action=action,
            )  # fmt: skip
        await db.write(set_watch, viewer.account.id, title, on)
        context["done"] = True
    return await render_page(
        request, site, db, "watch.html", context, title=title, heading=heading, action=action
    )

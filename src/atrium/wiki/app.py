"""The wiki service: `/w/api.php`, the browser pages and their static files on the shared server,
with its start-up and shut-down hooks."""

from __future__ import annotations

import html

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from atrium.core.db import Database, open_database
from atrium.core.mail.message import Composer
from atrium.core.service import Service
from atrium.core.sessions import SessionStore
from atrium.settings import MB, Settings
from atrium.wiki.api import main
from atrium.wiki.changes.mainpage import ensure_main_page
from atrium.wiki.files.quarantine import quarantine_unverified
from atrium.wiki.runtime import WikiRuntime
from atrium.wiki.secret_key import wiki_secret_key
from atrium.wiki.site import (
    GENERATOR,
    SCRIPT_PATH,
    Site,
    ensure_site_rows,
    load_site,
    settle_audience,
)
from atrium.wiki.web import file_access, rest_search, views
from atrium.wiki.web.assets import ASSETS, STATIC_PREFIX
from atrium.wiki.wikitext import expand


def open_wiki(settings: Settings) -> tuple[Database, Site]:
    """Migrate, open and load the wiki (used by the service start-up and by the CLI)."""
    if settings.migrate_on_start:
        # Imported here: Alembic stays out of processes that do not migrate.
        from atrium.core.migrations import upgrade

        upgrade("wiki", settings.database_url, settings.sqlite_path("wiki"))
    db = open_database(settings.database_url, settings.sqlite_path("wiki"), "wiki")
    db.write_sync(settle_audience, settings.wiki_audience)
    db.write_sync(ensure_site_rows)
    site = db.read_sync(load_site, settings.base_url)
    site.files_dir = settings.data_dir / "wiki-files"
    site.user_content_url = (settings.user_content_url or "").rstrip("/")
    site.thumb_cache_bytes = settings.wiki_thumb_cache_mb * MB
    quarantine_unverified(site.files_dir, settings.data_dir / "quarantine")
    site.secret = wiki_secret_key(settings)
    site.cors_origins = settings.wiki_cors_origins
    site.composer = Composer.from_settings(settings)
    if settings.wiki_main_page:
        db.write_sync(ensure_main_page, site)
    return db, site


def create_service(settings: Settings, sessions: SessionStore | None = None) -> Service:
    # Built at start-up, once the database is migrated and the site loaded.
    runtime: WikiRuntime | None = None

    def ready() -> WikiRuntime:
        assert runtime is not None, "the wiki is not started"
        return runtime

    expand.set_time_budget(settings.render_timeout)

    async def api(request: Request) -> Response:
        rt = ready()
        return await main.handle(rt.admit(request, reads_body=True), rt)

    async def article(request: Request) -> Response:
        rt = ready()
        request = rt.admit(request)
        return await views.guarded(request, rt.site, rt.db, views.article(request, rt.site, rt.db))

    async def index(request: Request) -> Response:
        rt = ready()
        request = rt.admit(request, reads_body=True)
        return await views.guarded(request, rt.site, rt.db, views.index(request, rt.site, rt.db))

    async def title_search(request: Request) -> Response:
        rt = ready()
        return await rest_search.title_search(rt.admit(request), rt.site, rt.db)

    async def image(request: Request) -> Response:
        rt = ready()
        request = rt.admit(request)
        return await views.guarded(
            request, rt.site, rt.db, file_access.image(request, rt.site, rt.db)
        )

    async def startup() -> None:
        nonlocal runtime
        db, site = open_wiki(settings)
        runtime = WikiRuntime(settings, db, site, sessions)
        service.state["runtime"] = runtime

    async def shutdown() -> None:
        nonlocal runtime
        if runtime is not None:
            runtime.db.close()
            runtime = None
            service.state.pop("runtime", None)

    routes = [
        Route("/w/api.php", api, methods=["GET", "POST", "HEAD", "PUT", "DELETE", "PATCH"]),
        Route("/w/index.php", index, methods=["GET", "HEAD", "POST"]),
        Route("/wiki/{title:path}", article, methods=["GET", "HEAD"]),
        Route("/wiki/", article, methods=["GET", "HEAD"]),
        Route("/images/{path:path}", image, methods=["GET", "HEAD"]),
        Route("/w/rest.php/v1/search/title", title_search, methods=["GET", "HEAD"]),
        Route(STATIC_PREFIX + "{name}", ASSETS.response, methods=["GET", "HEAD"]),
    ]
    service = Service("wiki", routes, [startup], [shutdown], root_head=discovery_head(settings))
    return service


def discovery_head(settings: Settings) -> str:
    """The generator meta and the RSD link every wiki page carries, for the site root: bot
    frameworks given the bare host (pywikibot's `generate_family_file`) find the API there."""
    rsd = html.escape(f"{settings.base_url}{SCRIPT_PATH}/api.php?action=rsd", quote=True)
    return (
        f'<meta name="generator" content="{GENERATOR}"/>\n'
        f'<link rel="EditURI" type="application/rsd+xml" href="{rsd}"/>'
    )

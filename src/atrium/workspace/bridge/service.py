"""The bridge as a part of the server: what it hands to the chat and the wiki once both run, and
its own routes (under the chat's `/api/v1/atrium/` and `/json/atrium/`)."""

from __future__ import annotations

import asyncio

from starlette.routing import BaseRoute, Route

from atrium.chat.http import rest, with_json_twins
from atrium.chat.rendering import install_wiki_link_resolver
from atrium.chat.runtime import ChatRuntime
from atrium.chat.web.neighbours import WIKI_HOME
from atrium.core.service import Service
from atrium.settings import Settings
from atrium.wiki.runtime import WikiRuntime
from atrium.wiki.web import neighbours as wiki_neighbours
from atrium.wiki.web.links import main_page_href
from atrium.workspace.bridge import chat_links
from atrium.workspace.bridge.feed import WikiFeed
from atrium.workspace.bridge.notification_views import notification_views
from atrium.workspace.bridge.preview_views import preview_view
from atrium.workspace.bridge.rule_views import rule_views, settings_views
from atrium.workspace.bridge.search_views import chat_search_for_wiki, search_view
from atrium.workspace.bridge.settings_page import settings_for_wiki
from atrium.workspace.bridge.store import open_bridge_database
from atrium.workspace.bridge.title_views import titles_view
from atrium.workspace.bridge.topics import chat_topic_for_wiki
from atrium.workspace.bridge.wiki_links import wiki_link_resolver


def bridge_service(settings: Settings, chat: Service, wiki: Service) -> Service:
    """Its routes go before the chat's (whose catch-all answers every other `/api/v1` path);
    what it hands over waits for the wiki's start-up, which builds the wiki's runtime."""
    chat_runtime: ChatRuntime = chat.state["runtime"]

    def running_wiki() -> WikiRuntime | None:
        runtime: WikiRuntime | None = wiki.state.get("runtime")
        return runtime

    db = open_bridge_database(settings)
    feed = WikiFeed(chat_runtime, running_wiki, db)
    tasks: list[asyncio.Task[None]] = []

    async def startup() -> None:
        if settings.migrate_on_start:
            # Imported here: Alembic stays out of processes that do not migrate.
            from atrium.core import migrations

            migrations.upgrade("bridge", settings.database_url, settings.sqlite_path("bridge"))

    async def connect() -> None:
        wiki_runtime = running_wiki()
        assert wiki_runtime is not None, "the wiki starts before the bridge connects"
        install_wiki_link_resolver(chat_runtime.db, wiki_link_resolver(running_wiki))
        chat_runtime.db.services[WIKI_HOME] = main_page_href()
        services = wiki_runtime.db.services
        services[wiki_neighbours.CHAT_HOME] = "/"
        services[wiki_neighbours.CHAT_SEARCH] = chat_search_for_wiki(chat_runtime, running_wiki)
        services[wiki_neighbours.CHAT_TOPIC] = chat_topic_for_wiki(chat_runtime, db)
        services[wiki_neighbours.WORKSPACE_SETTINGS] = settings_for_wiki(
            chat_runtime, db, running_wiki
        )
        wiki_runtime.site.add_interwiki(chat_links.PREFIX, chat_links.PATH + "$1")
        if settings.wiki_feed_seconds > 0:
            tasks.append(asyncio.create_task(feed.run_forever(settings.wiki_feed_seconds)))

    async def stop_feed() -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        tasks.clear()

    async def shutdown() -> None:
        db.close()

    wiki.startup.append(connect)
    # Before the wiki (and then the chat) close their databases.
    wiki.shutdown.insert(0, stop_feed)
    list_rules, add_rule, remove_rule = rule_views(db, running_wiki)
    get_settings, update_settings = settings_views(db)
    get_notifications, update_notifications = notification_views(db)
    api: list[BaseRoute] = [
        rest(chat_runtime, "/atrium/search", GET=search_view(running_wiki)),
        rest(chat_runtime, "/atrium/wiki_titles", GET=titles_view(running_wiki)),
        rest(chat_runtime, "/atrium/wiki_preview", GET=preview_view(running_wiki)),
        rest(chat_runtime, "/atrium/wiki_feed/rules", GET=list_rules, POST=add_rule),
        rest(chat_runtime, "/atrium/wiki_feed/rules/{rule_id:int}", DELETE=remove_rule),
        rest(chat_runtime, "/atrium/workspace_settings", GET=get_settings, PATCH=update_settings),
        rest(
            chat_runtime,
            "/atrium/notification_settings",
            GET=get_notifications,
            PATCH=update_notifications,
        ),
    ]
    routes = with_json_twins(chat_runtime, api)
    routes.append(
        Route(chat_links.PATH + "{rest:path}", chat_links.chat_link_redirect(chat_runtime))
    )
    # Without the catch-alls `with_json_twins` adds: the chat's own answer the rest.
    routes = [r for r in routes if "{path:path}" not in getattr(r, "path", "")]
    service = Service("bridge", routes, [startup], [shutdown])
    service.state.update(db=db, feed=feed)
    return service

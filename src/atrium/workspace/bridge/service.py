"""The bridge as a part of the server: what it hands to the chat and the wiki once both run, and
its own routes (under the chat's `/api/v1/atrium/` and `/json/atrium/`)."""

from __future__ import annotations

from atrium.chat.http import rest, with_json_twins
from atrium.chat.rendering import install_wiki_link_resolver
from atrium.chat.runtime import ChatRuntime
from atrium.chat.web.neighbours import WIKI_HOME
from atrium.core.service import Service
from atrium.settings import Settings
from atrium.wiki.runtime import WikiRuntime
from atrium.wiki.web import neighbours as wiki_neighbours
from atrium.wiki.web.links import main_page_href
from atrium.workspace.bridge.search_views import chat_search_for_wiki, search_view
from atrium.workspace.bridge.wiki_links import wiki_link_resolver


def bridge_service(settings: Settings, chat: Service, wiki: Service) -> Service:
    """Its routes go before the chat's (whose catch-all answers every other `/api/v1` path);
    what it hands over waits for the wiki's start-up, which builds the wiki's runtime."""
    chat_runtime: ChatRuntime = chat.state["runtime"]

    def running_wiki() -> WikiRuntime | None:
        runtime: WikiRuntime | None = wiki.state.get("runtime")
        return runtime

    async def connect() -> None:
        wiki_runtime = running_wiki()
        assert wiki_runtime is not None, "the wiki starts before the bridge connects"
        install_wiki_link_resolver(chat_runtime.db, wiki_link_resolver(running_wiki))
        chat_runtime.db.services[WIKI_HOME] = main_page_href()
        services = wiki_runtime.db.services
        services[wiki_neighbours.CHAT_HOME] = "/"
        services[wiki_neighbours.CHAT_SEARCH] = chat_search_for_wiki(chat_runtime, running_wiki)

    wiki.startup.append(connect)
    routes = with_json_twins(
        chat_runtime, [rest(chat_runtime, "/atrium/search", GET=search_view(running_wiki))]
    )
    # Without the catch-alls `with_json_twins` adds: the chat's own answer the rest.
    routes = [r for r in routes if "{path:path}" not in getattr(r, "path", "")]
    return Service("bridge", routes, [], [])

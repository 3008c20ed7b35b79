"""The bridge as a service of the server: what it hands to the chat and the wiki at start-up,
and its own routes."""

from __future__ import annotations

from atrium.chat.rendering import install_wiki_link_resolver
from atrium.chat.runtime import ChatRuntime
from atrium.core.service import Service
from atrium.settings import Settings
from atrium.wiki.runtime import WikiRuntime
from atrium.workspace.bridge.wiki_links import wiki_link_resolver


def bridge_service(settings: Settings, chat: Service, wiki: Service) -> Service:
    """Started after both services (the wiki's runtime exists only once it has started)."""
    chat_runtime: ChatRuntime = chat.state["runtime"]

    def running_wiki() -> WikiRuntime | None:
        runtime: WikiRuntime | None = wiki.state.get("runtime")
        return runtime

    async def startup() -> None:
        install_wiki_link_resolver(chat_runtime.db, wiki_link_resolver(running_wiki))

    return Service("bridge", [], [startup], [])

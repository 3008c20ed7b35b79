"""Composing the app's services as one workspace: the shared session store signs a person in to
every service at once, and each service is handed the person's one account (`core.accounts`)."""

from __future__ import annotations

import logging

from atrium.chat.events import Notice
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Database
from atrium.core.service import Service
from atrium.core.sessions import SessionStore
from atrium.workspace import identities
from atrium.workspace.members import Members

log = logging.getLogger(__name__)


def _runtime_db(service: Service | None) -> Database | None:
    runtime = service.state.get("runtime") if service is not None else None
    return runtime.db if runtime is not None else None


def compose(services: list[Service], base_url: str, guest_edits: bool = False) -> Members:
    """Join the built services (the sessions service first) into one workspace; the members
    operations it returns are also what the services were given."""
    by_name = {s.name: s for s in services}
    store: SessionStore = by_name["sessions"].state["store"]
    store.companions = identities.companions
    members = Members(
        store.db,
        lambda: _runtime_db(by_name.get("chat")),
        lambda: _runtime_db(by_name.get("wiki")),
        base_url,
        guest_edits,
    )
    chat = by_name.get("chat")
    if chat is not None:
        runtime: ChatRuntime = chat.state["runtime"]
        runtime.accounts = members
        members.chat_runtime = lambda: runtime
        runtime.observers.append(lambda notices: follow_chat(members, notices))
    return members


async def follow_chat(members: Members, notices: list[Notice]) -> None:
    """New, changed, deactivated and reactivated chat users: their identity and wiki user follow.
    A failure here leaves a half-made member, which the next change or `atrium link-accounts`
    completes; the chat's own change is already committed and must not be reported failed."""
    for notice in notices:
        event = notice.event
        if event.get("type") != "realm_user":
            continue
        person = event.get("person") or {}
        user_id = person.get("user_id")
        if not isinstance(user_id, int):
            continue
        try:
            if event.get("op") == "add":
                await members.adopt_chat_user(user_id)
            await members.sync_chat_user(user_id)
        except Exception:
            log.exception("could not bring chat user %s's identity up to date", user_id)

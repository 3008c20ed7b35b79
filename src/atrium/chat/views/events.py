"""POST /register, GET /events (long-poll) and DELETE /events."""

from __future__ import annotations

import random
from typing import Any

from atrium.chat.errors import ChatError
from atrium.chat.events import QueueOptions
from atrium.chat.events.message_filter import check_event_narrow
from atrium.chat.events.state import StateRequest, initial_state
from atrium.chat.http import ApiRequest
from atrium.chat.narrow import parse_narrow
from atrium.chat.typed_endpoint import Json, typed_endpoint
from atrium.chat.version import ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION


def bad_queue(queue_id: str) -> ChatError:
    return ChatError(f"Bad event queue ID: {queue_id}", "BAD_EVENT_QUEUE_ID", queue_id=queue_id)


@typed_endpoint
async def register(
    req: ApiRequest,
    *,
    event_types: Json[list[str] | None] = None,
    fetch_event_types: Json[list[str] | None] = None,
    narrow: Json[list[Any]] = [],  # noqa: B006 (never mutated)
    apply_markdown: Json[bool] = False,
    client_gravatar: Json[bool] = False,
    include_subscribers: Json[bool] = False,
    client_capabilities: Json[dict[str, bool]] = {},  # noqa: B006 (never mutated)
    slim_presence: Json[bool] = False,
) -> dict[str, Any]:
    event_narrow = check_event_narrow(parse_narrow(narrow))
    queue_id = None
    if event_types is None or event_types:
        options = QueueOptions(
            None if event_types is None else frozenset(event_types),
            apply_markdown=apply_markdown,
            client_gravatar=client_gravatar,
            narrow=tuple(tuple(term) for term in event_narrow),
        )
        # The queue exists before the state is read: a change made in between arrives as an
        # event, never falls through the gap.
        queue_id = await req.runtime.events.register(req.me.id, options)
    fetch = fetch_event_types if fetch_event_types is not None else event_types
    state_request = StateRequest(
        user=req.me,
        base_url=req.runtime.settings.base_url,
        client_gravatar=client_gravatar,
        include_subscribers=include_subscribers,
        user_settings_object=bool(client_capabilities.get("user_settings_object")),
        slim_presence=slim_presence,
        max_file_upload_size_mib=req.runtime.settings.max_file_upload_size_mib,
    )
    state = await req.runtime.db.read(initial_state, state_request, fetch)
    return {
        "queue_id": queue_id,
        "last_event_id": -1,
        "zulip_version": ZULIP_VERSION,
        "zulip_feature_level": ZULIP_FEATURE_LEVEL,
        "zulip_merge_base": ZULIP_MERGE_BASE,
        **state,
    }


@typed_endpoint(rate_limited=False)
async def get_events(
    req: ApiRequest,
    *,
    queue_id: str,
    last_event_id: Json[int] | None = None,
    dont_block: Json[bool] = False,
) -> dict[str, Any]:
    # Zulip answers an idle long-poll with a heartbeat after 45 + 0..10 seconds.
    heartbeat = req.runtime.heartbeat_seconds
    timeout = 0.0 if dont_block else heartbeat + random.uniform(0, heartbeat / 4.5)
    events = await req.runtime.events.get_events(queue_id, req.me.id, last_event_id, timeout)
    if events is None:
        raise bad_queue(queue_id)
    return {"events": events, "queue_id": queue_id}


@typed_endpoint(rate_limited=False)
async def delete_queue(req: ApiRequest, *, queue_id: str) -> dict[str, Any]:
    if not await req.runtime.events.delete(queue_id, req.me.id):
        raise bad_queue(queue_id)
    return {}

"""POST /register, GET /events (long-poll) and DELETE /events."""

from __future__ import annotations

import random
from typing import Any

from atrium.chat.errors import ChatError
from atrium.chat.events import QueueOptions
from atrium.chat.events.message_filter import check_event_narrow
from atrium.chat.events.state import StateRequest, initial_state
from atrium.chat.http import ApiRequest, api
from atrium.chat.narrow import parse_narrow
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.version import ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION


def bad_queue(queue_id: str) -> ChatError:
    return ChatError(f"Bad event queue ID: {queue_id}", "BAD_EVENT_QUEUE_ID", queue_id=queue_id)


@api(
    Endpoint(
        (
            Param("event_types", list[str] | None, None),
            Param("fetch_event_types", list[str] | None, None),
            Param("narrow", list[Any], []),
            Param("apply_markdown", bool, False),
            Param("client_gravatar", bool, False),
            Param("include_subscribers", bool, False),
            Param("client_capabilities", dict[str, bool], {}),
        )
    )
)
async def register(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    narrow = check_event_narrow(parse_narrow(args["narrow"]))
    event_types = args["event_types"]
    queue_id = None
    if event_types is None or event_types:
        options = QueueOptions(
            None if event_types is None else frozenset(event_types),
            apply_markdown=args["apply_markdown"],
            client_gravatar=args["client_gravatar"],
            narrow=tuple(tuple(term) for term in narrow),
        )
        # The queue exists before the state is read: a change made in between arrives as an
        # event, never falls through the gap.
        queue_id = await req.runtime.events.register(req.me.id, options)
    fetch = args["fetch_event_types"] if args["fetch_event_types"] is not None else event_types
    state_request = StateRequest(
        user=req.me,
        base_url=req.runtime.settings.base_url,
        client_gravatar=args["client_gravatar"],
        include_subscribers=args["include_subscribers"],
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


@api(
    Endpoint(
        (
            Param("queue_id", default=REQUIRED),
            Param("last_event_id", int, None),
            Param("dont_block", bool, False),
        )
    ),
    rate_limited=False,
)
async def get_events(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    # Zulip answers an idle long-poll with a heartbeat after 45 + 0..10 seconds.
    heartbeat = req.runtime.heartbeat_seconds
    timeout = 0.0 if args["dont_block"] else heartbeat + random.uniform(0, heartbeat / 4.5)
    events = await req.runtime.events.get_events(
        args["queue_id"], req.me.id, args["last_event_id"], timeout
    )
    if events is None:
        raise bad_queue(args["queue_id"])
    return {"events": events, "queue_id": args["queue_id"]}


@api(Endpoint((Param("queue_id", default=REQUIRED),)), rate_limited=False)
async def delete_queue(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    if not await req.runtime.events.delete(args["queue_id"], req.me.id):
        raise bad_queue(args["queue_id"])
    return {}

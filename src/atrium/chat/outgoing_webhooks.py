"""Outgoing webhooks: once a message is committed, POST it to every outgoing-webhook bot it
triggers (a mention in a stream, a direct message to the bot), and post what each answers.

Runs as background tasks of the serving process, never inside the request's transaction, so a
slow or dead endpoint delays nobody's send. Each call has a timeout; a connection failure, a
timeout or a 5xx is retried (three attempts in all), after which the bot says `Failure! Bot is
unavailable` where it was asked and the owner is told, as Zulip does. Tasks in flight when the
process stops are lost (Zulip keeps them in a queue). Every call goes through the egress
policy (core/egress.py): by default no loopback or private address is reached, and no redirect
followed. What a failing endpoint answered, and why it could not be reached, is passed on to
nobody: the URL may be an internal service's, and the reasons would map its ports.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx

from atrium.chat.actions.bots import INTERFACE_SLACK
from atrium.chat.actions.messages import prerender_content
from atrium.chat.actions.outgoing_webhooks import active_bot, report_failure, send_bot_reply
from atrium.chat.queries.outgoing_webhooks import Trigger, triggered_bots
from atrium.chat.runtime import ChatRuntime
from atrium.chat.version import ZULIP_VERSION
from atrium.core.egress import EgressPolicy, EgressRefused

log = logging.getLogger(__name__)

TIMEOUT_SECONDS = 10.0
ATTEMPTS = 3
# What the owner is told when no answer came, whatever the reason (refused, closed, timed out).
UNREACHABLE = "The webhook service could not be reached."
# Tasks in flight: held so they are not collected before they finish.
_PENDING: set[asyncio.Task[None]] = set()


def dispatch(runtime: ChatRuntime, message_id: int) -> None:
    """Start the webhook calls a committed message triggers, without waiting for them."""
    task = asyncio.get_running_loop().create_task(_deliver_all(runtime, message_id))
    _PENDING.add(task)
    task.add_done_callback(_PENDING.discard)


async def wait_for_pending() -> None:
    """Until every call started so far has finished (what tests wait on)."""
    while _PENDING:
        await asyncio.gather(*list(_PENDING), return_exceptions=True)


async def _deliver_all(runtime: ChatRuntime, message_id: int) -> None:
    try:
        triggers = await runtime.db.read(triggered_bots, message_id)
        await asyncio.gather(*(_deliver(runtime, t) for t in triggers))
    except Exception:  # a background task has nobody to answer: log and go on
        log.exception("outgoing webhooks for message %s failed", message_id)


def _request(trigger: Trigger) -> dict[str, Any]:
    """The POST's body: Zulip's JSON payload, or the form a Slack-style endpoint expects."""
    message = trigger.message
    if trigger.interface == INTERFACE_SLACK:
        return {
            "data": {
                "token": trigger.token,
                "team_id": trigger.realm_str,
                "team_domain": trigger.realm_str,
                "channel_id": str(message["stream_id"]),
                "channel_name": message["display_recipient"],
                "thread_ts": str(message["timestamp"]),
                "timestamp": str(message["timestamp"]),
                "user_id": str(message["sender_id"]),
                "user_name": message["sender_full_name"],
                "text": message["content"],
                "trigger_word": trigger.trigger,
                "service_id": str(trigger.bot_id),
            }
        }
    return {
        "json": {
            "bot_email": trigger.bot_email,
            "bot_full_name": trigger.bot_full_name,
            "data": message["content"],
            "message": message,
            "token": trigger.token,
            "trigger": trigger.trigger,
        }
    }


def _reply_content(trigger: Trigger, body: Any) -> str | None:
    """What the bot says back: `content` (Zulip format) or `text` (Slack format); nothing when
    the answer is `response_not_required` or empty."""
    if not isinstance(body, dict) or body.get("response_not_required"):
        return None
    key = "text" if trigger.interface == INTERFACE_SLACK else "content"
    content = body.get(key)
    if content is None or not str(content).strip():
        return None
    return str(content)


async def _deliver(runtime: ChatRuntime, trigger: Trigger) -> None:
    message = trigger.message
    if trigger.interface == INTERFACE_SLACK and message["type"] != "stream":
        failure = "Slack outgoing webhooks don't support direct messages."
        await runtime.write(report_failure, trigger.bot_id, message, failure, failure)
        return
    headers = {"User-Agent": f"ZulipOutgoingWebhook/{ZULIP_VERSION}"}
    policy = EgressPolicy.from_settings(runtime.settings)
    response: httpx.Response | None = None
    for _attempt in range(ATTEMPTS):
        try:
            response = await policy.post(
                trigger.base_url, timeout=TIMEOUT_SECONDS, headers=headers, **_request(trigger)
            )
        except EgressRefused as exc:
            log.warning("outgoing webhook of bot %s refused: %s", trigger.bot_id, exc)
            response = None
            break
        except httpx.HTTPError:
            response = None
            continue
        if response.status_code < 500:
            break
    if response is None or response.status_code >= 500:
        detail = UNREACHABLE if response is None else _status_detail(response)
        await runtime.write(report_failure, trigger.bot_id, message, "Bot is unavailable", detail)
        return
    if not 200 <= response.status_code < 300:
        failure = f"Third party responded with {response.status_code}"
        await runtime.write(
            report_failure, trigger.bot_id, message, failure, _status_detail(response)
        )
        return
    try:
        body = json.loads(response.text) if response.text.strip() else {}
    except ValueError:
        await runtime.write(
            report_failure,
            trigger.bot_id,
            message,
            "Invalid JSON in response",
            _status_detail(response),
        )
        return
    content = _reply_content(trigger, body)
    if content is not None:
        bot = await runtime.db.read(active_bot, trigger.bot_id)
        prerendered = None if bot is None else await prerender_content(runtime.db, bot, content)
        await runtime.write(send_bot_reply, trigger.bot_id, message, content, prerendered)


def _status_detail(response: httpx.Response) -> str:
    """The owner learns the status code, not the body: an allowed internal service's answer must
    not leak."""
    return f"The webhook got a response with status code *{response.status_code}*."

"""Which message events a narrowed queue (POST /register with `narrow`) receives.

The narrow compiler turns a narrow into SQL for stored messages; an event is a message object in
hand, so here the same operators are checked in Python. Operators that need the database
(search, has:…) are refused at registration rather than silently ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from atrium.chat.errors import ChatError
from atrium.chat.narrow import Term

SUPPORTED = {"stream", "topic", "sender", "is", "dm", "dm-including", "id"}
SUPPORTED_IS = {"dm", "private", "starred", "mentioned", "alerted", "unread", "resolved"}


def check_event_narrow(terms: Sequence[Term]) -> list[list[Any]]:
    """The narrow as stored with the queue; BAD_NARROW for what events cannot be matched on."""
    for term in terms:
        if term.operator not in SUPPORTED or (
            term.operator == "is" and term.operand not in SUPPORTED_IS
        ):
            desc = f"{term.operator}:{term.operand} is not supported for event queues"
            raise ChatError(f"Invalid narrow operator: {desc}", "BAD_NARROW", desc=desc)
    return [[t.operator, t.operand, t.negated] for t in terms]


def _participants(message: dict[str, Any]) -> set[str]:
    recipients = message.get("display_recipient")
    if not isinstance(recipients, list):
        return set()
    return {str(r["id"]) for r in recipients} | {r["email"].lower() for r in recipients}


def _matches(operator: str, operand: Any, message: dict[str, Any], flags: list[str]) -> bool:
    is_stream = message.get("type") == "stream"
    if operator == "stream":
        if not is_stream:
            return False
        if isinstance(operand, int) or str(operand).isdigit():
            return str(message.get("stream_id")) == str(operand) or (
                str(message["display_recipient"]).lower() == str(operand).lower()
            )
        return str(message["display_recipient"]).lower() == str(operand).lower()
    if operator == "topic":
        return is_stream and message.get("subject", "").lower() == str(operand).lower()
    if operator == "sender":
        return str(operand).lower() in {str(message["sender_id"]), message["sender_email"].lower()}
    if operator == "id":
        return str(message["id"]) == str(operand)
    if operator == "dm":
        wanted = operand if isinstance(operand, list) else str(operand).split(",")
        keys = {str(w).strip().lower() for w in wanted if str(w).strip()}
        participants = _participants(message)
        return not is_stream and keys <= participants
    if operator == "dm-including":
        return not is_stream and str(operand).lower() in _participants(message)
    # operator == "is"
    if operand in {"dm", "private"}:
        return not is_stream
    if operand == "resolved":
        return is_stream and message.get("subject", "").startswith("✔ ")
    if operand == "unread":
        return "read" not in flags
    if operand == "mentioned":
        return bool({"mentioned", "wildcard_mentioned"} & set(flags))
    if operand == "alerted":
        return "has_alert_word" in flags
    return operand in flags  # starred


def message_matches(narrow: Sequence[Sequence[Any]], event: dict[str, Any]) -> bool:
    message = event["message"]
    flags = event.get("flags", [])
    return all(
        _matches(operator, operand, message, flags) != bool(negated)
        for operator, operand, negated in narrow
    )

"""The `zulip` package's calls for reactions, typing, presence, alert words and topics, and the
`zulip-run-bot helloworld` bot, against a real `atrium serve` process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import zulip

from tests.e2e.conftest import LiveChat

pytestmark = pytest.mark.e2e


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["result"] == "success", result
    return result


def test_zulip_client_wrappers(live_chat_module: LiveChat) -> None:
    owner, member = live_chat_module.owner, live_chat_module.member
    ok(
        owner.add_subscriptions(
            streams=[{"name": "general"}], principals=[live_chat_module.member_email]
        )
    )
    sent = ok(
        member.send_message({"type": "stream", "to": "general", "topic": "t", "content": "hi"})
    )
    ok(owner.add_reaction({"message_id": sent["id"], "emoji_name": "joy"}))
    ok(
        member.add_reaction(
            {
                "message_id": sent["id"],
                "emoji_name": "joy",
                "emoji_code": "1f602",
                "reaction_type": "unicode_emoji",
            }
        )
    )
    message = ok(member.call_endpoint(url=f"messages/{sent['id']}", method="GET"))["message"]
    assert [r["emoji_code"] for r in message["reactions"]] == ["1f602", "1f602"]
    ok(owner.remove_reaction({"message_id": sent["id"], "emoji_name": "joy"}))

    member_id = ok(member.get_profile())["user_id"]
    ok(owner.set_typing_status({"op": "start", "to": [member_id]}))
    ok(owner.set_typing_status({"op": "stop", "to": [member_id]}))

    presence = ok(member.update_presence({"status": "active", "new_user_input": True}))
    assert live_chat_module.member_email in presence["presences"]
    assert (
        ok(owner.get_user_presence(live_chat_module.member_email))["presence"]["aggregated"][
            "status"
        ]
        == "active"
    )
    assert live_chat_module.member_email in ok(owner.get_realm_presence())["presences"]

    assert ok(member.add_alert_words(["Coffee"]))["alert_words"] == ["Coffee"]
    assert ok(member.get_alert_words())["alert_words"] == ["Coffee"]
    assert ok(member.remove_alert_words(["coffee"]))["alert_words"] == []

    stream_id = ok(owner.get_stream_id("general"))["stream_id"]
    topics = ok(member.get_stream_topics(stream_id))["topics"]
    assert topics == [{"name": "t", "max_id": sent["id"]}]


def _bot_runner() -> str | None:
    found = shutil.which("zulip-run-bot") or str(Path(sys.executable).with_name("zulip-run-bot"))
    return found if Path(found).exists() else None


def test_helloworld_bot_replies_and_reacts(live_chat_module: LiveChat, tmp_path: Path) -> None:
    runner = _bot_runner()
    if runner is None:
        pytest.skip("zulip-run-bot (the zulip_bots package) is not installed")
    owner = live_chat_module.owner
    bot_rc = tmp_path / "bot.zuliprc"
    bot_rc.write_text(live_chat_module.bot_zuliprc)
    log = tmp_path / "bot.log"
    with log.open("w") as out:
        bot = subprocess.Popen(
            [runner, "helloworld", "--config-file", str(bot_rc)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        # The bot registers its event queue some time after it starts, and misses what was sent
        # before: send again every second until it answers, instead of sleeping a fixed time.
        sent_ids: list[int] = []
        next_send = 0.0
        deadline = time.monotonic() + 30
        reply: dict[str, Any] | None = None
        reactions: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            if reply is None and time.monotonic() >= next_send:
                message = {
                    "type": "private",
                    "to": [live_chat_module.bot_email],
                    "content": "hello",
                }
                sent_ids.append(ok(owner.send_message(message))["id"])
                next_send = time.monotonic() + 1
            dms = ok(
                owner.get_messages(
                    {
                        "anchor": "newest",
                        "num_before": 5 + 2 * len(sent_ids),
                        "num_after": 0,
                        "narrow": [{"operator": "is", "operand": "dm"}],
                    }
                )
            )["messages"]
            reply = next((m for m in dms if m["sender_email"] == live_chat_module.bot_email), None)
            reactions = next(
                (m["reactions"] for m in dms if m["id"] in sent_ids and m["reactions"]), []
            )
            if reply is not None and reactions:
                break
            time.sleep(0.2)
        assert reply is not None and "beep boop" in reply["content"], log.read_text()
        assert [r["emoji_name"] for r in reactions] == ["wave"], log.read_text()
    finally:
        bot.terminate()
        bot.wait(timeout=10)


def test_client_registers_for_everything(live_chat_module: LiveChat) -> None:
    state = ok(live_chat_module.member.register())
    for key in ("presences", "user_settings", "realm_user_settings_defaults", "alert_words"):
        assert key in state
    assert isinstance(live_chat_module.member, zulip.Client)

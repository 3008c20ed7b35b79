"""Script uploads to the chat, generated: every name and declared type of the hostile files in
`test_fuzz_hostile_files_and_bodies.py`, each stored (the chat keeps any file) and opened by its
uploader, signed in, on the chat's own origin, where it must never be able to run."""

from __future__ import annotations

import random

import pytest

from tests.chat.conftest import ChatHarness, assert_json_success, chat, settings
from tests.chat.uploads_helpers import post_files
from tests.security.test_fuzz_hostile_files_and_bodies import SEED, UPLOADS, _cases, _served_safely

pytestmark = [pytest.mark.anyio, pytest.mark.fuzz]
__all__ = ["chat", "settings"]


async def test_generated_script_uploads_to_the_chat(chat: ChatHarness) -> None:
    rng = random.Random(SEED + 1)
    for kind, name, data, declared in _cases(rng, UPLOADS):
        case = f"{kind} as {name} ({declared})"
        response = await post_files(
            chat,
            "/user_uploads",
            chat.hamlet,
            [(name, data, declared or "application/octet-stream")],
        )
        uri = assert_json_success(response)["uri"]
        served = await chat.client.get(uri, headers=chat.hamlet.auth())
        _served_safely(served, case)
        if served.status_code == 200:
            assert served.content == data, case

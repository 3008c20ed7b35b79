"""Uploading through api.php in the wiki's tests: a small valid PNG, and one upload asserted to
succeed."""

from __future__ import annotations

from typing import Any

import httpx
from tests.wiki.conftest import WikiHarness

# A 2 × 3 PNG, small enough to upload in every test that needs a file.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000002000000030806000000"
    "9d74a6ba0000000d49444154789c63f8ffff3f0300050001ff5a2b9d0e0000000049454e44ae426082"
)


async def upload(wiki: WikiHarness, client: httpx.AsyncClient, name: str, data: bytes) -> Any:
    """`name` uploaded with `data` (warnings ignored), with "upload <name>" as its comment."""
    token = await wiki.csrf(client)
    response = await client.post(
        "/w/api.php",
        data={"action": "upload", "filename": name, "token": token, "format": "json",
              "comment": f"upload {name}", "ignorewarnings": "1"},
        files={"file": (name, data, "application/octet-stream")},
    )  # fmt: skip
    result = response.json()
    assert result["upload"]["result"] == "Success", result
    return result

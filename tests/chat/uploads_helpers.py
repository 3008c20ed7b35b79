"""Multipart requests and test images for the upload, avatar, realm image and emoji tests."""

from __future__ import annotations

import io
from typing import Any

import httpx
from PIL import Image

from tests.chat.conftest import ChatHarness, Member


def png_bytes(color: tuple[int, int, int] = (200, 30, 30), size: int = 8) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), color).save(buffer, format="PNG")
    return buffer.getvalue()


async def post_files(
    chat: ChatHarness,
    path: str,
    user: Member | None,
    files: list[tuple[str, bytes, str]],
    data: dict[str, str] | None = None,
    method: str = "POST",
) -> httpx.Response:
    """A multipart request with the given (filename, bytes, content type) files."""
    parts: list[tuple[str, Any]] = [
        (f"file{i}", (name, body, content_type))
        for i, (name, body, content_type) in enumerate(files)
    ]
    headers = user.auth() if user else {}
    if not parts:  # still multipart, as a client sending no file would
        parts = [("dummy", (None, b"x"))]
    return await chat.client.request(
        method, "/api/v1" + path, files=parts, data=data or {}, headers=headers
    )

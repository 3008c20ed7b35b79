"""Short-lived signed tokens (temporary file links) under a secret kept in the data directory.

The secret is created once, readable by the server's user only, and shared by every worker that
shares the data directory, so a token minted by one worker is honoured by another.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import time
from pathlib import Path


def server_secret(data_dir: Path) -> bytes:
    path = data_dir / "secret_key"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    data_dir.mkdir(parents=True, exist_ok=True)
    fresh = secrets.token_bytes(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another worker won the race: use its secret
        return path.read_bytes()
    with os.fdopen(fd, "wb") as f:
        f.write(fresh)
    return fresh


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(secret: bytes, value: str, max_age: float, now: float | None = None) -> str:
    expires = int((now if now is not None else time.time()) + max_age)
    payload = f"{expires}:{value}".encode()
    mac = hmac.new(secret, payload, hashlib.sha256).digest()
    return _b64(payload) + "." + _b64(mac)


def unsign(secret: bytes, token: str, now: float | None = None) -> str | None:
    """The signed value, or None for a forged, malformed or expired token."""
    try:
        payload_text, mac_text = token.split(".", 1)
        payload, mac = _unb64(payload_text), _unb64(mac_text)
    except ValueError:
        return None
    expected = hmac.new(secret, payload, hashlib.sha256).digest()
    if not hmac.compare_digest(mac, expected):
        return None
    expires_text, _, value = payload.decode("utf-8", "replace").partition(":")
    if not expires_text.isdigit() or int(expires_text) < (now if now is not None else time.time()):
        return None
    return value

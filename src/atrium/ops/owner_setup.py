"""`atrium init --link`: a one-time link where the owner sets their email, name and password.

As Zulip's organization-creation link: whoever installs the server need not know the owner's
password. The link's token is kept only as its SHA-256, in `DATA_DIR/owner-setup.json` (0600),
with the organization's name and an expiry; using it creates the organization and its owner
(`init.create_owner`) and deletes the file, so it works once.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from pathlib import Path
from typing import Any

import orjson

from atrium.core.secrets import constant_time_equals
from atrium.ops.init import Created, InitError, Owner, create_owner, ensure_empty
from atrium.settings import Settings

SETUP_FILE = "owner-setup.json"
LIFETIME_SECONDS = 7 * 24 * 3600


def _path(settings: Settings) -> Path:
    return settings.data_dir / SETUP_FILE


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_link(settings: Settings, organization: str) -> str:
    """Record a new setup token for `organization` (replacing an unused one); the link."""
    if not organization.strip():
        raise InitError("the organization needs a name")
    ensure_empty(settings)
    token = secrets.token_urlsafe(32)
    record = {
        "organization": organization.strip(),
        "token_sha256": _digest(token),
        "expires": int(time.time()) + LIFETIME_SECONDS,
    }
    path = _path(settings)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".new")
    partial.write_bytes(orjson.dumps(record))
    partial.chmod(0o600)
    partial.replace(path)
    return f"{settings.base_url}/setup/{token}"


def pending(settings: Settings, token: str) -> dict[str, Any] | None:
    """The setup record `token` opens, or None (unknown, used or expired)."""
    try:
        record: dict[str, Any] = orjson.loads(_path(settings).read_bytes())
    except (FileNotFoundError, orjson.JSONDecodeError):
        return None
    if not constant_time_equals(_digest(token), str(record.get("token_sha256", ""))):
        return None
    if int(record.get("expires", 0)) < time.time():
        return None
    return record


def complete(settings: Settings, token: str, owner: Owner) -> tuple[str, Created]:
    """Create the organization and owner the token was issued for; the organization's name.
    Blocking (databases, password hashing): run it off the event loop."""
    record = pending(settings, token)
    if record is None:
        raise InitError("this setup link is unknown, used or expired")
    organization = str(record["organization"])
    created = create_owner(settings, organization, owner)
    _path(settings).unlink(missing_ok=True)
    return organization, created

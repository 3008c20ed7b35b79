"""A signed-in session on the reference MediaWiki 1.39 (`../shared/reference/mediawiki/
mediawiki-ref.sh start`), for the capture tools that record its answers as test data."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx

BASE = os.environ.get("MWREF_BASE", "http://127.0.0.1:8181")
API = f"{BASE}/w/api.php"
PASSFILE = Path(os.environ.get("MWREF_PASSFILE", "/tmp/mwref/admin.pass"))


def api(client: httpx.Client, method: str = "GET", **params: str) -> Any:
    params = {"format": "json", "formatversion": "2", **params}
    if method == "POST":
        return client.post(API, data=params).json()
    return client.get(API, params=params).json()


def signed_in(name: str, password: str) -> httpx.Client:
    """A client signed in as `name` through `action=login`."""
    client = httpx.Client(timeout=60)
    token = api(client, action="query", meta="tokens", type="login")["query"]["tokens"]
    done = api(client, "POST", action="login", lgname=name, lgpassword=password,
               lgtoken=token["logintoken"])  # fmt: skip
    if done["login"]["result"] != "Success":
        raise SystemExit(f"login of {name} failed: {done}")
    return client


def admin_client() -> httpx.Client:
    """A client signed in as the install's `Admin`."""
    return signed_in("Admin", PASSFILE.read_text().strip())


def csrf(client: httpx.Client) -> str:
    return str(api(client, action="query", meta="tokens")["query"]["tokens"]["csrftoken"])


def edit(client: httpx.Client, title: str, text: str, summary: str = "") -> dict[str, Any]:
    done: dict[str, Any] = api(
        client, "POST", action="edit", title=title, text=text, summary=summary,
        token=csrf(client),
    )  # fmt: skip
    if "edit" not in done:
        raise SystemExit(f"edit {title} failed: {done}")
    return done


def delete(client: httpx.Client, title: str) -> None:
    """Delete the page if it exists, so that a capture starts from the same state each run."""
    api(client, "POST", action="delete", title=title, reason="capture", token=csrf(client))

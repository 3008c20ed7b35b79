"""Code playgrounds: where a code block of a given language can be opened (administrators only)."""

from __future__ import annotations

import re

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError, must_be_admin
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import User
from atrium.chat.queries.linkifiers import playground_dicts
from atrium.chat.queries.users import active_user_ids
from atrium.core.db import Conn

P = schema.realm_playground.c
MAX_PYGMENTS_LANGUAGE_LENGTH = 40
# Any language name a fenced code block may carry, known to Pygments or not (as Zulip).
_PYGMENTS_LANGUAGE = re.compile(r"^[ a-zA-Z0-9_+\-./#]*$")
# Django's URLValidator, which Zulip's `check_url` uses: a scheme, then a host that is a
# domain with a top-level domain, localhost, or an IP address; then an optional port and path.
_URL = re.compile(
    r"^(?:https?|ftps?)://"
    r"(?:[^\s:@/]+(?::[^\s:@/]*)?@)?"
    r"(?:"
    r"(?:[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?\.)+"
    r"(?:[a-z\u00a1-\uffff-]{2,63}|xn--[a-z0-9]{1,59})\.?"
    r"|localhost"
    r"|(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}"
    r"|\[[0-9a-f:.]+\]"
    r")"
    r"(?::\d{1,5})?"
    r"(?:[/?#][^\s]*)?\Z",
    re.IGNORECASE,
)


def check_pygments_language(language: str) -> str:
    if len(language) > MAX_PYGMENTS_LANGUAGE_LENGTH:
        raise ChatError(
            f"pygments_language is too long (limit: {MAX_PYGMENTS_LANGUAGE_LENGTH} characters)"
        )
    if not _PYGMENTS_LANGUAGE.match(language):
        raise ChatError("Invalid characters in pygments language")
    return language


def check_url(name: str, url: str) -> str:
    if not _URL.match(url):
        raise ChatError(f"{name} is not a URL")
    return url


def playgrounds_notice(conn: Conn, realm_id: int) -> Notice:
    event = {"type": "realm_playgrounds", "realm_playgrounds": playground_dicts(conn, realm_id)}
    return Notice(event, active_user_ids(conn, realm_id))


def add_playground(
    conn: Conn, actor: User, name: str, pygments_language: str, url_prefix: str
) -> Outcome[int]:
    if not actor.is_admin:
        raise must_be_admin()
    check_url("url_prefix", url_prefix)
    language = check_pygments_language(pygments_language).strip()
    name, url_prefix = name.strip(), url_prefix.strip()
    if not name:
        raise ChatError(
            "This field cannot be blank.", errors={"name": ["This field cannot be blank."]}
        )
    duplicate = conn.scalar(
        sa.select(P.id).where(
            P.realm_id == actor.realm_id, P.pygments_language == language, P.name == name
        )
    )
    if duplicate is not None:
        message = "Realm playground with this Realm, Pygments language and Name already exists."
        raise ChatError(message, errors={"__all__": [message]})
    playground_id: int = conn.scalar(
        sa.insert(schema.realm_playground)
        .values(
            realm_id=actor.realm_id, name=name, pygments_language=language, url_prefix=url_prefix
        )
        .returning(P.id)
    )
    return Outcome(playground_id, [playgrounds_notice(conn, actor.realm_id)])


def remove_playground(conn: Conn, actor: User, playground_id: int) -> Outcome[None]:
    if not actor.is_admin:
        raise must_be_admin()
    found = conn.scalar(sa.select(P.id).where(P.id == playground_id, P.realm_id == actor.realm_id))
    if found is None:
        raise ChatError("Invalid playground")
    conn.execute(sa.delete(schema.realm_playground).where(P.id == playground_id))
    return Outcome(None, [playgrounds_notice(conn, actor.realm_id)])

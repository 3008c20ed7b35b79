"""Linkifiers (Zulip's realm filters): add, update, remove, with Zulip's validation.

A pattern must compile and may only use what RE2 (Zulip's engine) supports, so matching stays
linear-time; rendering also bounds each match with a timeout. The URL template must be RFC 6570
and use exactly the pattern's named groups. Failures answer as Django's model validation does
in Zulip: the first message as `msg`, every message under `errors` by field.
"""

from __future__ import annotations

import re
from typing import Any

import regex
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.errors import ChatError, must_be_admin
from atrium.chat.events import Notice, Outcome
from atrium.chat.markdown.urls import sanitize_url
from atrium.chat.models import User
from atrium.chat.queries.linkifiers import linkifier_dicts
from atrium.chat.queries.users import active_user_ids
from atrium.chat.uri_templates import is_valid_template, variable_names
from atrium.core.db import Conn

F = schema.realm_filter.c

# Constructs RE2 refuses (they make matching super-linear), with RE2's wording.
_PERL_OPERATORS = ("(?=", "(?!", "(?<=", "(?<!", "(?>", "(?P=", "(?R", "(?&", "(?|", "(?(")


def validation_failure(errors: dict[str, list[str]]) -> ChatError:
    first = next(iter(errors.values()))[0]
    return ChatError(first, errors=errors)


def _re2_problem(pattern: str) -> str | None:
    """What RE2 would reject in a pattern that `regex` accepts, or None."""
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 < n and pattern[i + 1] in "123456789":
                return f"invalid escape sequence: \\{pattern[i + 1]}"
            i += 2
            continue
        if ch == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "(":
            for op in _PERL_OPERATORS:
                if pattern.startswith(op, i):
                    shown = "(?<" if op.startswith("(?<") else op
                    return f"invalid perl operator: {shown}"
        if ch in "*+?}" and i + 1 < n and pattern[i + 1] == "+":
            return f"bad repetition operator: {ch}+"
        i += 1
    return None


def compile_pattern(pattern: str) -> Any:
    """The compiled pattern, or the `pattern` field's error."""
    try:
        compiled = regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError) as exc:
        raise validation_failure({"pattern": [f"Bad regular expression: {exc}"]}) from None
    problem = _re2_problem(pattern)
    if problem is not None:
        raise validation_failure({"pattern": [f"Bad regular expression: {problem}"]})
    return compiled


def _links_safely(url_template: str) -> bool:
    """Whether the template's own text names a scheme links may have (http, https, mailto...).
    Rendering would never make a `javascript:` link anyway; refusing it up front keeps such a
    template from being stored at all."""
    sample = re.sub(r"\{[^}]*\}", "1", url_template)
    return sanitize_url(sample) is not None


def check_linkifier(
    conn: Conn, realm_id: int, pattern: str, url_template: str, except_id: int | None
) -> None:
    errors: dict[str, list[str]] = {}
    compiled = None
    if not pattern:
        errors["pattern"] = ["This field cannot be blank."]
    else:
        try:
            compiled = compile_pattern(pattern)
        except ChatError as exc:
            errors.update(exc.data["errors"])
    if not url_template:
        errors["url_template"] = ["This field cannot be blank."]
    elif not is_valid_template(url_template) or not _links_safely(url_template):
        errors["url_template"] = ["Invalid URL template."]
    if errors:
        raise validation_failure(errors)
    groups = set(compiled.groupindex) if compiled is not None else set()
    variables = variable_names(url_template)
    if variables - groups:
        name = min(variables - groups)
        raise validation_failure(
            {"__all__": [f"Group '{name}' in URL template is not present in linkifier pattern."]}
        )
    if groups - variables:
        name = min(groups - variables)
        raise validation_failure(
            {"__all__": [f"Group '{name}' in linkifier pattern is not present in URL template."]}
        )
    query = sa.select(F.id).where(F.realm_id == realm_id, F.pattern == pattern)
    if except_id is not None:
        query = query.where(F.id != except_id)
    if conn.scalar(query) is not None:
        raise validation_failure(
            {"__all__": ["Realm filter with this Realm and Pattern already exists."]}
        )


def linkifiers_notice(conn: Conn, realm_id: int) -> Notice:
    event = {"type": "realm_linkifiers", "realm_linkifiers": linkifier_dicts(conn, realm_id)}
    return Notice(event, active_user_ids(conn, realm_id))


def add_linkifier(conn: Conn, actor: User, pattern: str, url_template: str) -> Outcome[int]:
    if not actor.is_admin:
        raise must_be_admin()
    check_linkifier(conn, actor.realm_id, pattern, url_template, None)
    next_order = conn.scalar(
        sa.select(sa.func.coalesce(sa.func.max(F.order), -1) + 1).where(
            F.realm_id == actor.realm_id
        )
    )
    linkifier_id: int = conn.scalar(
        sa.insert(schema.realm_filter)
        .values(
            realm_id=actor.realm_id,
            pattern=pattern,
            url_template=url_template,
            order=int(next_order or 0),
        )
        .returning(F.id)
    )
    return Outcome(linkifier_id, [linkifiers_notice(conn, actor.realm_id)])


def _check_exists(conn: Conn, realm_id: int, linkifier_id: int) -> None:
    found = conn.scalar(sa.select(F.id).where(F.id == linkifier_id, F.realm_id == realm_id))
    if found is None:
        raise ChatError("Linkifier not found.")


def update_linkifier(
    conn: Conn, actor: User, linkifier_id: int, pattern: str, url_template: str
) -> Outcome[None]:
    if not actor.is_admin:
        raise must_be_admin()
    _check_exists(conn, actor.realm_id, linkifier_id)
    check_linkifier(conn, actor.realm_id, pattern, url_template, linkifier_id)
    conn.execute(
        sa.update(schema.realm_filter)
        .where(F.id == linkifier_id)
        .values(pattern=pattern, url_template=url_template)
    )
    return Outcome(None, [linkifiers_notice(conn, actor.realm_id)])


def remove_linkifier(conn: Conn, actor: User, linkifier_id: int) -> Outcome[None]:
    if not actor.is_admin:
        raise must_be_admin()
    _check_exists(conn, actor.realm_id, linkifier_id)
    conn.execute(sa.delete(schema.realm_filter).where(F.id == linkifier_id))
    return Outcome(None, [linkifiers_notice(conn, actor.realm_id)])

"""Custom profile fields: an administrator defines, edits, reorders and deletes them, and
users' values are validated against their field's type before they are stored.

Every change of a definition sends the whole list (`custom_profile_fields`) to the realm; a value
change sends a `realm_user` update carrying `custom_profile_field`, as Zulip 7.0 does.
"""

from __future__ import annotations

import datetime
from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.playgrounds import check_url
from atrium.chat.actions.user_admin import target_user, update_user
from atrium.chat.errors import ChatError, must_be_admin
from atrium.chat.events import Notice, Outcome
from atrium.chat.markdown import render_markdown
from atrium.chat.markdown.context import EMPTY_CONTEXT
from atrium.chat.models import User
from atrium.chat.queries.profile_fields import (
    DATE,
    EXTERNAL_ACCOUNT,
    FIELD_TYPES,
    LONG_TEXT,
    SELECT,
    SHORT_TEXT,
    URL,
    USER,
    field_row,
    field_rows,
    profile_field_dicts,
)
from atrium.chat.queries.users import active_user_ids
from atrium.core.db import Conn

F = schema.custom_profile_field.c
V = schema.custom_profile_field_value.c
U = schema.user.c

MAX_NAME_LENGTH = 40
MAX_HINT_LENGTH = 80
MAX_SHORT_VALUE_LENGTH = 50
MAX_LONG_VALUE_LENGTH = 500
MAX_SUMMARY_FIELDS = 2
# Zulip's built-in external account kinds: their name and link come from the kind.
EXTERNAL_ACCOUNTS = {
    "github": ("GitHub", "Enter your GitHub username", "https://github.com/%(username)s"),
    "twitter": ("Twitter", "Enter your Twitter username", "https://twitter.com/%(username)s"),
}


def fields_notice(conn: Conn, realm_id: int) -> Notice:
    event = {"type": "custom_profile_fields", "fields": profile_field_dicts(conn, realm_id)}
    return Notice(event, active_user_ids(conn, realm_id))


def field_not_found(field_id: int) -> ChatError:
    return ChatError(f"Field id {field_id} not found.")


def _check_field_data(field_type: int, field_data: dict[str, Any]) -> str:
    """The field's options as Zulip stores them (a JSON string), validated."""
    if field_type == SELECT:
        if not field_data:
            raise ChatError("Field must have at least one choice.")
        for key, choice in field_data.items():
            if not isinstance(choice, dict) or set(choice) != {"text", "order"}:
                raise ChatError(f"field_data[{key!r}] is not a dict with text and order")
            if not all(isinstance(v, str) for v in choice.values()):
                raise ChatError(f"field_data[{key!r}] is not a dict with text and order")
            if not choice["text"].strip():
                raise ChatError("Label cannot be blank.")
        texts = [c["text"] for c in field_data.values()]
        if len(set(texts)) != len(texts):
            raise ChatError("Field must not have duplicate choices.")
        return orjson.dumps(field_data).decode()
    if field_type == EXTERNAL_ACCOUNT:
        subtype = field_data.get("subtype")
        if subtype not in {*EXTERNAL_ACCOUNTS, "custom"}:
            raise ChatError("Invalid external account type")
        if subtype == "custom":
            pattern = field_data.get("url_pattern")
            if not isinstance(pattern, str) or pattern.count("%(username)s") != 1:
                raise ChatError("Custom external account must define URL pattern")
        return orjson.dumps(field_data).decode()
    return ""


def _check_text(name: str, hint: str) -> tuple[str, str]:
    name = name.strip()
    if not name:
        raise ChatError("Label cannot be blank.")
    if len(name) > MAX_NAME_LENGTH:
        raise ChatError(f"name is too long (limit: {MAX_NAME_LENGTH} characters)")
    if len(hint) > MAX_HINT_LENGTH:
        raise ChatError(f"hint is too long (limit: {MAX_HINT_LENGTH} characters)")
    return name, hint


def _check_summary(conn: Conn, realm_id: int, field_type: int, field_id: int | None) -> None:
    if field_type in {LONG_TEXT, USER}:
        raise ChatError("Field type not supported for display in profile summary.")
    shown = [
        r["id"]
        for r in field_rows(conn, realm_id)
        if r["display_in_profile_summary"] and r["id"] != field_id
    ]
    if len(shown) >= MAX_SUMMARY_FIELDS:
        raise ChatError("Only 2 custom profile fields can be displayed in the profile summary.")


def _check_unique(conn: Conn, realm_id: int, name: str, field_id: int | None) -> None:
    for row in field_rows(conn, realm_id):
        if row["name"] == name and row["id"] != field_id:
            raise ChatError("A field with that label already exists.")


def create_field(
    conn: Conn,
    actor: User,
    name: str,
    hint: str,
    field_type: int,
    field_data: dict[str, Any],
    display_in_profile_summary: bool,
) -> Outcome[int]:
    if not actor.is_admin:
        raise must_be_admin()
    if field_type not in FIELD_TYPES:
        raise ChatError("Invalid field type.")
    if field_type == EXTERNAL_ACCOUNT and field_data.get("subtype") in EXTERNAL_ACCOUNTS:
        name, hint, _url = EXTERNAL_ACCOUNTS[field_data["subtype"]]
    name, hint = _check_text(name, hint)
    stored_data = _check_field_data(field_type, field_data)
    _check_unique(conn, actor.realm_id, name, None)
    if display_in_profile_summary:
        _check_summary(conn, actor.realm_id, field_type, None)
    order = conn.scalar(
        sa.select(sa.func.coalesce(sa.func.max(F.order), 0)).where(F.realm_id == actor.realm_id)
    )
    field_id: int = conn.scalar(
        sa.insert(schema.custom_profile_field)
        .values(
            realm_id=actor.realm_id,
            name=name,
            hint=hint,
            field_type=field_type,
            field_data=stored_data,
            order=int(order) + 1,
            display_in_profile_summary=display_in_profile_summary,
        )
        .returning(F.id)
    )
    return Outcome(field_id, [fields_notice(conn, actor.realm_id)])


def update_field(
    conn: Conn,
    actor: User,
    field_id: int,
    name: str | None,
    hint: str | None,
    field_data: dict[str, Any] | None,
    display_in_profile_summary: bool | None,
) -> Outcome[None]:
    if not actor.is_admin:
        raise must_be_admin()
    row = field_row(conn, actor.realm_id, field_id)
    if row is None:
        raise field_not_found(field_id)
    values: dict[str, Any] = {}
    is_builtin_account = (
        row["field_type"] == EXTERNAL_ACCOUNT
        and orjson.loads(row["field_data"] or "{}").get("subtype") in EXTERNAL_ACCOUNTS
    )
    if (name is not None or hint is not None) and not is_builtin_account:
        new_name, new_hint = _check_text(
            row["name"] if name is None else name, row["hint"] if hint is None else hint
        )
        _check_unique(conn, actor.realm_id, new_name, field_id)
        values.update(name=new_name, hint=new_hint)
    if field_data is not None:
        values["field_data"] = _check_field_data(row["field_type"], field_data)
    if display_in_profile_summary is not None:
        if display_in_profile_summary:
            _check_summary(conn, actor.realm_id, row["field_type"], field_id)
        values["display_in_profile_summary"] = display_in_profile_summary
    if values:
        conn.execute(
            sa.update(schema.custom_profile_field).where(F.id == field_id).values(**values)
        )
    return Outcome(None, [fields_notice(conn, actor.realm_id)])


def delete_field(conn: Conn, actor: User, field_id: int) -> Outcome[None]:
    if not actor.is_admin:
        raise must_be_admin()
    if field_row(conn, actor.realm_id, field_id) is None:
        raise field_not_found(field_id)
    conn.execute(sa.delete(schema.custom_profile_field_value).where(V.field_id == field_id))
    conn.execute(sa.delete(schema.custom_profile_field).where(F.id == field_id))
    return Outcome(None, [fields_notice(conn, actor.realm_id)])


def reorder_fields(conn: Conn, actor: User, order: list[int]) -> Outcome[None]:
    if not actor.is_admin:
        raise must_be_admin()
    existing = {r["id"] for r in field_rows(conn, actor.realm_id)}
    if len(order) != len(existing) or set(order) != existing:
        raise ChatError("Invalid order mapping.")
    for position, field_id in enumerate(order, start=1):
        conn.execute(
            sa.update(schema.custom_profile_field).where(F.id == field_id).values(order=position)
        )
    return Outcome(None, [fields_notice(conn, actor.realm_id)])


# --- Values -------------------------------------------------------------------------------------


def _check_value(conn: Conn, realm_id: int, field: Any, value: Any) -> str:
    """The value as stored (a string), or Zulip's error for its field type."""
    name, kind = field["name"], field["field_type"]
    if kind == USER:
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise ChatError(f"{name} is not a list")
        for user_id in value:
            found = conn.scalar(
                sa.select(U.id).where(U.id == user_id, U.realm_id == realm_id, U.is_active)
            )
            if found is None:
                raise ChatError(f"Invalid user ID: {user_id}")
        return orjson.dumps(sorted(set(value))).decode()
    if not isinstance(value, str):
        raise ChatError(f"{name} is not a string")
    if kind == LONG_TEXT:
        if len(value) > MAX_LONG_VALUE_LENGTH:
            raise ChatError(f"{name} is too long (limit: {MAX_LONG_VALUE_LENGTH} characters)")
        return value
    if len(value) > MAX_SHORT_VALUE_LENGTH:
        raise ChatError(f"{name} is too long (limit: {MAX_SHORT_VALUE_LENGTH} characters)")
    if kind == SELECT:
        choices = orjson.loads(field["field_data"] or "{}")
        if value not in choices:
            raise ChatError(f"'{value}' is not a valid choice for '{name}'.")
    elif kind == DATE:
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            raise ChatError(f"{name} is not a date") from None
    elif kind == URL:
        check_url(name, value)
    return value


def _rendered(kind: int, value: str) -> str | None:
    """Zulip renders the text fields' values as Markdown for display."""
    if kind not in {SHORT_TEXT, LONG_TEXT}:
        return None
    return render_markdown(value, EMPTY_CONTEXT).html


def set_profile_data(
    conn: Conn, actor: User, target_id: int, realm_id: int, data: list[dict[str, Any]]
) -> list[Notice]:
    """Validate every entry first, then store: a bad entry leaves all values as they were.

    `actor` is who asked (the caller has checked they may edit the target); an empty or null
    value removes the field's value.
    """
    changes: list[tuple[Any, str | None]] = []
    for entry in data:
        if not isinstance(entry, dict) or "id" not in entry or "value" not in entry:
            raise ChatError("profile_data is not a list of id and value pairs")
        field_id = entry["id"]
        if not isinstance(field_id, int) or isinstance(field_id, bool):
            raise ChatError("profile_data[id] is not an integer")
        field = field_row(conn, realm_id, field_id)
        if field is None:
            raise field_not_found(field_id)
        value = entry["value"]
        if value is None or value == "" or value == []:
            changes.append((field, None))
        else:
            changes.append((field, _check_value(conn, realm_id, field, value)))
    notices = []
    audience = active_user_ids(conn, realm_id)
    for field, value in changes:
        where = (V.user_id == target_id, V.field_id == field["id"])
        current = conn.scalar(sa.select(V.value).where(*where))
        if current == value:
            continue
        conn.execute(sa.delete(schema.custom_profile_field_value).where(*where))
        person_field: dict[str, Any] = {"id": field["id"], "value": value}
        if value is not None:
            rendered = _rendered(field["field_type"], value)
            conn.execute(
                sa.insert(schema.custom_profile_field_value).values(
                    user_id=target_id, field_id=field["id"], value=value, rendered_value=rendered
                )
            )
            if rendered is not None:
                person_field["rendered_value"] = rendered
        event = {
            "type": "realm_user",
            "op": "update",
            "person": {"user_id": target_id, "custom_profile_field": person_field},
        }
        notices.append(Notice(event, audience))
    return notices


def update_user_and_profile(
    conn: Conn,
    actor: User,
    user_id: int,
    full_name: str | None,
    role: int | None,
    profile_data: list[dict[str, Any]] | None,
) -> Outcome[None]:
    """PATCH /users/{id}: name and role (`update_user`), then profile data, in one transaction."""
    outcome = update_user(conn, actor, user_id, full_name, role)
    if profile_data is not None:
        target = target_user(conn, actor, user_id, allow_deactivated=True, allow_bots=True)
        outcome.notices += set_profile_data(conn, actor, target.id, target.realm_id, profile_data)
    return outcome


def update_own_profile_data(conn: Conn, actor: User, data: list[dict[str, Any]]) -> Outcome[None]:
    """PATCH /users/me/profile_data: a user sets their own values."""
    return Outcome(None, set_profile_data(conn, actor, actor.id, actor.realm_id, data))


def remove_own_profile_data(conn: Conn, actor: User, field_ids: list[int]) -> Outcome[None]:
    """DELETE /users/me/profile_data: a user clears their own values of these fields."""
    entries: list[dict[str, Any]] = [{"id": field_id, "value": None} for field_id in field_ids]
    return Outcome(None, set_profile_data(conn, actor, actor.id, actor.realm_id, entries))

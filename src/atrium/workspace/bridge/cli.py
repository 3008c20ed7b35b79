"""`atrium bridge …`: the wiki feed's rules and the pages' discussion stream from the command
line, with the same checks as the API."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from atrium.chat.cli import chat_database
from atrium.chat.queries.realm import default_realm
from atrium.chat.queries.streams import stream_by_name
from atrium.core import migrations
from atrium.core.db import Conn, Database
from atrium.settings import Settings
from atrium.wiki.app import open_wiki
from atrium.wiki.site import Site
from atrium.workspace.bridge import store
from atrium.workspace.bridge.rules import (
    RuleError,
    checked_events,
    checked_topic,
    normalized_target,
)
from atrium.workspace.bridge.store import open_bridge_database
from atrium.workspace.bridge.topics import DISCUSSION_STREAM

# Who created a rule made from the command line (no chat user).
COMMAND_LINE = 0


def fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    raise SystemExit(1)


@contextmanager
def bridge_database(settings: Settings) -> Iterator[Database]:
    migrations.upgrade("bridge", settings.database_url, settings.sqlite_path("bridge"))
    db = open_bridge_database(settings)
    try:
        yield db
    finally:
        db.close()


@contextmanager
def wiki_site(settings: Settings) -> Iterator[Site]:
    db, site = open_wiki(settings)
    try:
        yield site
    finally:
        db.close()


def _stream(settings: Settings, name: str) -> tuple[int, int]:
    """(realm id, stream id) of the organization's stream `name`."""
    with chat_database(settings) as chat:

        def read(conn: Conn) -> tuple[int, int] | None:
            realm = default_realm(conn)
            if realm is None:
                return None
            stream = stream_by_name(conn, realm.id, name)
            if stream is None or stream["deactivated"]:
                return None
            return realm.id, int(stream["id"])

        found = chat.read_sync(read)
    if found is None:
        fail(f"no stream named {name!r}")
    assert found is not None
    return found


@click.group()
def bridge() -> None:
    """The workspace's bridge between chat and wiki."""


@bridge.command("wiki-feed-rules")
def list_rules() -> None:
    """List the rules that post wiki changes to chat."""
    with bridge_database(Settings.from_env()) as db:
        for rule in db.read_sync(store.rules):
            events = ",".join(rule.as_dict()["events"])
            target = f" {rule.target}" if rule.target else ""
            topic = rule.topic or "(page title)"
            click.echo(
                f"{rule.id}\tstream {rule.stream_id}\t{rule.scope}{target}\t{events}\t{topic}"
            )


@bridge.command("add-wiki-feed-rule")
@click.option("--stream", "stream_name", required=True, help="The stream to post to.")
@click.option("--scope", type=click.Choice(store.SCOPES), default="all", show_default=True)
@click.option("--target", default="", help="The namespace, category or page of the scope.")
@click.option("--topic", default="", help="The topic (default: each page's title).")
@click.option("--events", default=",".join(store.EVENTS), show_default=True)
def add_rule(stream_name: str, scope: str, target: str, topic: str, events: str) -> None:
    """Post the wiki's changes of one scope to a stream."""
    settings = Settings.from_env()
    with wiki_site(settings) as site:
        try:
            checked_target = normalized_target(site, scope, target)
            checked = checked_events([e.strip() for e in events.split(",") if e.strip()])
            checked_topic_ = checked_topic(topic)
        except RuleError as error:
            fail(str(error))
            return
    realm_id, stream_id = _stream(settings, stream_name)
    with bridge_database(settings) as db:
        rule_id = db.write_sync(
            store.add_rule, realm_id, stream_id, checked_topic_, scope, checked_target, checked,
            COMMAND_LINE,
        )  # fmt: skip
    click.echo(f"Rule {rule_id} added.")


@bridge.command("remove-wiki-feed-rule")
@click.argument("rule_id", type=int)
def remove_rule(rule_id: int) -> None:
    """Stop a rule."""
    with bridge_database(Settings.from_env()) as db:
        if not db.write_sync(store.remove_rule, rule_id):
            fail(f"no rule {rule_id}")
    click.echo(f"Rule {rule_id} removed.")


@bridge.command("discussion-stream")
@click.argument("stream_name", required=False)
@click.option("--none", "clear", is_flag=True, help="No Chat tab on the wiki's pages.")
def discussion_stream(stream_name: str | None, clear: bool) -> None:
    """Show or set the stream whose topics discuss the wiki's pages (the pages' Chat tab)."""
    settings = Settings.from_env()
    with bridge_database(settings) as db:
        if clear:
            db.write_sync(store.set_setting, DISCUSSION_STREAM, None)
            click.echo("No discussion stream.")
            return
        if stream_name is None:
            current = db.read_sync(store.setting, DISCUSSION_STREAM)
            click.echo(f"stream {current}" if current else "No discussion stream.")
            return
        _realm_id, stream_id = _stream(settings, stream_name)
        db.write_sync(store.set_setting, DISCUSSION_STREAM, str(stream_id))
    click.echo(f"Pages are discussed in stream {stream_name!r}.")

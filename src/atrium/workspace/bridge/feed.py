"""The wiki feed: wiki changes posted to chat by the Notification Bot, as the rules ask, and
sent by direct message to the people a change concerns (`personal`).

A loop reads the wiki's new recent changes from a cursor kept in the bridge's database. A
change is posted only if nothing of it is hidden when it is read; a later revision deletion or
suppression (read from the wiki's log) withdraws every notification that showed the hidden
revision or log entry. Several workers may run the loop: each claims a batch by moving the
cursor with a compare-and-set, so a change is posted once (or, if a worker dies between its
claim and its posts, not at all: a notification is not worth posting twice).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa

from atrium.chat.actions import notification_bot
from atrium.chat.events import Outcome
from atrium.chat.models import User
from atrium.chat.queries.streams import stream_by_id
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn, Database
from atrium.wiki.runtime import WikiRuntime
from atrium.workspace.bridge import schema, store, wiki_changes
from atrium.workspace.bridge.feed_messages import notification, topic_for
from atrium.workspace.bridge.people import chat_users_of
from atrium.workspace.bridge.personal import WATCHLIST_SETTING, Reason, direct_message, new_mentions
from atrium.workspace.bridge.search import may_read_wiki
from atrium.workspace.bridge.store import Rule
from atrium.workspace.bridge.wiki_changes import Change

log = logging.getLogger(__name__)

CHANGES = "recentchanges"
HIDINGS = "logging"
# The rule id recorded for a direct message to one person (no rule sent it).
PERSONAL = 0
# Ids asked of the bridge's database at once.
POSTS_CHUNK = 500


def _claim(conn: Conn, name: str, seen: int, upto: int) -> bool:
    """Move a cursor from `seen` to `upto` unless another worker moved it first."""
    C = schema.wiki_feed_cursor.c
    moved = conn.execute(
        sa.update(schema.wiki_feed_cursor).where(C.name == name, C.value == seen).values(value=upto)
    ).rowcount
    return bool(moved)


def _start_cursor(conn: Conn, name: str, value: int) -> int:
    found = store.cursor(conn, name)
    if found is None:
        store.set_cursor(conn, name, value)
        return value
    return found


def matches(rule: Rule, change: Change, categories: set[str], prefixed: str) -> bool:
    if change.kind not in rule.events:
        return False
    if rule.scope == "all":
        return True
    if rule.scope == "namespace":
        return rule.target == str(change.ns)
    if rule.scope == "page":
        return rule.target == prefixed
    if rule.scope == "category":
        return rule.target in categories
    return False


class WikiFeed:
    def __init__(
        self, chat: ChatRuntime, wiki: Callable[[], WikiRuntime | None], db: Database
    ) -> None:
        self.chat = chat
        self.wiki = wiki
        self.db = db

    async def run_once(self) -> int:
        """One pass: post what is new, withdraw what was hidden; the number of posts made."""
        wiki = self.wiki()
        if wiki is None:
            return 0
        posted = await self._post_new(wiki)
        await self._withdraw_hidden(wiki)
        return posted

    async def _post_new(self, wiki: WikiRuntime) -> int:
        newest = await wiki.db.read(wiki_changes.last_change_id)
        seen = await self.db.write(_start_cursor, CHANGES, newest)
        changes = await wiki.db.read(wiki_changes.changes_after, seen)
        if not changes:
            return 0
        if not await self.db.write(_claim, CHANGES, seen, changes[-1].rc_id):
            return 0  # another worker took this batch
        rules = await self.db.read(store.rules)
        posted = 0
        for change in changes:
            if change.kind:
                posted += await self._post(wiki, rules, change)
        return posted

    async def _post(self, wiki: WikiRuntime, rules: Sequence[Rule], change: Change) -> int:
        site = wiki.site
        prefixed = site.parser.prefixed_dbkey(change.ns, change.dbkey)
        categories: set[str] = set()
        if change.page_id and any(r.scope == "category" for r in rules):
            categories = await wiki.db.read(wiki_changes.categories_of, change.page_id)

        wanted = [r for r in rules if matches(r, change, categories, prefixed)]
        people = await self._people(wiki, change)
        if not wanted and not people:
            return 0
        # Nothing hidden reaches the chat: a revision or log entry hidden before this read is
        # not posted (one hidden afterwards is withdrawn by `_withdraw_hidden`).
        if change.kind in ("create", "edit"):
            hidden = await wiki.db.read(wiki_changes.hidden_revisions, [change.rev_id])
        else:
            hidden = await wiki.db.read(wiki_changes.hidden_log_entries, [change.log_id])
        if hidden:
            return 0
        content = notification(site, change)
        posted = 0
        for rule in wanted:
            topic = topic_for(site, change, rule.topic)

            def send(conn: Conn, rule: Rule = rule, topic: str = topic) -> Outcome[int | None]:
                stream = stream_by_id(conn, rule.realm_id, rule.stream_id)
                if stream is None or stream["deactivated"]:
                    return Outcome(None)
                message_id, notices = notification_bot.send_to_stream(
                    conn, rule.realm_id, stream, topic, content, []
                )
                return Outcome(message_id, notices)

            message_id = await self.chat.write(send)
            if message_id is None:
                continue
            is_revision = change.kind in ("create", "edit")
            await self.db.write(
                store.record_post,
                rule.id,
                message_id,
                change.page_id or 0,
                change.rev_id if is_revision else None,
                None if is_revision else change.log_id,
            )
            posted += 1
        return posted + await self._send_direct(change, content, people)

    async def _people(self, wiki: WikiRuntime, change: Change) -> dict[int, tuple[User, Reason]]:
        """The chat users this change notifies personally, by chat user id."""
        talk_edit = change.kind in ("create", "edit") and change.ns % 2 == 1
        watching = await wiki.db.read(wiki_changes.watchers, change.ns, change.dbkey)
        text, parent = "", ""
        if talk_edit:
            text, parent = await wiki.db.read(wiki_changes.texts, change.rev_id, change.parent_id)
        names = new_mentions(wiki.site, change, text, parent)
        mentioned = await wiki.db.read(wiki_changes.users_named, names)
        # Not their own change, and only readers of the wiki.
        concerned = [w for w, name in {**watching, **mentioned}.items() if name != change.user]
        readers = await wiki.db.read(
            lambda conn: [w for w in concerned if may_read_wiki(wiki, conn, w)]
        )
        users = await chat_users_of(self.chat, readers)
        found = {
            user.id: (user, Reason(wiki_id in watching, wiki_id in mentioned))
            for wiki_id, user in users.items()
        }
        only_watching = [uid for uid, (_, reason) in found.items() if not reason.mentioned]
        asked = await self.db.read(store.people_with, only_watching, WATCHLIST_SETTING, "1")
        return {uid: v for uid, v in found.items() if v[1].mentioned or uid in asked}

    async def _send_direct(
        self, change: Change, content: str, people: dict[int, tuple[User, Reason]]
    ) -> int:
        is_revision = change.kind in ("create", "edit")
        for user, reason in people.values():
            text = direct_message(reason, content)

            def send(conn: Conn, user: User = user, text: str = text) -> Outcome[int]:
                message_id, notices = notification_bot.send_direct_message(
                    conn, user.realm_id, user.id, text
                )
                return Outcome(message_id, notices)

            message_id = await self.chat.write(send)
            # Recorded as a rule's post is, so that a later hiding withdraws it too.
            await self.db.write(
                store.record_post,
                PERSONAL,
                message_id,
                change.page_id or 0,
                change.rev_id if is_revision else None,
                None if is_revision else change.log_id,
            )
        return len(people)

    async def _withdraw_hidden(self, wiki: WikiRuntime) -> None:
        newest = await wiki.db.read(wiki_changes.last_log_id)
        seen = await self.db.write(_start_cursor, HIDINGS, newest)
        hidings = await wiki.db.read(wiki_changes.hiding_after, seen)
        if hidings.upto == seen or not await self.db.write(_claim, HIDINGS, seen, hidings.upto):
            return
        posts = await self._posts_showing(hidings)
        if not posts:
            return
        revs = [int(p["rev_id"]) for p in posts if p["rev_id"] is not None]
        logs = [int(p["log_id"]) for p in posts if p["log_id"] is not None]
        hidden_revs = await wiki.db.read(wiki_changes.hidden_revisions, revs)
        hidden_logs = await wiki.db.read(wiki_changes.hidden_log_entries, logs)
        hidden_logs |= hidings.hidden_uploads
        gone = [
            p
            for p in posts
            if (p["rev_id"] is not None and int(p["rev_id"]) in hidden_revs)
            or (p["log_id"] is not None and int(p["log_id"]) in hidden_logs)
        ]
        for post in gone:
            message_id = int(post["message_id"])
            await self.chat.write(
                lambda conn, m=message_id: Outcome(None, notification_bot.withdraw(conn, m))
            )
        await self.db.write(store.forget_posts, [int(p["id"]) for p in gone])

    async def _posts_showing(self, hidings: wiki_changes.Hidings) -> list[Any]:
        """The posts showing what was hidden, asked in chunks (a hidden user's rows are many)."""
        found: dict[int, Any] = {}
        pages, revs, logs = (
            sorted(hidings.pages),
            sorted(hidings.revisions),
            sorted(hidings.log_entries | hidings.hidden_uploads),
        )
        for start in range(0, max(len(pages), len(revs), len(logs), 1), POSTS_CHUNK):
            chunk = slice(start, start + POSTS_CHUNK)
            for post in await self.db.read(
                store.posts_showing, pages[chunk], revs[chunk], logs[chunk]
            ):
                found[int(post["id"])] = post
        return list(found.values())

    async def run_forever(self, interval: float) -> None:
        while True:
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                # The next pass tries again; a broken pass must not end the feed.
                log.exception("the wiki feed's pass failed")
            await asyncio.sleep(interval)

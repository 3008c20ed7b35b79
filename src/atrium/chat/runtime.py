"""What every chat request can reach: settings, the database, the rate limiter, the event bus."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

from atrium.chat.actions.missed_messages import release_unheard
from atrium.chat.credentials import CredentialCache
from atrium.chat.events import EventQueues, MemoryEventQueues, Notice, Outcome
from atrium.core.accounts import AccountLinks
from atrium.core.blobs import BlobStore
from atrium.core.db import Database
from atrium.core.mail.message import Composer
from atrium.core.ratelimit import RateLimiter
from atrium.core.sessions import SessionStore
from atrium.core.signing import server_secret
from atrium.settings import Settings

T = TypeVar("T")

# Events that may change who a user is (role, name, deactivation) or the realm's state.
_IDENTITY_EVENTS = frozenset({"realm_user", "realm", "realm_bot"})


@dataclass
class ChatRuntime:
    settings: Settings
    db: Database
    limiter: RateLimiter
    events: EventQueues = field(default_factory=MemoryEventQueues)
    # An idle long-poll is answered with a heartbeat after about this long (Zulip: 45-55 s).
    heartbeat_seconds: float = 45.0
    credentials: CredentialCache = field(default_factory=CredentialCache)
    # The browser-session store shared with the other services' pages (None: no browser access).
    sessions: SessionStore | None = None
    # The person's one account across services, when the chat runs inside a workspace.
    accounts: AccountLinks | None = None
    # Called with the events of each committed change, after they are published: what sits
    # above the chat follows its users (roles, deactivations) without the chat knowing it.
    observers: list[Callable[[list[Notice]], Awaitable[None]]] = field(default_factory=list)

    @cached_property
    def blobs(self) -> BlobStore:
        """Uploaded files, avatars, realm images and emoji, by content hash."""
        return BlobStore(self.settings.data_dir / "uploads")

    @cached_property
    def secret(self) -> bytes:
        return server_secret(self.settings.data_dir)

    @cached_property
    def composer(self) -> Composer:
        """Builds this deployment's mails (From, Reply-To, links from the external URL)."""
        return Composer.from_settings(self.settings)

    async def write(self, fn: Callable[..., Outcome[T]], *args: Any, rerunnable: bool = False) -> T:
        """Run an action in one transaction, then publish the events it caused.

        Publishing only after the commit means no client hears of a change that was rolled back.
        `rerunnable`: the action touches nothing but the database (see `Database.write`).
        """
        outcome = await self.db.write(fn, *args, rerunnable=rerunnable)
        if outcome.notices:
            if any(n.event["type"] in _IDENTITY_EVENTS for n in outcome.notices):
                self.credentials.clear()
            await self.events.publish(outcome.notices)
            for observer in self.observers:
                await observer(outcome.notices)
        if outcome.held_mail:
            await self._release_unheard(outcome.held_mail)
        return outcome.value

    async def _release_unheard(self, held: dict[int, frozenset[int]]) -> None:
        """Missed-message mails held for recipients who looked present: those holding no queue
        that takes messages are not on the chat after all, and get the normal period back."""
        everyone = set().union(*held.values())
        away = everyone - await self.events.listening(everyone)
        if away:
            release = {m: frozenset(u & away) for m, u in held.items() if u & away}
            await self.db.write(release_unheard, release, rerunnable=True)

    async def announce(self, fn: Callable[..., Outcome[T]], *args: Any) -> T:
        """Run a read-only function that decides on events (typing), then publish them."""
        outcome = await self.db.read(fn, *args)
        if outcome.notices:
            await self.events.publish(outcome.notices)
        return outcome.value

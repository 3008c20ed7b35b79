"""What a service asks of a person's one account when a layer above the services links its
users to other services' (the workspace). A service run alone is given none and keeps its own
accounts; a user no identity owns (a bot, a wiki-only editor) also keeps its own password."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from starlette.requests import Request

from atrium.core.db import Conn


@dataclass(frozen=True)
class LinkedLogin:
    """The person behind a sign-in name or a service user."""

    # The identity's public id (the same number in every service's answers).
    identity_id: int
    # The asking service's user owned by the identity (None: not made yet).
    user_id: int | None
    # The one password as `core.secrets` hashes it ("": none, no password sign-in).
    password_hash: str
    # False once the person is deactivated: no sign-in anywhere.
    active: bool
    # The person may read but not write here (the chat's guests in the wiki, by default).
    read_only: bool = False


@dataclass(frozen=True)
class AddressChange:
    """A linked person's request for a new address: mailed for confirmation, or refused
    (`refused`: why, in the words of the service that keeps the one address)."""

    refused: str = ""


class AccountLinks(Protocol):
    async def reserve(self, email: str, password_hash: str | None) -> None:
        """The identity of a person about to get an account here, written first, so that a
        crash before the account exists leaves something to complete rather than nothing."""
        ...

    async def for_login(self, service: str, login: str) -> LinkedLogin | None:
        """The person a sign-in name names (an email, or a linked user name), if any."""
        ...

    async def for_user(self, service: str, user_id: int) -> LinkedLogin | None:
        """The person who owns this service's user, if any."""
        ...

    async def change_password(self, service: str, user_id: int, password: str) -> bool:
        """Give the owner of this user a new password, for every service at once; False when
        no identity owns the user (the service then keeps its own)."""
        ...

    async def request_email_change(
        self, service: str, user_id: int, new_email: str
    ) -> AddressChange | None:
        """Mail one confirmation link to `new_email` for the owner of this user; following it
        sets the address of every service's account at once. None when no identity owns the
        user (the service then changes its own address, as it would alone)."""
        ...

    async def locked_groups(self, service: str, user_id: int) -> frozenset[str]:
        """The groups another service's role puts this user in, which no one may remove here."""
        ...


def no_companions(conn: Conn, service: str, user_id: int) -> dict[str, int]:
    """A session signed in to one service is signed in to it alone."""
    return {service: user_id}


def account_links(request: Request) -> AccountLinks | None:
    """The links of the app serving `request` (`server.create_app` puts them on its state,
    beside the session store), or None when the services run unlinked."""
    links = getattr(request.app.state, "account_links", None)
    return links if links is not None else None

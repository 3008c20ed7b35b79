"""Members: one identity owning a chat user and a wiki user, made and kept in step.

Making a member writes three stores in this order, each in its own transaction: the identity
(email, password), then the chat user, then the wiki user (its name derived once from the full
name and reserved on the identity before the wiki account is made). Every step first looks for
what an earlier, interrupted run left, so running it again, or `atrium link-accounts`, completes
a half-made member instead of duplicating it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from atrium.chat.actions.email_change import request_email_change
from atrium.chat.actions.users import NewUser, create_user, set_password_hash
from atrium.chat.errors import ChatError
from atrium.chat.events import Outcome
from atrium.chat.models import (
    ROLE_ADMINISTRATOR,
    ROLE_GUEST,
    ROLE_MODERATOR,
    ROLE_OWNER,
    User,
)
from atrium.chat.queries.realm import default_realm
from atrium.chat.queries.users import fake_email_domain, user_row, user_row_by_delivery_email
from atrium.core import workers
from atrium.core.accounts import AddressChange, LinkedLogin
from atrium.core.db import Conn, Database
from atrium.core.secrets import hash_password
from atrium.wiki.accounts.usernames import normalize_username
from atrium.wiki.changes.accounts import set_password as set_wiki_password
from atrium.wiki.changes.accounts import set_role_groups
from atrium.wiki.changes.email_confirmation import keep_confirmed_email
from atrium.wiki.changes.registration import autocreate
from atrium.wiki.reads.users import (
    account_by_id,
    account_by_name,
    account_ids_by_email,
    stored_password,
)
from atrium.workspace import identities
from atrium.workspace.identities import CHAT, WIKI
from atrium.workspace.wiki_names import NAME_BATCH, candidates

if TYPE_CHECKING:
    from atrium.chat.runtime import ChatRuntime

# The wiki groups each chat role implies (Zulip's role ids); members and guests get none beyond
# the implicit `user` (a guest's writing rights are withheld elsewhere: wiki/reads/linked.py).
ROLE_GROUPS: dict[int, frozenset[str]] = {
    ROLE_OWNER: frozenset({"sysop", "bureaucrat", "interface-admin", "suppress"}),
    ROLE_ADMINISTRATOR: frozenset({"sysop", "bureaucrat"}),
    ROLE_MODERATOR: frozenset({"sysop"}),
}
# Every group some role implies: what a role change may take away.
MANAGED_GROUPS: frozenset[str] = frozenset().union(*ROLE_GROUPS.values())


def groups_of_role(role: int) -> frozenset[str]:
    return ROLE_GROUPS.get(role, frozenset()) if role != ROLE_GUEST else frozenset()


@dataclass(frozen=True)
class Member:
    # The identity's row in the core store (its public id is `chat_user_id`).
    identity: int
    chat_user_id: int
    wiki_user_id: int
    wiki_name: str


class MemberError(Exception):
    """A member cannot be made or linked (no organization, a conflicting account)."""


def _chat_user(
    conn: Conn, email: str, full_name: str, password_hash: str | None, role: int, domain: str
) -> dict[str, Any]:
    realm = default_realm(conn)
    if realm is None:
        raise MemberError("no chat organization yet: create one with `atrium chat create-realm`")
    row = user_row_by_delivery_email(conn, realm.id, email)
    if row is None:
        new = NewUser(
            email=email,
            full_name=full_name,
            password_hash=password_hash,
            role=role,
            email_domain=domain,
        )
        row = user_row(conn, realm.id, create_user(conn, realm.id, new))
    return dict(row)


def _chat_user_by_id(conn: Conn, user_id: int) -> dict[str, Any] | None:
    realm = default_realm(conn)
    row = user_row(conn, realm.id, user_id) if realm is not None else None
    return dict(row) if row is not None else None


def _wiki_user(
    conn: Conn, name: str, email: str, real_name: str, password_hash: str, role: int
) -> int | None:
    """The member's wiki user under its reserved name: made, or found made by an interrupted
    run (it has the member's email); None when someone else registered the name meanwhile."""
    account = account_by_name(conn, name)
    if account is None:
        user_id = autocreate(
            conn, name, "", email=email, real_name=real_name, password_hash=password_hash
        )
    elif account.email.strip().lower() != email.strip().lower():
        return None
    else:
        user_id = account.id
    set_role_groups(conn, user_id, groups_of_role(role), MANAGED_GROUPS)
    return user_id


# How many times a member's wiki name is derived again when others keep taking it.
NAME_ATTEMPTS = 5


class Members:
    """The member operations over the three stores; `chat_db` and `wiki_db` give the services'
    databases once they are open (None while a service is not running)."""

    def __init__(
        self,
        core_db: Database,
        chat_db: Callable[[], Database | None],
        wiki_db: Callable[[], Database | None],
        base_url: str,
        guest_edits: bool = False,
    ) -> None:
        self.core_db = core_db
        self.guest_edits = guest_edits
        self.chat_db = chat_db
        self.wiki_db = wiki_db
        self.email_domain = fake_email_domain(base_url)
        # Visitors register on the wiki themselves (the `edit` audience): a wiki account's
        # email is then anyone's claim, and never links it to a member.
        self.open_registration = False
        # The running chat, for what only its actions do (the one address's confirmation
        # mail); set when the workspace is composed.
        self.chat_runtime: Callable[[], ChatRuntime | None] = lambda: None

    def _chat(self) -> Database:
        db = self.chat_db()
        if db is None:
            raise MemberError("the chat is not running")
        return db

    def _wiki(self) -> Database | None:
        return self.wiki_db()

    async def create(self, email: str, full_name: str, password: str | None, role: int) -> Member:
        """Make a member (or complete a half-made one): identity, chat user, wiki user."""
        hashed = await workers.run(hash_password, password) if password else None
        identity_id = await self.core_db.write(identities.reserve, email, hashed)
        row = await self._chat().write(
            _chat_user, email, full_name, hashed, role, self.email_domain
        )
        return await self.adopt(identity_id, row)

    async def adopt(
        self, identity_id: int, chat_row: dict[str, Any], wiki_name: str | None = None
    ) -> Member:
        """Link a chat user to an identity and give the identity its wiki user (`wiki_name`: an
        existing wiki user that is the same person, when linking separate accounts)."""
        chat_id = int(chat_row["id"])
        owner = await self.core_db.read(identities.by_account, CHAT, chat_id)
        if owner is not None and int(owner["id"]) != identity_id:
            raise MemberError(f"chat user {chat_id} already belongs to another identity")
        await self.core_db.write(identities.link, identity_id, CHAT, chat_id, None)
        identity = await self.core_db.read(identities.by_id, identity_id)
        if bool(identity["active"]) != bool(chat_row["is_active"]):
            await self.core_db.write(identities.set_active, identity_id, chat_row["is_active"])
        if not identity["password_hash"] and chat_row["password_hash"]:
            # A chat user made before the identity: its password becomes the person's.
            await self.core_db.write(
                identities.set_password, identity_id, chat_row["password_hash"]
            )
        return await self._complete_wiki(identity_id, chat_row, wiki_name)

    async def _complete_wiki(
        self, identity_id: int, chat_row: dict[str, Any], wiki_name: str | None
    ) -> Member:
        wiki = self._wiki()
        chat_id = int(chat_row["id"])
        if wiki is None:
            return Member(identity_id, chat_id, 0, "")
        role = int(chat_row["role"])
        linked = (await self.core_db.read(identities.accounts, identity_id)).get(WIKI)
        if linked is None and wiki_name is not None:
            await self._claim_wiki_name(wiki, identity_id, wiki_name)
            linked = (await self.core_db.read(identities.accounts, identity_id)).get(WIKI)
        if linked is not None and linked["user_id"] is not None:
            # Made (or claimed) already: only the groups follow the role.
            wiki_id = int(linked["user_id"])
            await wiki.write(set_role_groups, wiki_id, groups_of_role(role), MANAGED_GROUPS)
            await wiki.write(keep_confirmed_email, wiki_id, str(chat_row["delivery_email"]))
            return Member(identity_id, chat_id, wiki_id, str(linked["name"]))
        name = linked["name"] if linked is not None else None
        identity = await self.core_db.read(identities.by_id, identity_id)
        for _attempt in range(NAME_ATTEMPTS):
            if name is None:
                name = await self._derive_name(wiki, identity_id, str(chat_row["full_name"]))
                # Reserved before the account is made: a rerun after a crash makes this one.
                await self.core_db.write(identities.link, identity_id, WIKI, None, name)
            made = await wiki.write(
                _wiki_user,
                name,
                identity["email"],
                str(chat_row["full_name"]),
                stored_password(identity["password_hash"]),
                role,
            )
            if made is not None:
                await self.core_db.write(identities.link, identity_id, WIKI, made, name)
                await wiki.write(keep_confirmed_email, made, str(chat_row["delivery_email"]))
                return Member(identity_id, chat_id, made, name)
            name = None  # registered by someone else meanwhile: never adopt their account
        raise MemberError(f"no free wiki user name for {chat_row['full_name']!r}")

    async def _claim_wiki_name(self, wiki: Database, identity_id: int, name: str) -> None:
        """Make an existing wiki user this identity's, unless another identity has it."""
        account = await wiki.read(account_by_name, name)
        if account is None:
            raise MemberError(f"no wiki user named {name!r}")
        owner = await self.core_db.read(identities.by_account, WIKI, account.id)
        if owner is not None or await self.core_db.read(
            identities.name_taken, WIKI, name, identity_id
        ):
            raise MemberError(f"the wiki user {name!r} already belongs to another person")
        await self.core_db.write(identities.link, identity_id, WIKI, account.id, name)

    async def wiki_name_for_email(self, email: str) -> str | None:
        """The one wiki user with this email that no identity owns yet, if exactly one."""
        wiki = self._wiki()
        if wiki is None:
            return None
        names = []
        for user_id in await wiki.read(account_ids_by_email, email):
            if await self.core_db.read(identities.by_account, WIKI, user_id) is not None:
                continue
            account = await wiki.read(account_by_id, user_id)
            if account is not None:
                names.append(account.name)
        return names[0] if len(names) == 1 else None

    async def _derive_name(self, wiki: Database, identity_id: int, full_name: str) -> str:
        def taken_in(conn: Conn, names: list[str]) -> set[str]:
            return {n for n in names if account_by_name(conn, n) is not None}

        def reserved_in(conn: Conn, names: list[str]) -> set[str]:
            return {n for n in names if identities.name_taken(conn, WIKI, n, identity_id)}

        # Candidates are checked a batch at a time against both stores.
        start = 1
        while True:
            names = candidates(full_name, start, NAME_BATCH)
            busy = await wiki.read(taken_in, names) | await self.core_db.read(reserved_in, names)
            free = [n for n in names if n not in busy]
            if free:
                return free[0]
            start += NAME_BATCH

    async def adopt_chat_user(self, chat_user_id: int) -> Member | None:
        """A chat user made by the chat itself (sign-up, invitation, the API): its identity and
        wiki user. Bots and users without an email of their own stay the chat's."""
        row = await self._chat().read(_chat_user_by_id, chat_user_id)
        if row is None or row["is_bot"]:
            return None
        owner = await self.core_db.read(identities.by_account, CHAT, chat_user_id)
        if owner is not None:
            identity_id = int(owner["id"])
        else:
            identity_id = await self.core_db.write(
                identities.reserve, row["delivery_email"], row["password_hash"]
            )
        return await self.adopt(identity_id, row)

    async def sync_chat_user(self, chat_user_id: int) -> None:
        """Role, activation and address follow the chat user at once: the wiki groups its role
        implies, the identity's right to sign in, and the one address (confirmed by the chat's
        link, so confirmed for the wiki too)."""
        row = await self._chat().read(_chat_user_by_id, chat_user_id)
        identity = await self.core_db.read(identities.by_account, CHAT, chat_user_id)
        if row is None or identity is None:
            return
        if bool(identity["active"]) != bool(row["is_active"]):
            await self.core_db.write(identities.set_active, int(identity["id"]), row["is_active"])
        wiki = self._wiki()
        wiki_account = (await self.core_db.read(identities.accounts, int(identity["id"]))).get(WIKI)
        email = str(row["delivery_email"])
        if email.lower() != str(identity["email"]).lower():
            await self.core_db.write(identities.set_email, int(identity["id"]), email)
        if wiki is not None and wiki_account is not None and wiki_account["user_id"] is not None:
            await wiki.write(keep_confirmed_email, int(wiki_account["user_id"]), email)
            await wiki.write(
                set_role_groups,
                int(wiki_account["user_id"]),
                groups_of_role(int(row["role"])),
                MANAGED_GROUPS,
            )

    # What the services ask (core.accounts.AccountLinks) -------------------------------------

    async def _login_of(self, identity: Any, service: str) -> LinkedLogin:
        accounts = await self.core_db.read(identities.accounts, int(identity["id"]))
        chat = accounts.get(CHAT)
        mine = accounts.get(service)
        active, read_only = bool(identity["active"]), False
        chat_db = self.chat_db()
        if chat_db is not None and chat is not None and chat["user_id"] is not None:
            # The chat user decides as it stands, should its last change not have reached the
            # identity yet (the chat committed it; following it failed).
            row = await chat_db.read(_chat_user_by_id, int(chat["user_id"]))
            active = active and row is not None and bool(row["is_active"])
            guest = row is not None and int(row["role"]) == ROLE_GUEST
            read_only = service == WIKI and guest and not self.guest_edits
        return LinkedLogin(
            identity_id=int(chat["user_id"]) if chat is not None and chat["user_id"] else 0,
            user_id=int(mine["user_id"]) if mine is not None and mine["user_id"] else None,
            password_hash=str(identity["password_hash"]),
            active=active,
            read_only=read_only,
        )

    async def reserve(self, email: str, password_hash: str | None) -> None:
        # Without the password: the chat has not yet accepted this person, and an identity
        # without an account signs in nowhere; the chat user's password becomes the
        # identity's when the two are linked (`adopt`).
        await self.core_db.write(identities.reserve, email, None)

    async def for_login(self, service: str, login: str) -> LinkedLogin | None:
        login = login.strip()
        if "@" in login:
            identity = await self.core_db.read(identities.by_email, login)
        else:
            name = normalize_username(login)
            if name is None:
                return None
            identity = await self.core_db.read(identities.by_account_name, WIKI, name)
        if identity is None:
            return None
        linked = await self._login_of(identity, service)
        # An identity without an account here yet (half made, or only reserved) does not
        # stand in the way of a user of this service that is not linked to anyone.
        return linked if linked.user_id is not None else None

    async def for_user(self, service: str, user_id: int) -> LinkedLogin | None:
        identity = await self.core_db.read(identities.by_account, service, user_id)
        return await self._login_of(identity, service) if identity is not None else None

    async def change_password(self, service: str, user_id: int, password: str) -> bool:
        identity = await self.core_db.read(identities.by_account, service, user_id)
        if identity is None:
            return False
        hashed = await workers.run(hash_password, password)
        identity_id = int(identity["id"])
        await self.core_db.write(identities.set_password, identity_id, hashed)
        accounts = await self.core_db.read(identities.accounts, identity_id)
        # The services' own copies follow, so that each stays whole should it run alone.
        chat, wiki = self.chat_db(), self.wiki_db()
        if chat is not None and accounts.get(CHAT) is not None and accounts[CHAT]["user_id"]:
            await chat.write(set_password_hash, int(accounts[CHAT]["user_id"]), hashed)
        if wiki is not None and accounts.get(WIKI) is not None and accounts[WIKI]["user_id"]:
            wiki_id = int(accounts[WIKI]["user_id"])
            await wiki.write(set_wiki_password, wiki_id, "", stored_password(hashed))
        return True

    async def request_email_change(
        self, service: str, user_id: int, new_email: str
    ) -> AddressChange | None:
        """The chat's confirmation mail for a member's new address, whichever service was
        asked: its link changes the chat user's address, which the identity and the wiki user
        then follow (`sync_chat_user`), so one mail and one confirmation serve both."""
        identity = await self.core_db.read(identities.by_account, service, user_id)
        if identity is None:
            return None
        chat_account = (await self.core_db.read(identities.accounts, int(identity["id"]))).get(CHAT)
        runtime = self.chat_runtime()
        if runtime is None or chat_account is None or chat_account["user_id"] is None:
            return AddressChange("The address cannot be changed while the chat is not running.")
        new_email = new_email.strip()
        if not new_email:
            return AddressChange(
                "A member's address cannot be removed, only changed: it is how they sign in."
            )
        holder = await self.core_db.read(identities.by_email, new_email)
        if holder is not None and int(holder["id"]) != int(identity["id"]):
            return AddressChange("Email is already in use.")
        chat_user_id = int(chat_account["user_id"])

        def ask(conn: Conn) -> Outcome[None]:
            row = _chat_user_by_id(conn, chat_user_id)
            if row is None or not row["is_active"]:
                raise ChatError("Account is deactivated.")
            actor = User.from_row(row)
            return request_email_change(conn, actor, new_email, runtime.composer, runtime.secret)

        try:
            await runtime.write(ask)
        except ChatError as exc:
            return AddressChange(exc.msg)
        return AddressChange()

    async def locked_groups(self, service: str, user_id: int) -> frozenset[str]:
        if service != WIKI:
            return frozenset()
        identity = await self.core_db.read(identities.by_account, WIKI, user_id)
        chat = self.chat_db()
        if identity is None or chat is None:
            return frozenset()
        chat_account = (await self.core_db.read(identities.accounts, int(identity["id"]))).get(CHAT)
        if chat_account is None or chat_account["user_id"] is None:
            return frozenset()
        row = await chat.read(_chat_user_by_id, int(chat_account["user_id"]))
        return groups_of_role(int(row["role"])) if row is not None else frozenset()

"""In-memory shapes of the rows the chat service passes around: realms and users, role codes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from atrium.chat import schema

ROLE_OWNER = 100
ROLE_ADMINISTRATOR = 200
ROLE_MODERATOR = 300
ROLE_MEMBER = 400
ROLE_GUEST = 600

ROLE_NAMES = {
    "owner": ROLE_OWNER,
    "administrator": ROLE_ADMINISTRATOR,
    "moderator": ROLE_MODERATOR,
    "member": ROLE_MEMBER,
    "guest": ROLE_GUEST,
}

# Bot types as Zulip numbers them.
BOT_DEFAULT = 1
BOT_INCOMING_WEBHOOK = 2
BOT_OUTGOING_WEBHOOK = 3
BOT_EMBEDDED = 4

# Zulip's policy codes (create_*_stream_policy, edit_topic_policy, …).
# The server's own bots, in the internal realm: every organization's people may talk to them.
SYSTEM_BOT_NAMES = {
    "notification-bot@zulip.com": "Notification Bot",
    "welcome-bot@zulip.com": "Welcome Bot",
}

POLICY_MEMBERS_ONLY = 1
POLICY_ADMINS_ONLY = 2
POLICY_FULL_MEMBERS_ONLY = 3
POLICY_MODERATORS_ONLY = 4
POLICY_EVERYONE = 5
POLICY_NOBODY = 6
POLICY_OWNERS_ONLY = 7

# stream_post_policy codes.
STREAM_POST_EVERYONE = 1
STREAM_POST_ADMINS = 2
STREAM_POST_FULL_MEMBERS = 3
STREAM_POST_MODERATORS = 4

SYSTEM_GROUPS = (
    # name, description, the roles that are direct members, direct subgroups
    ("@role:owners", "Owners of this organization", (ROLE_OWNER,), ()),
    (
        "@role:administrators",
        "Administrators of this organization, including owners",
        (ROLE_ADMINISTRATOR,),
        ("@role:owners",),
    ),
    (
        "@role:moderators",
        "Moderators of this organization, including administrators",
        (ROLE_MODERATOR,),
        ("@role:administrators",),
    ),
    (
        "@role:fullmembers",
        "Members of this organization, not including new accounts and guests",
        (ROLE_MEMBER,),
        ("@role:moderators",),
    ),
    (
        "@role:members",
        "Members of this organization, not including guests",
        (),
        ("@role:fullmembers",),
    ),
    (
        "@role:everyone",
        "Everyone in this organization, including guests",
        (ROLE_GUEST,),
        ("@role:members",),
    ),
    ("@role:internet", "Everyone on the Internet", (), ("@role:everyone",)),
    ("@role:nobody", "Nobody", (), ()),
)


@dataclass(frozen=True, slots=True)
class Realm:
    id: int
    string_id: str
    name: str
    row: dict[str, Any]

    def setting(self, name: str) -> Any:
        return self.row[name]

    @classmethod
    def from_row(cls, row: Any) -> Realm:
        return cls(row["id"], row["string_id"], row["name"], dict(row))


@dataclass(frozen=True, slots=True)
class User:
    """The acting user of a request, or any user an action works on."""

    id: int
    realm_id: int
    email: str
    full_name: str
    role: int
    is_active: bool
    is_bot: bool
    bot_owner_id: int | None
    date_joined: float

    @classmethod
    def from_row(cls, row: Any) -> User:
        return cls(
            id=row["id"],
            realm_id=row["realm_id"],
            email=row["email"],
            full_name=row["full_name"],
            role=row["role"],
            is_active=bool(row["is_active"]),
            is_bot=bool(row["is_bot"]),
            bot_owner_id=row["bot_owner_id"],
            date_joined=row["date_joined"],
        )

    @property
    def is_owner(self) -> bool:
        return self.role == ROLE_OWNER

    @property
    def is_admin(self) -> bool:
        return self.role <= ROLE_ADMINISTRATOR

    @property
    def is_moderator(self) -> bool:
        return self.role <= ROLE_MODERATOR

    @property
    def is_guest(self) -> bool:
        return self.role == ROLE_GUEST

    def is_full_member(self, realm: Realm, now: float) -> bool:
        if self.role > ROLE_MEMBER:
            return False
        waiting_days = realm.setting("waiting_period_threshold")
        return bool(now - self.date_joined >= waiting_days * 86400)

    def satisfies_policy(self, policy: int, realm: Realm, now: float) -> bool:
        """Zulip's common policy codes (members, admins, full members, moderators, everyone…)."""
        if policy == POLICY_NOBODY:
            return False
        if policy == POLICY_OWNERS_ONLY:
            return self.is_owner
        if policy == POLICY_ADMINS_ONLY:
            return self.is_admin
        if policy == POLICY_MODERATORS_ONLY:
            return self.is_moderator
        if policy == POLICY_EVERYONE:
            return True
        if self.is_guest:
            return False
        if policy == POLICY_FULL_MEMBERS_ONLY:
            return self.is_moderator or self.is_full_member(realm, now)
        return True  # POLICY_MEMBERS_ONLY


USER_COLUMNS = schema.user.c


# The kinds of push-notification device token (stored in `push_device_token.kind`), for the views
# that register them without reaching for the tables.
PUSH_APNS = schema.PUSH_APNS
PUSH_GCM = schema.PUSH_GCM

"""Account creation as MediaWiki logs it (`$wgNewUserLog`): the account and its `newusers` entry.

`action=createaccount` is AuthManager::continueAccountCreation: `newusers/create` by the new user
when an anonymous visitor signs up, `newusers/create2` by the creator (with the reason) when a
logged-in user makes an account for someone else; both are published to recent changes.
`atrium wiki create-user` is createAndPromote.php, which goes through AuthManager::autoCreateUser:
`newusers/autocreate` by the new user, inserted but not published. Both paths make the new account
watch its user page and user talk page (WatchlistManager::addWatchIgnoringRights), before the entry
is published, so an account made by someone else finds its user page marked changed by the
creator's entry. The install-time and demo administrators, like install.php's, have neither the
entry nor the watch.
"""

from __future__ import annotations

from collections.abc import Iterable

from atrium.core.db import Conn
from atrium.wiki.changes.accounts import create_user
from atrium.wiki.changes.journal import Performer, log_event
from atrium.wiki.changes.watching import set_watch
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_USER, Title


def register(
    conn: Conn,
    name: str,
    password: str,
    creator: Performer | None,
    *,
    reason: str = "",
    email: str = "",
    real_name: str = "",
    password_hash: str | None = None,
    site: Site | None = None,
) -> int:
    """An account made through `action=createaccount`; `creator` is None for a self sign-up.
    `password_hash`: the password already hashed off the event loop; `site`: whose watchers of
    the new user page the log entry mails."""
    user_id = create_user(
        conn, name, password, email=email, real_name=real_name, password_hash=password_hash
    )
    set_watch(conn, user_id, _user_page(name), True)
    if creator is None:
        performer = Performer(user_id, name, frozenset())
        log_event(
            conn, performer, "newusers", "create", _user_page(name),
            params=_ids(user_id), site=site,
        )  # fmt: skip
    else:
        log_event(
            conn, creator, "newusers", "create2", _user_page(name),
            reason=reason, params=_ids(user_id), site=site,
        )  # fmt: skip
    return user_id


def autocreate(
    conn: Conn,
    name: str,
    password: str,
    groups: Iterable[str] = (),
    *,
    email: str = "",
    real_name: str = "",
    password_hash: str | None = None,
) -> int:
    """An account made by the maintenance command (createAndPromote.php), or for a member of
    the workspace (`password_hash`: their password already hashed)."""
    user_id = create_user(
        conn,
        name,
        password,
        groups=groups,
        email=email,
        real_name=real_name,
        password_hash=password_hash,
    )
    set_watch(conn, user_id, _user_page(name), True)
    performer = Performer(user_id, name, frozenset())
    log_event(
        conn, performer, "newusers", "autocreate", _user_page(name),
        params=_ids(user_id), in_rc=False,
    )  # fmt: skip
    return user_id


def _user_page(name: str) -> Title:
    return Title(NS_USER, name.replace(" ", "_"))


def _ids(user_id: int) -> dict[str, int]:
    return {"userid": user_id}

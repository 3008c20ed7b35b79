"""Renaming a user as MediaWiki's RenameUser does: the account and its actor take the new name
(so every edit and log entry stays attributed, under the new name), the user page and user talk
page with their subpages move to the new name leaving redirects, and a `renameuser` log entry
records it."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.accounts.rights import rights_of
from atrium.wiki.accounts.usernames import is_creatable, is_ip
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.accounts import ensure_actor
from atrium.wiki.changes.journal import Performer, log_event
from atrium.wiki.changes.pageops import move_page
from atrium.wiki.changes.protection import page_row
from atrium.wiki.reads.pages import subpages
from atrium.wiki.reads.users import account_by_name
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_USER, NS_USER_TALK, Title

# Who renames from the command line: MediaWiki's maintenance user, with a bureaucrat's rights.
MAINTENANCE = "Maintenance script"


def maintenance_performer(conn: Conn) -> Performer:
    ensure_actor(conn, None, MAINTENANCE)
    rights = rights_of(["*", "user", "autoconfirmed", "sysop", "bureaucrat"])
    return Performer(None, MAINTENANCE, frozenset(rights) | {"renameuser"})


def rename_user(conn: Conn, site: Site, old: str, new: str, reason: str = "") -> int:
    """Rename `old` to `new` (both normalised names); the user's id."""
    who = maintenance_performer(conn)
    account = account_by_name(conn, old)
    if account is None:
        raise ChangeError("nosuchuser", f'There is no user by the name "{old}".')
    if old == new:
        raise ChangeError("renameusererrorinvalid", f'The username "{new}" is the same.')
    if not is_creatable(new) or is_ip(new):
        raise ChangeError("renameusererrorinvalid", f'The username "{new}" is invalid.')
    if account_by_name(conn, new) is not None:
        raise ChangeError("renameusererrorexists", f'The user "{new}" already exists.')
    U, A = schema.user.c, schema.actor.c
    conn.execute(sa.update(schema.user).where(U.user_id == account.id).values(user_name=new))
    conn.execute(sa.update(schema.actor).where(A.actor_user == account.id).values(actor_name=new))
    why = f'Automatically moved page while renaming the user "[[User:{old}|{old}]]" to "[[User:{new}|{new}]]"'
    old_key, new_key = old.replace(" ", "_"), new.replace(" ", "_")
    for ns in (NS_USER, NS_USER_TALK):
        root = Title(ns, old_key)
        titles = [old_key] if page_row(conn, root) is not None else []
        titles += subpages(conn, root)
        for dbkey in titles:
            target = Title(ns, new_key + dbkey[len(old_key) :])
            if page_row(conn, target) is None:
                move_page(conn, site, who, Title(ns, dbkey), target, why)
    log_event(
        conn,
        who,
        "renameuser",
        "renameuser",
        Title(NS_USER, old_key),
        reason=reason,
        params={"olduser": old, "newuser": new, "edits": account.editcount},
        site=site,
    )
    return account.id

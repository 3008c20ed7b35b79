"""Watchlist and user-talk mail (MediaWiki's EmailNotification), sent in the edit's transaction.

A user watching the page is mailed when someone else changes it and they have visited it since
their last mail (`wl_notificationtimestamp` still empty: `journal.notify_watchers` then sets it,
so further changes send nothing until they look); the owner of a user talk page is mailed when
someone else changes it. Each only with a confirmed address and the option on
(`enotifwatchlistpages`, `enotifusertalkpages`), and a minor edit only with `enotifminoredits`.
The texts are MediaWiki's `enotif_*` messages. Every logged action that has a recent-changes row
mails the same people, as RecentChange::save does for log entries too: a deletion, a move, a
restoration and a new file with their own texts (`enotif_subject_deleted`, `_moved`,
`_restored`, `_created`), anything else (protection, a re-upload, an import, a merge, a block,
a rights change...) as a change of the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes.mail import mail_text, send
from atrium.wiki.messages.store import MESSAGES
from atrium.wiki.reads.users import account_by_id, account_by_name, options
from atrium.wiki.site import Site
from atrium.wiki.timestamps import formatted
from atrium.wiki.titles import Title

NS_USER_TALK = 3


@dataclass(frozen=True)
class PageChange:
    title: Title
    editor_id: int | None
    editor_name: str
    summary: str
    minor: bool
    created: bool
    rev_id: int
    parent_id: int
    timestamp: str
    # A logged action's page status (RecentChange::newLogEntry): "deleted", "moved",
    # "restored", "created" or "changed"; empty for an edit, whose status is "created" or
    # "changed".
    status: str = ""

    @property
    def page_status(self) -> str:
        return self.status or ("created" if self.created else "changed")


# The page status of a logged action, as RecentChange::newLogEntry names it; any other is
# "changed".
LOG_PAGE_STATUS = {
    ("delete", "delete"): "deleted",
    ("delete", "delete_redir"): "deleted",
    ("delete", "delete_redir2"): "deleted",
    ("delete", "restore"): "restored",
    ("move", "move"): "moved",
    ("move", "move_redir"): "moved",
    ("upload", "upload"): "created",
}


def log_page_status(log_type: str, action: str) -> str:
    return LOG_PAGE_STATUS.get((log_type, action), "changed")


def _on(value: object) -> bool:
    return str(value) not in ("0", "", "False", "false")


def _recipients(conn: Conn, change: PageChange) -> dict[int, str]:
    """user id -> `watch` or `talk`, before `notify_watchers` marks the watchers notified."""
    title = change.title
    wl = schema.watchlist.c
    watchers = conn.scalars(
        sa.select(wl.wl_user).where(
            wl.wl_namespace == title.ns,
            wl.wl_title == title.dbkey,
            wl.wl_notificationtimestamp.is_(None),
        )
    )
    found = {int(uid): "watch" for uid in watchers}
    if title.ns == NS_USER_TALK and "/" not in title.dbkey:
        owner = account_by_name(conn, title.dbkey.replace("_", " "))
        if owner is not None:
            found[owner.id] = "talk"
    if change.editor_id:
        found.pop(change.editor_id, None)
    return found


def mail_page_change(conn: Conn, site: Site, change: PageChange) -> int:
    """Mail the watchers and the talk page's owner about a saved edit; how many mails."""
    if change.title.ns < 0:
        return 0
    sent = 0
    for user_id, reason in _recipients(conn, change).items():
        account = account_by_id(conn, user_id)
        if account is None or not account.email or not account.email_authenticated:
            continue
        prefs = options(conn, user_id)
        wanted = "enotifusertalkpages" if reason == "talk" else "enotifwatchlistpages"
        if not _on(prefs.get(wanted, 1)):
            continue
        if change.minor and not _on(prefs.get("enotifminoredits", 0)):
            continue
        subject, body = _texts(site, change, account.name)
        if send(conn, site, account.email, account.name, subject, body):
            sent += 1
    return sent


def mail_logged_action(
    conn: Conn,
    site: Site,
    title: Title,
    editor_id: int | None,
    editor_name: str,
    log_type: str,
    action: str,
    reason: str,
    timestamp: str,
) -> int:
    """Mail the watchers (and a user talk page's owner) about a logged action on the page, as
    MediaWiki does for the recent-changes row of every log entry; for a move, the page is the
    one moved away from. Call before the log entry marks them notified."""
    status = log_page_status(log_type, action)
    change = PageChange(
        title, editor_id, editor_name, reason, False, False, 0, 0, timestamp, status
    )
    return mail_page_change(conn, site, change)


def _url(site: Site, title: Title, **params: object) -> str:
    """Title::getCanonicalURL: the article path without a query, else index.php."""
    name = site.parser.prefixed_text(title.ns, title.dbkey).replace(" ", "_")
    path = quote(name, safe="/:")
    if not params:
        return f"{site.server}/wiki/{path}"
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"{site.server}/w/index.php?title={path}&{query}"


def _texts(site: Site, change: PageChange, watcher: str) -> tuple[str, str]:
    title = change.title
    shown = site.parser.prefixed_text(title.ns, title.dbkey)
    kind = change.page_status
    editor = change.editor_name
    editor_shown = editor if change.editor_id else mail_text(site, "enotif_anon_editor", editor)
    subject = mail_text(site, f"enotif_subject_{kind}", shown, editor_shown)
    intro = mail_text(
        site,
        f"enotif_body_intro_{kind}",
        shown,
        editor_shown,
        _url(site, title),
    ).replace("$PAGEEDITDATE", formatted(change.timestamp))
    # A log entry has no revision before it (rc_last_oldid 0): no diff to point to.
    new_page = (
        ""
        if change.created or not change.parent_id
        else mail_text(
            site,
            "enotif_lastdiff",
            _url(site, title, diff=change.rev_id, oldid=change.parent_id),
        )
    )
    user_page = Title(2, editor.replace(" ", "_"))
    server = site.server
    values = {
        "$WATCHINGUSERNAME": watcher,
        "$PAGEINTRO": intro,
        "$NEWPAGE": new_page,
        "$PAGESUMMARY": change.summary or "-",
        "$PAGEMINOREDIT": mail_text(site, "enotif_minoredit") if change.minor else "",
        "$PAGEEDITOR_EMAIL": f"{server}/wiki/Special:EmailUser/{quote(editor.replace(' ', '_'))}",
        "$PAGEEDITOR_WIKI": _url(site, user_page),
        "$UNWATCHURL": _url(site, title, action="unwatch"),
        "$HELPPAGE": MESSAGES["helppage"],
        "{{canonicalurl:{{#special:Preferences}}}}": f"{server}/wiki/Special:Preferences",
        "{{canonicalurl:{{#special:EditWatchlist}}}}": f"{server}/wiki/Special:EditWatchlist",
    }
    body = mail_text(site, "enotif_body")
    # Longest first: $PAGEEDITOR_EMAIL before a shorter name it starts with.
    for key in sorted(values, key=len, reverse=True):
        body = body.replace(key, values[key])
    return subject, body

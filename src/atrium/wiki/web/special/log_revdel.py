"""The ways from Special:Log to Special:RevisionDelete, as LogEventsList and DeleteLogFormatter
show them to those who may look at hidden things (`deletedhistory`): a check box per line with
the "Change visibility of selected log entries" button for those who may hide log entries, else
a "change visibility" link on each hidden entry; and on the lines of the revision-deletion log
itself, the "diff" and "change visibility" links to what was changed."""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from atrium.wiki.reads.users import Account
from atrium.wiki.titles import NS_SPECIAL, Title
from atrium.wiki.web.special.render import Links
from atrium.wiki.web.visibility import DELETED_RESTRICTED, can_see

DELETED_ACTION = 1
REVISION_DELETE = Title(NS_SPECIAL, "RevisionDelete")


def may_select(reader: Account) -> bool:
    """SpecialLog::getActionButtons: the check boxes and the button."""
    return reader.allowed("deletedhistory") and reader.allowed("deletelogentry")


def line_control(
    links: Links, reader: Account, row: dict[str, Any], *, checkboxes: bool = True
) -> Markup:
    """LogEventsList::getShowHideLinks for one entry (nothing on the suppression log's): a check
    box for those who may hide log entries, or without `checkboxes` (a log extract) a link."""
    if row["type"] == "suppress" or not reader.allowed("deletedhistory"):
        return Markup("")
    deleted = int(row["deleted"])
    restricted_ok = can_see(reader, deleted, DELETED_RESTRICTED)
    if may_select(reader) and checkboxes:
        if not restricted_ok:
            return Markup('<input type="checkbox" name="deleterevisions" value="1" disabled>')
        return Markup(
            '<input type="checkbox" name="ids[{}]" value="1" class="mw-revdel-checkbox" '
            'aria-label="Select this log entry">'
        ).format(row["id"])
    if not deleted and not may_select(reader):
        return Markup("")
    if not restricted_ok:
        return Markup('<span class="mw-revdelundel-link">(change visibility)</span>')
    href = links.index(
        REVISION_DELETE, target=f"Special:Log/{row['type']}", type="logging", ids=row["id"]
    )
    return Markup(
        '<span class="mw-revdelundel-link">(<a href="{}">change visibility</a>)</span>'
    ).format(href)


def action_links(links: Links, reader: Account, row: dict[str, Any]) -> Markup:
    """DeleteLogFormatter::getActionLinks for `delete/revision` and `delete/event` entries."""
    if row["type"] not in ("delete", "suppress") or row["action"] not in ("revision", "event"):
        return Markup("")
    if not reader.allowed("deletedhistory") or int(row["deleted"]) & DELETED_ACTION:
        return Markup("")
    try:
        params = json.loads(row["params"] or "{}")
    except ValueError:
        return Markup("")
    if not isinstance(params, dict):
        return Markup("")
    ids = [str(i) for i in params.get("ids") or []]
    if not ids:
        return Markup("")
    title: Title | None = row["title"]
    shown: list[Markup] = []
    if row["action"] == "event":
        target = links.name(title) if title is not None else "Special:Log"
        kind = "logging"
    else:
        if title is None:
            return Markup("")
        target = links.name(title)
        kind = str(params.get("type") or "revision")
        if len(ids) == 1 and kind in ("revision", "oldid") and ids[0].isdigit():
            href = links.index(title, diff=ids[0], unhide=1)
            shown.append(Markup('<a href="{}">diff</a>').format(href))
        elif len(ids) == 1 and kind in ("archive", "artimestamp"):
            href = links.special("Undelete", target=target, diff="prev", timestamp=ids[0])
            shown.append(Markup('<a href="{}">diff</a>').format(href))
    href = links.index(REVISION_DELETE, target=target, type=kind, ids=",".join(ids))
    shown.append(Markup('<a href="{}">change visibility</a>').format(href))
    return Markup("(") + Markup(" | ").join(shown) + Markup(")")

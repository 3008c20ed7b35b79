"""Rows of `recentchanges` as the lines of a changes list (ChangesList's old style), shared by
`Special:RecentChanges`, `Special:NewPages` and `Special:Watchlist`: title, diff and history
links, time, size change, user and summary, with hidden users and summaries left out."""

from __future__ import annotations

from dataclasses import dataclass

from atrium.core.db import Row
from atrium.wiki.reads.users import Account
from atrium.wiki.timestamps import formatted
from atrium.wiki.titles import Title
from atrium.wiki.web.visibility import shown_comment, shown_user

RC_NEW, RC_LOG = 1, 3


@dataclass(frozen=True)
class ChangeLine:
    title: Title
    name: str
    time: str
    kind: str  # "edit", "new" or "log"
    minor: bool
    bot: bool
    user: str | None  # None: "(username removed)"
    anonymous: bool
    comment: str | None  # None: "(edit summary removed)"
    size_change: int | None
    new_size: int | None
    this_oldid: int
    last_oldid: int
    log_type: str


def change_lines(reader: Account, rows: list[Row], prefixed: dict[int, str]) -> list[ChangeLine]:
    """`prefixed` maps namespace ids to their prefixes ("Talk:")."""
    lines = []
    for row in rows:
        deleted = int(row["rc_deleted"] or 0)
        rc_type = int(row["rc_type"])
        key = str(row["rc_title"])
        old, new = row["rc_old_len"], row["rc_new_len"]
        lines.append(
            ChangeLine(
                title=Title(int(row["rc_namespace"]), key),
                name=prefixed.get(int(row["rc_namespace"]), "") + key.replace("_", " "),
                time=formatted(str(row["rc_timestamp"])),
                kind="log" if rc_type == RC_LOG else "new" if rc_type == RC_NEW else "edit",
                minor=bool(row["rc_minor"]),
                bot=bool(row["rc_bot"]),
                user=shown_user(reader, deleted, str(row["actor_name"])),
                anonymous=row["actor_user"] is None,
                comment=shown_comment(reader, deleted, str(row["comment_text"] or "")),
                size_change=None if new is None else int(new) - int(old or 0),
                new_size=None if new is None else int(new),
                this_oldid=int(row["rc_this_oldid"] or 0),
                last_oldid=int(row["rc_last_oldid"] or 0),
                log_type=str(row["rc_log_type"] or ""),
            )
        )
    return lines

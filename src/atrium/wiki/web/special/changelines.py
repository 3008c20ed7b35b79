"""Rows of `recentchanges` as the lines of a changes list (ChangesList's old style), shared by
`Special:RecentChanges`, `Special:NewPages` and `Special:Watchlist`: title, diff and history
links, time, size change, user and summary, with hidden users and summaries left out."""

from __future__ import annotations

from dataclasses import dataclass, replace

from markupsafe import Markup

from atrium.core.db import Database, Row
from atrium.wiki.reads.users import Account
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.log_lines import LOG_NAMES, LogLine, log_html
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
    log_action: str = ""
    log_params: str | None = None
    # A log line's sentence (performer, action, page), filled by `finished`.
    action_html: Markup | None = None

    @property
    def log_name(self) -> str:
        return LOG_NAMES.get(self.log_type, f"{self.log_type} log")


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
                time=local_time(str(row["rc_timestamp"])),
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
                log_action=str(row["rc_log_action"] or ""),
                log_params=row["rc_params"],
            )
        )
    return lines


async def finished(db: Database, site: Site, lines: list[ChangeLine]) -> list[ChangeLine]:
    """The lines with their summaries as HTML and their log lines' sentences."""
    lines = await with_comment_html(db, site, lines)
    logs = [i for i, line in enumerate(lines) if line.kind == "log"]
    sentences = await log_html(
        db,
        site,
        [
            LogLine(
                lines[i].log_type, lines[i].log_action, lines[i].log_params, lines[i].user,
                lines[i].title,
            )
            for i in logs
        ],
    )  # fmt: skip
    for i, sentence in zip(logs, sentences, strict=True):
        lines[i] = replace(lines[i], action_html=sentence)
    return lines

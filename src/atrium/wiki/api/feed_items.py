"""What a feed item says, as MediaWiki 1.39 builds it: a recent change as `FeedUtils::formatDiff`
(a log entry's sentence and the formatted summary, then the diff table of the edit or the start
of a new page's text) and a contribution as `ApiFeedContributions::feedItemDesc` (author,
summary, the revision's text).

Feeds are read by aggregators that share what they fetch, so a revision's text and a summary
reach a feed only when everyone may see them: a recent change with any hidden (revision-deleted)
part is left out (ChangesFeed skips it), a contribution's hidden text or summary is left empty,
and a private wiki's items carry no text at all (FeedUtils checks what an anonymous reader may
read).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from atrium.core.db import Conn
from atrium.wiki.api.feed_log_text import log_sentences
from atrium.wiki.diff import table_rows
from atrium.wiki.reads.comments import format_comments
from atrium.wiki.reads.revisions import intermediate, revision_text
from atrium.wiki.site import SCRIPT_PATH, Site
from atrium.wiki.titles import Title

FEED_DIFF_CUTOFF = 32768  # $wgFeedDiffCutoff, in bytes of HTML (or of a new page's text)
_TEXT_HIDDEN = 1  # RevisionRecord::DELETED_TEXT
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
# FeedUtils::applyDiffStyle: the diff's classes become inline styles (feed readers have no CSS).
_STYLES = {
    "diff": "background-color: #fff; color: #202122;",
    "diff-otitle": "background-color: #fff; color: #202122; text-align: center;",
    "diff-ntitle": "background-color: #fff; color: #202122; text-align: center;",
    "diff-addedline": "color: #202122; font-size: 88%; border-style: solid; border-width: 1px 1px "
    "1px 4px; border-radius: 0.33em; border-color: #a3d3ff; vertical-align: top; "
    "white-space: pre-wrap;",
    "diff-deletedline": "color: #202122; font-size: 88%; border-style: solid; border-width: 1px "
    "1px 1px 4px; border-radius: 0.33em; border-color: #ffe49c; vertical-align: top; "
    "white-space: pre-wrap;",
    "diff-context": "background-color: #f8f9fa; color: #202122; font-size: 88%; border-style: "
    "solid; border-width: 1px 1px 1px 4px; border-radius: 0.33em; border-color: #eaecf0; "
    "vertical-align: top; white-space: pre-wrap;",
    "diffchange": "font-weight: bold; text-decoration: none;",
}


@dataclass
class Change:
    """One row of `list=recentchanges` as a feed shows it."""

    title: Title
    page_id: int
    kind: str  # edit, new, log, categorize
    user: str | None  # None: hidden
    revid: int
    old_revid: int
    timestamp: str  # ISO 8601
    comment: str | None  # None: hidden
    hidden: bool  # some part of it is revision-deleted
    description: str = ""
    logid: int = 0  # a log entry's id (kind "log")


def _human_time(iso: str) -> str:
    """`Language::userTimeAndDate` in the default format: `21:50, 28 November 2026`."""
    moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return f"{moment:%H:%M}, {moment.day} {_MONTHS[moment.month - 1]} {moment.year}"


def _styled(text: str) -> str:
    for name, style in _STYLES.items():
        pattern = (
            r"(<\w+\b[^<>]*)\bclass=(['\"])(?:[^'\"]*\s)?" + re.escape(name)
            + r"(?:\s[^'\"]*)?\2(?=[^<>]*>)"
        )  # fmt: skip
        text = re.sub(pattern, r"\1" + f'style="{style}"', text)
    return text


def nl2br(text: str) -> str:
    """PHP's nl2br: a `<br />` before each line break."""
    return re.sub(r"(\r\n|\n\r|\n|\r)", r"<br />\1", text)


def _php_escape(text: str) -> str:
    """htmlspecialchars with PHP 8's default flags (quotes both ways)."""
    return html.escape(text, quote=True).replace("&#x27;", "&#039;")


def _diff_link(site: Site, title: Title, newid: int, oldid: int | None = None) -> str:
    query = {"title": site.parser.prefixed_dbkey(title.ns, title.dbkey), "diff": str(newid)}
    if oldid:
        query["oldid"] = str(oldid)
    url = f"{site.server}{SCRIPT_PATH}/index.php?" + urlencode(query, safe=":/")
    return f'<a href="{html.escape(url)}">Show changes</a>'


_MANY_USERS = 100  # DifferenceEngine::getMultiNotice's limit of authors named by number


def _multi_notice(conn: Conn, old_id: int, new_id: int) -> str:
    """DifferenceEngine::getMultiNotice: how many revisions the diff spans, and by whom."""
    count, authors, new_author = intermediate(conn, old_id, new_id, _MANY_USERS)
    if not 0 < count <= 1000:
        return ""
    edits = "One intermediate revision" if count == 1 else f"{count:,} intermediate revisions"
    users = len(authors)
    if users == 1 and authors[0] == new_author:
        return f"({edits} by the same user not shown)"
    if users > _MANY_USERS:
        return f"({edits} by more than {_MANY_USERS} users not shown)"
    who = "one other user" if users == 1 else f"{users:,} users"
    return f"({edits} by {who} not shown)"


def _diff_table(rows: str, timestamp: str, multi: str) -> str:
    """DifferenceEngine::getDiff with FeedUtils' two headers, in addHeader's layout (its
    columns only when there are rows; else one column a side and the "no difference" notice)."""
    span, notice, columns = "2", "", ""
    if rows:
        columns = "".join(
            f'\n\t\t\t\t<col class="diff-{kind}" />'
            for kind in ("marker", "content", "marker", "content")
        )
    else:
        span = "1"
        notice = (
            '<tr><td colspan="2" class="diff-notice" lang="en">'
            '<div class="mw-diff-empty">(No difference)</div>\n</td></tr>'
        )
    ntitle = f"Revision as of {_human_time(timestamp)}"
    multi_row = (
        f'<tr><td colspan="{2 * int(span)}" class="diff-multi" lang="en">{multi}</td></tr>'
        if multi
        else ""
    )
    return (
        '<table class="diff diff-contentalign-left diff-editfont-monospace" data-mw="interface">'
        + columns + '\n\t\t\t\t<tr class="diff-title" lang="en">'
        f'\n\t\t\t\t<td colspan="{span}" class="diff-otitle diff-side-deleted">'
        "\u2190 Older revision</td>"
        f'\n\t\t\t\t<td colspan="{span}" class="diff-ntitle diff-side-added">{ntitle}</td>'
        "\n\t\t\t\t</tr>" + multi_row + notice + rows + "</table>"
    )  # fmt: skip


def describe_changes(conn: Conn, site: Site, rows: Sequence[Change]) -> list[Change]:
    """ChangesFeed::buildItems: adjacent edits of one page by one person become one item (the
    newest, its diff reaching back over them); an item with any hidden part is left out, so a
    feed never shows half of a change; each item gets its description."""
    merged: list[Change] = []
    for row in rows:
        last = merged[-1] if merged else None
        if (
            last is not None and row.kind == "edit" and row.title.ns >= 0
            and row.page_id == last.page_id and row.user == last.user
        ):  # fmt: skip
            last.old_revid = row.old_revid
        else:
            merged.append(row)
    for row in merged:
        if row.revid and not row.hidden:
            found = revision_text(conn, row.revid)
            row.hidden = found is not None and bool(found["rev_deleted"])
    kept = [row for row in merged if not row.hidden]
    # ChangesFeed formats the summaries without their pages: an autocomment links nowhere.
    shown: list[tuple[str, Title | None]] = [(c.comment, None) for c in kept if c.comment]
    formatted = iter(format_comments(conn, site, shown) if shown else [])
    # A log entry's item starts with its sentence (LogFormatter::getActionText).
    logged = [c.logid for c in kept if c.kind == "log" and c.logid]
    sentences = log_sentences(conn, site, logged) if logged else {}
    for change in kept:
        comment = next(formatted) if change.comment else ""
        action = sentences.get(change.logid, "") if change.kind == "log" else ""
        text = "<p>" + " ".join(part for part in (action, comment) if part) + "</p>\n"
        if change.title.ns >= 0 and not site.private and change.revid:
            text += _diff_part(conn, site, change)
        change.description = text
    return kept


def _diff_part(conn: Conn, site: Site, change: Change) -> str:
    new = revision_text(conn, change.revid)
    if change.old_revid:
        old = revision_text(conn, change.old_revid)
        if old is None or new is None or (old["rev_deleted"] | new["rev_deleted"]) & _TEXT_HIDDEN:
            # getDiff refuses a revision whose text is hidden: FeedUtils says it cannot load.
            return f"<p>Can't load revision {change.revid}</p>"
        rows = table_rows(old["old_text"] or "", new["old_text"] or "")
        multi = _multi_notice(conn, change.old_revid, change.revid)
        table = _diff_table(rows, change.timestamp, multi)
        if len(table.encode()) > FEED_DIFF_CUTOFF:
            return _diff_link(site, change.title, change.revid, change.old_revid)
        return _styled(table)
    if new is None or new["rev_deleted"] & _TEXT_HIDDEN:
        return _diff_link(site, change.title, change.revid)
    source = new["old_text"] or ""
    if len(source.encode()) > FEED_DIFF_CUTOFF:
        return _diff_link(site, change.title, change.revid)
    return f"<p><b>New page</b></p><div>{nl2br(_php_escape(source))}</div>"


_COMMENT_LINK = re.compile(r"\[\[([^]]*\|)?([^]]+)\]\]")


def strip_comment(text: str) -> str:
    """FeedItem::stripComment: a wiki link in a summary as its label."""
    return _COMMENT_LINK.sub(r"\2", text)


def contribution_description(
    conn: Conn, site: Site, revid: int, author: str, comment: str | None
) -> str:
    """ApiFeedContributions::feedItemDesc: who, the summary, then the revision's whole text;
    what is hidden (or the text of a private wiki) is left empty."""
    row = revision_text(conn, revid)
    source = ""
    if row is not None and not row["rev_deleted"] & _TEXT_HIDDEN and not site.private:
        source = row["old_text"] or ""
    summary = _compat_escape(strip_comment(comment or ""))
    return (
        f"<p>{_compat_escape(author)}: {summary}</p>\n<hr />\n"
        f"<div>{nl2br(_compat_escape(source))}</div>"
    )


def _compat_escape(text: str) -> str:
    """htmlspecialchars with ENT_COMPAT: double quotes escaped, single ones kept."""
    return html.escape(text, quote=False).replace('"', "&quot;")

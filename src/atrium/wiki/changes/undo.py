"""Undoing revisions (`action=edit&undo=…&undoafter=…`), as MediaWiki's ApiEditPage does it.

The text to save is `ContentHandler::getUndoContent(current, undo, undoafter)`: the text of
`undoafter` when the page still reads as `undo` (a straight revert), otherwise a three-way merge
that applies the change "`undo` -> `undoafter`" to the current text. MediaWiki merges with GNU
`diff3` (`wfMerge`: each text right-trimmed plus a newline, `--overlap-only` to detect a conflict,
`-e --merge` for the result); `merge3` below is the same line-based merge: the changes each side
made to the common text are applied together, and changes that touch the same lines differently
are a conflict (MediaWiki's `undofailure`).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes import ChangeError

R = schema.revision


@dataclass(frozen=True)
class UndoRevision:
    rev_id: int
    page_id: int
    timestamp: str
    text: str
    user_name: str
    deleted: bool


def _revision_query() -> sa.Select[tuple[int, int, str, str, str, int]]:
    return (
        sa.select(
            R.c.rev_id,
            R.c.rev_page,
            R.c.rev_timestamp,
            schema.text.c.old_text,
            schema.actor.c.actor_name,
            R.c.rev_deleted,
        )
        .join(schema.text, schema.text.c.old_id == R.c.rev_text_id)
        .join(schema.actor, schema.actor.c.actor_id == R.c.rev_actor)
    )


def _from_row(row: object) -> UndoRevision | None:
    if row is None:
        return None
    values = dict(row)  # type: ignore[call-overload]
    return UndoRevision(
        int(values["rev_id"]),
        int(values["rev_page"]),
        str(values["rev_timestamp"]),
        str(values["old_text"]),
        str(values["actor_name"]),
        # RevisionRecord::DELETED_TEXT
        bool(int(values["rev_deleted"]) & 1),
    )


def revision(conn: Conn, rev_id: int) -> UndoRevision | None:
    return _from_row(conn.one(_revision_query().where(R.c.rev_id == rev_id)))


def previous_revision(conn: Conn, rev: UndoRevision) -> UndoRevision | None:
    """RevisionStore::getPreviousRevision: the page's revision before, by (timestamp, id)."""
    query = (
        _revision_query()
        .where(
            R.c.rev_page == rev.page_id,
            sa.or_(
                R.c.rev_timestamp < rev.timestamp,
                sa.and_(R.c.rev_timestamp == rev.timestamp, R.c.rev_id < rev.rev_id),
            ),
        )
        .order_by(R.c.rev_timestamp.desc(), R.c.rev_id.desc())
        .limit(1)
    )
    return _from_row(conn.one(query))


def next_revision_id(conn: Conn, rev: UndoRevision) -> int | None:
    """RevisionStore::getNextRevision's id: the page's revision after, by (timestamp, id)."""
    value = conn.scalar(
        sa.select(R.c.rev_id)
        .where(
            R.c.rev_page == rev.page_id,
            sa.or_(
                R.c.rev_timestamp > rev.timestamp,
                sa.and_(R.c.rev_timestamp == rev.timestamp, R.c.rev_id > rev.rev_id),
            ),
        )
        .order_by(R.c.rev_timestamp, R.c.rev_id)
        .limit(1)
    )
    return None if value is None else int(value)


def _lines(text: str) -> list[str]:
    # wfMerge writes `rtrim($text) . "\n"` for each side.
    return (text.rstrip() + "\n").splitlines(keepends=True)


def _hunks(base: list[str], other: list[str]) -> list[tuple[int, int, list[str]]]:
    """The changed regions of `other` against `base`: (start, end) in base, replacement lines."""
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    return [
        (i1, i2, other[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    ]


def _touch(a: tuple[int, int, list[str]], b: tuple[int, int, list[str]]) -> bool:
    """Whether two changes of the common text overlap (diff3 puts them in one block)."""
    (s1, e1, _), (s2, e2, _) = a, b
    if s1 == e1 or s2 == e2:  # an insertion conflicts with a change around its position
        return s2 <= s1 <= e2 if s1 == e1 else s1 <= s2 <= e1
    # diff3 joins changes that overlap or are adjacent into one block.
    return s1 <= e2 and s2 <= e1


def merge3(old: str, mine: str, yours: str) -> str | None:
    """`wfMerge(old, mine, yours)`: both sides' changes to `old` applied, or None on a conflict."""
    base = _lines(old)
    ours = [(s, e, lines, 0) for s, e, lines in _hunks(base, _lines(mine))]
    theirs = [(s, e, lines, 1) for s, e, lines in _hunks(base, _lines(yours))]
    changes = sorted(ours + theirs, key=lambda h: (h[0], h[1], h[3]))
    merged: list[str] = []
    position = 0
    index = 0
    while index < len(changes):
        group = [changes[index]]
        index += 1
        while index < len(changes) and any(_touch(g[:3], changes[index][:3]) for g in group):
            group.append(changes[index])
            index += 1
        sides = {g[3] for g in group}
        start = min(g[0] for g in group)
        end = max(g[1] for g in group)
        if len(sides) > 1:
            # Both sides changed this region: fine only if they made the very same change.
            first = [g for g in group if g[3] == 0]
            second = [g for g in group if g[3] == 1]
            if [g[:3] for g in first] != [g[:3] for g in second]:
                return None
            group = first
        merged.extend(base[position:start])
        cursor = start
        for s, e, lines, _side in group:
            merged.extend(base[cursor:s])
            merged.extend(lines)
            cursor = e
        merged.extend(base[cursor:end])
        position = end
    merged.extend(base[position:])
    return "".join(merged)


def undo_text(current: str, undo: str, undoafter: str) -> str | None:
    """`ContentHandler::getUndoContent` for wikitext; None when the undo does not apply."""
    if current == undo:
        return undoafter
    return merge3(undo, undoafter, current)


@dataclass(frozen=True)
class UndoPlan:
    text: str
    # MediaWiki's automatic summary when exactly one revision is undone and none was given.
    summary: str | None


def plan_undo(
    conn: Conn, page_id: int | None, prefixed_title: str, undo: int, undoafter: int | None
) -> UndoPlan:
    """ApiEditPage's undo block: the text to save (and the automatic summary), or its errors."""
    if undoafter and undo < undoafter:
        undo, undoafter = undoafter, undo
    undo_rev = revision(conn, undo)
    if undo_rev is None or undo_rev.deleted:
        raise ChangeError(
            "nosuchrevid", f"There is no revision with ID {undo}.", "apierror-nosuchrevid", (undo,)
        )
    after_rev = revision(conn, undoafter) if undoafter else previous_revision(conn, undo_rev)
    if after_rev is None or after_rev.deleted:
        missing = undoafter or 0
        raise ChangeError(
            "nosuchrevid",
            f"There is no revision with ID {missing}.",
            "apierror-nosuchrevid",
            (missing,),
        )
    for rev in (undo_rev, after_rev):
        if rev.page_id != page_id:
            raise ChangeError(
                "revwrongpage",
                f"r{rev.rev_id} is not a revision of {prefixed_title}.",
                "apierror-revwrongpage",
                (rev.rev_id, prefixed_title),
            )
    current = conn.scalar(
        sa.select(schema.text.c.old_text)
        .select_from(
            schema.page.join(R, R.c.rev_id == schema.page.c.page_latest).join(
                schema.text, schema.text.c.old_id == R.c.rev_text_id
            )
        )
        .where(schema.page.c.page_id == page_id)
    )
    text = undo_text(str(current or ""), undo_rev.text, after_rev.text)
    if text is None:
        raise ChangeError(
            "undofailure",
            "The edit could not be undone due to conflicting intermediate edits.",
            "undo-failure",
        )
    summary = None
    if next_revision_id(conn, after_rev) == undo_rev.rev_id:
        user = undo_rev.user_name
        summary = (
            f"Undo revision {undo_rev.rev_id} by [[Special:Contributions/{user}|{user}]] "
            f"([[User talk:{user}|talk]])"
        )
    return UndoPlan(text, summary)

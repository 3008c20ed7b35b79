"""Three-way merge of page texts, line by line, as MediaWiki's edit conflicts use it.

When an edit was made from an older revision than the current one, MediaWiki first tries to
merge it (EditPage::mergeChangesIntoContent -> TextContentHandler::merge3 -> wfMerge, which runs
`diff3 --merge`): the changes from the base to the edit and from the base to the current text
are combined when they touch different lines; only when they overlap, or abut, is the edit
refused as a conflict. Identical changes on both sides merge as one.
"""

from __future__ import annotations

from difflib import SequenceMatcher

# (first base line, end base line, replacement lines) of one change against the base.
Change = tuple[int, int, list[str]]


def _changes(base: list[str], other: list[str]) -> list[Change]:
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return [
        (i1, i2, other[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    ]


def merge3(base: str, mine: str, theirs: str) -> str | None:
    """`mine` and `theirs`, both made from `base`, in one text; None when their changes
    overlap or touch (diff3 treats abutting changes as one conflicting region)."""
    if mine == theirs:
        return mine
    base_lines = base.split("\n")
    ordered = sorted(
        _changes(base_lines, mine.split("\n")) + _changes(base_lines, theirs.split("\n")),
        key=lambda change: (change[0], change[1]),
    )
    kept: list[Change] = []
    for change in ordered:
        if kept and change[0] <= kept[-1][1]:
            if change == kept[-1]:  # the same change made on both sides
                continue
            return None
        kept.append(change)
    out: list[str] = []
    position = 0
    for start, end, lines in kept:
        out += base_lines[position:start]
        out += lines
        position = end
    out += base_lines[position:]
    return "\n".join(out)

"""Differences between two texts as MediaWiki 1.39 shows them: its line diff (Myers' middle-snake
search after trimming the common head and tail, then the boundary shifting of GNU diff), the word
diff inside changed blocks, and the two-column table rows of `TableDiffFormatter` with two lines
of context around each block and a "Line N:" header per block.

The rows depend on the two texts alone, so the rows of recent pairs are kept (`table_rows`): the
same pair of revisions is compared again and again while a change is reviewed.
"""

from __future__ import annotations

import html
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

from atrium.core.bounded_cache import BoundedCache

_TOO_LONG = 2_000_000
_POW_LIMIT = 1.45
_WORD_BAILOUT = 40_000_000


@dataclass
class Edit:
    kind: str  # copy, add, delete, change
    orig: list[str] = field(default_factory=list)
    closing: list[str] = field(default_factory=list)


class _TooComplex(Exception):
    pass


class _Engine:
    def __init__(self, bailout: int = 0) -> None:
        self.bailout = bailout
        self.xs: list[str] = []
        self.ys: list[str] = []
        self.removed: list[bool] = []
        self.added: list[bool] = []
        self.max_differences = 0

    def diff(self, before: list[str], after: list[str]) -> list[Edit]:
        removed, added = self._changes(before, after)
        _shift_boundaries(before, removed, added)
        _shift_boundaries(after, added, removed)
        edits: list[Edit] = []
        xi = yi = 0
        nx, ny = len(before), len(after)
        while xi < nx or yi < ny:
            copy: list[str] = []
            while xi < nx and yi < ny and not removed[xi] and not added[yi]:
                copy.append(before[xi])
                xi += 1
                yi += 1
            if copy:
                edits.append(Edit("copy", copy, list(copy)))
            gone: list[str] = []
            while xi < nx and removed[xi]:
                gone.append(before[xi])
                xi += 1
            new: list[str] = []
            while yi < ny and added[yi]:
                new.append(after[yi])
                yi += 1
            if gone and new:
                edits.append(Edit("change", gone, new))
            elif gone:
                edits.append(Edit("delete", gone, []))
            elif new:
                edits.append(Edit("add", [], new))
        return edits

    def _changes(self, before: list[str], after: list[str]) -> tuple[list[bool], list[bool]]:
        m, n = len(before), len(after)
        removed = [True] * m
        added = [True] * n
        i = 0
        while i < m and i < n and before[i] == after[i]:
            removed[i] = added[i] = False
            i += 1
        j = 1
        while i + j <= m and i + j <= n and before[m - j] == after[n - j]:
            removed[m - j] = added[n - j] = False
            j += 1
        middle_x = range(i, m - j + 1)
        middle_y = range(i, n - j + 1)
        in_x = {before[k] for k in middle_x}
        ys_index = [k for k in middle_y if after[k] in in_x]
        in_y = {after[k] for k in ys_index}
        xs_index = [k for k in middle_x if before[k] in in_y]
        self.xs = [before[k] for k in xs_index]
        self.ys = [after[k] for k in ys_index]
        sm, sn = len(self.xs), len(self.ys)
        if self.bailout > 0 and sm * sn > self.bailout:
            raise _TooComplex
        self.removed = [True] * sm
        self.added = [True] * sn
        if sm and sn:
            self.max_differences = math.ceil((sm + sn) / 2.0)
            if sm * sn > _TOO_LONG:
                self.max_differences = math.floor(self.max_differences ** (_POW_LIMIT - 1.0))
            forward = 0
            while forward < min(sm, sn) and self.xs[forward] == self.ys[forward]:
                self.removed[forward] = self.added[forward] = False
                forward += 1
            back1, back2 = sm - 1, sn - 1
            while back1 >= forward and back2 >= forward and self.xs[back1] == self.ys[back2]:
                self.removed[back1] = self.added[back2] = False
                back1 -= 1
                back2 -= 1
            v: tuple[dict[int, int], dict[int, int]] = (defaultdict(int), defaultdict(int))
            self._lcs(forward, back1, forward, back2, v)
        for key, gone in enumerate(self.removed):
            if not gone:
                removed[xs_index[key]] = False
        for key, new in enumerate(self.added):
            if not new:
                added[ys_index[key]] = False
        return removed, added

    def _lcs(
        self, bottom1: int, top1: int, bottom2: int, top2: int, v: tuple[dict[int, int], ...]
    ) -> int:
        if bottom1 > top1 or bottom2 > top2:
            return 0
        d, (startx, starty, length) = self._middle_snake(bottom1, top1, bottom2, top2, v)
        for k in range(length):
            self.removed[startx + k] = self.added[starty + k] = False
        if d > 1:
            return (
                length
                + self._lcs(bottom1, startx - 1, bottom2, starty - 1, v)
                + self._lcs(startx + length, top1, starty + length, top2, v)
            )
        if d == 1:
            most = min(startx - bottom1, starty - bottom2)
            for k in range(most):
                self.removed[bottom1 + k] = self.added[bottom2 + k] = False
            return most + length
        return length

    def _middle_snake(
        self, bottom1: int, top1: int, bottom2: int, top2: int, v: tuple[dict[int, int], ...]
    ) -> tuple[int, tuple[int, int, int]]:
        xs, ys = self.xs, self.ys
        v0, v1 = v[0], v[1]
        big_n = top1 - bottom1 + 1
        big_m = top2 - bottom2 + 1
        delta = big_n - big_m
        maxabsx = big_n + bottom1
        maxabsy = big_m + bottom2
        limit = min(self.max_differences, math.ceil((big_n + big_m) / 2))
        add_forward = 1 if big_m & 1 else 0
        add_backward = 1 if big_n & 1 else 0
        start_forward, end_forward = -big_m, big_n
        start_backward, end_backward = -big_n, big_m
        v0[limit + 1] = 0
        v1[limit - 1] = big_n
        snake = [0, 0, 0]
        odd = bool(delta & 1)
        for d in range(limit + 1):
            start_diag = max(add_forward + start_forward, -d)
            end_diag = min(end_forward, d)
            add_forward = 1 - add_forward
            for k in range(start_diag, end_diag + 1, 2):
                if k == -d or (k < d and v0[limit - 1 + k] < v0[limit + 1 + k]):
                    x = v0[limit + 1 + k]
                else:
                    x = v0[limit - 1 + k] + 1
                absx = snake[0] = x + bottom1
                absy = snake[1] = x - k + bottom2
                while absx < maxabsx and absy < maxabsy and xs[absx] == ys[absy]:
                    absx += 1
                    absy += 1
                x = absx - bottom1
                snake[2] = absx - snake[0]
                v0[limit + k] = x
                if odd and delta - d + 1 <= k <= delta + d - 1 and x >= v1[limit + k - delta]:
                    return 2 * d - 1, (snake[0], snake[1], snake[2])
                if x >= big_n and end_forward > k - 1:
                    end_forward = k - 1
                elif absy - bottom2 >= big_m:
                    start_forward = k + 1
                    add_forward = 0
            start_diag = max(add_backward + start_backward, -d)
            end_diag = min(end_backward, d)
            add_backward = 1 - add_backward
            for k in range(start_diag, end_diag + 1, 2):
                if k == d or (k != -d and v1[limit - 1 + k] < v1[limit + 1 + k]):
                    x = v1[limit - 1 + k]
                else:
                    x = v1[limit + 1 + k] - 1
                y = x - k - delta
                snake[2] = 0
                while x > 0 and y > 0 and xs[x + bottom1 - 1] == ys[y + bottom2 - 1]:
                    x -= 1
                    y -= 1
                    snake[2] += 1
                v1[limit + k] = x
                if not odd and -delta - d <= k <= d - delta and x <= v0[limit + k + delta]:
                    return 2 * d, (bottom1 + x, bottom2 + y, snake[2])
                if x <= 0:
                    start_backward = k + 1
                    add_backward = 0
                elif y <= 0 and end_backward > k - 1:
                    end_backward = k - 1
        x, y = _most_progress(big_m, big_n, limit, v)
        return 5, (bottom1 + x, bottom2 + y, 0)


def _most_progress(
    big_m: int, big_n: int, limit: int, v: tuple[dict[int, int], ...]
) -> tuple[int, int]:
    """Where the search got furthest when it gave up (the heuristic for very long inputs)."""
    delta = big_n - big_m
    fstart = max(-big_m, -limit) if (big_m & 1) == (limit & 1) else max(1 - big_m, -limit)
    fend = min(big_n, limit)
    bstart = max(-big_n, -limit) if (big_n & 1) == (limit & 1) else max(1 - big_n, -limit)
    bend = -min(big_m, limit)
    best: list[tuple[int, int]] = [(0, 0)]
    best_progress = 0
    for k in range(fstart, fend + 1, 2):
        x = v[0][limit + k]
        y = x - k
        if x > big_n or y > big_m:
            continue
        progress = x + y
        if progress > best_progress:
            best, best_progress = [(x, y)], progress
        elif progress == best_progress:
            best.append((x, y))
    forward = True
    for k in range(bstart, bend + 1, 2):
        x = v[1][limit + k]
        y = x - k - delta
        if x < 0 or y < 0:
            continue
        progress = big_n - x + big_m - y
        if progress > best_progress:
            best, best_progress, forward = [(x, y)], progress, False
        elif progress == best_progress and not forward:
            best.append((x, y))
    return best[(len(best) - 1) // 2]


def _shift_boundaries(lines: list[str], changed: list[bool], other: list[bool]) -> None:
    """Slide each run of changes so it merges with its neighbours and lines up with the other
    side's runs (GNU diff's `shift_boundaries`)."""
    i = j = 0
    size, other_size = len(lines), len(other)
    while True:
        while j < other_size and other[j]:
            j += 1
        while i < size and not changed[i]:
            i += 1
            j += 1
            while j < other_size and other[j]:
                j += 1
        if i == size:
            break
        start = i
        i += 1
        while i < size and changed[i]:
            i += 1
        while True:
            runlength = i - start
            while start > 0 and lines[start - 1] == lines[i - 1]:
                start -= 1
                changed[start] = True
                i -= 1
                changed[i] = False
                while start > 0 and changed[start - 1]:
                    start -= 1
                j -= 1
                while other[j]:
                    j -= 1
            corresponding = i if j < other_size else size
            while i < size and lines[start] == lines[i]:
                changed[start] = False
                start += 1
                changed[i] = True
                i += 1
                while i < size and changed[i]:
                    i += 1
                j += 1
                if j < other_size and other[j]:
                    corresponding = i
                    while j < other_size and other[j]:
                        j += 1
            if runlength == i - start:
                break
        while corresponding < i:
            start -= 1
            changed[start] = True
            i -= 1
            changed[i] = False
            j -= 1
            while other[j]:
                j -= 1


def line_diff(before: list[str], after: list[str]) -> list[Edit]:
    return _Engine().diff(before, after)


# PHP's byte-wise PCRE: ASCII whitespace only, every non-ASCII character is a word character.
_WORD = re.compile(r"([ \t\r\f\v]+|[0-9_A-Za-z\x80-\U0010ffff]+|.)(?:[ \t\r\f\v])?", re.S)


def _split_words(lines: list[str]) -> tuple[list[str], list[str]]:
    words: list[str] = []
    stripped: list[str] = []
    for index, line in enumerate(lines):
        if index:
            words.append("\n")
            stripped.append("\n")
        for match in _WORD.finditer(line):
            words.append(match.group(0))
            stripped.append(match.group(1))
    return words, stripped


class _Accumulator:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.line = ""
        self.group = ""
        self.tag = ""

    def _flush_group(self, new_tag: str) -> None:
        if self.group:
            text = _escape(self.group)
            if self.tag in ("ins", "del"):
                self.line += f'<{self.tag} class="diffchange diffchange-inline">{text}</{self.tag}>'
            else:
                self.line += text
        self.group = ""
        self.tag = new_tag

    def _flush_line(self, new_tag: str) -> None:
        self._flush_group(new_tag)
        self.lines.append(self.line if self.line != "" else "\u00a0")
        self.line = ""

    def add(self, words: list[str], tag: str = "") -> None:
        if tag != self.tag:
            self._flush_group(tag)
        for word in words:
            if word == "":
                continue
            if word[0] == "\n":
                self._flush_line(tag)
                word = word[1:]
            self.group += word

    def result(self) -> list[str]:
        self._flush_line("~done")
        return self.lines


def word_diff(before: list[str], after: list[str]) -> tuple[list[str], list[str]]:
    """The changed lines of both sides with the changed words marked (escaped HTML)."""
    words_before, stripped_before = _split_words(before)
    words_after, stripped_after = _split_words(after)
    try:
        edits = _Engine(_WORD_BAILOUT).diff(stripped_before, stripped_after)
    except _TooComplex:
        edits = [Edit("change", list(before), list(after))]
        words_before, words_after = _join_lines(before), _join_lines(after)
    xi = yi = 0
    for edit in edits:
        count = len(edit.orig)
        edit.orig = words_before[xi : xi + count]
        xi += count
        count = len(edit.closing)
        edit.closing = words_after[yi : yi + count]
        yi += count
    orig, closing = _Accumulator(), _Accumulator()
    for edit in edits:
        if edit.kind == "copy":
            orig.add(edit.orig)
            closing.add(edit.closing)
        else:
            if edit.orig:
                orig.add(edit.orig, "del")
            if edit.closing:
                closing.add(edit.closing, "ins")
    return orig.result(), closing.result()


def _join_lines(lines: list[str]) -> list[str]:
    return [("\n" if k else "") + line for k, line in enumerate(lines)]


def _escape(text: str) -> str:
    return html.escape(text, quote=True).replace("&#x27;", "&#039;")


def _element_text(text: str) -> str:
    """`Html::element` escapes only `&` and `<`."""
    return text.replace("&", "&amp;").replace("<", "&lt;")


_LEADING_SPACE = re.compile(r"^ ", re.M)
_TRAILING_SPACE = re.compile(r" $", re.M)


def _whitespace(text: str) -> str:
    if " " not in text:
        return text
    text = _LEADING_SPACE.sub("\u00a0 ", text)
    text = _TRAILING_SPACE.sub(" \u00a0", text)
    return text.replace("  ", "\u00a0 ")


def _cell(marker: str, classes: str, line: str) -> str:
    content = f"<div>{_whitespace(line)}</div>" if line != "" else "<br/>"
    mark = f' data-marker="{marker}"' if marker else ""
    return f'<td class="diff-marker"{mark}></td><td class="{classes}">{content}</td>'


def _added(line: str) -> str:
    return _cell("+", "diff-addedline diff-side-added", line)


def _deleted(line: str) -> str:
    return _cell("\u2212", "diff-deletedline diff-side-deleted", line)


def _empty(side: str) -> str:
    return f'<td colspan="2" class="diff-side-{side}"></td>'


def _number(value: int) -> str:
    return f"{value:,}"


_ROWS_BYTES = 16 * 1024 * 1024
_rows: BoundedCache[tuple[str, str], str] = BoundedCache(
    _ROWS_BYTES, lambda key, rows: 2 * (len(key[0]) + len(key[1]) + len(rows)) + 256
)


def table_rows(old_text: str, new_text: str) -> str:
    """`DifferenceEngine::getDiffBody` for two wikitexts: the table rows, "" when equal."""
    key = (old_text, new_text)
    found = _rows.get(key)
    if found is None:
        found = _table_rows(old_text, new_text)
        _rows.put(key, found)
    return found


def _table_rows(old_text: str, new_text: str) -> str:
    edits = line_diff(old_text.split("\n"), new_text.split("\n"))
    out: list[str] = []
    lead = trail = 2
    xi = yi = 1
    block: list[Edit] | None = None
    context: list[str] = []
    x0 = y0 = 0
    for edit in edits:
        if edit.kind == "copy":
            if block is not None:
                if len(edit.orig) <= lead + trail:
                    block.append(edit)
                else:
                    block.append(Edit("copy", edit.orig[:trail], edit.orig[:trail]))
                    _block(out, x0, y0, block)
                    block = None
            context = edit.orig
        else:
            if block is None:
                context = context[len(context) - lead :] if len(context) > lead else context
                x0 = xi - len(context)
                y0 = yi - len(context)
                block = [Edit("copy", context, context)] if context else []
            block.append(edit)
        xi += len(edit.orig)
        yi += len(edit.closing)
    if block is not None:
        _block(out, x0, y0, block)
    return "".join(out)


def _block(out: list[str], x0: int, y0: int, edits: list[Edit]) -> None:
    out.append(
        f'<tr><td colspan="2" class="diff-lineno" id="mw-diff-left-l{x0}">Line {_number(x0)}:</td>\n'
        f'<td colspan="2" class="diff-lineno">Line {_number(y0)}:</td></tr>\n'
    )
    for edit in edits:
        if edit.kind == "copy":
            for line in edit.orig:
                text = _escape(line)
                out.append(
                    "<tr>"
                    + _cell("", "diff-context diff-side-deleted", text)
                    + _cell("", "diff-context diff-side-added", text)
                    + "</tr>\n"
                )
        elif edit.kind == "add":
            for line in edit.closing:
                ins = f'<ins class="diffchange">{_element_text(line)}</ins>'
                out.append("<tr>" + _empty("deleted") + _added(ins) + "</tr>\n")
        elif edit.kind == "delete":
            for line in edit.orig:
                gone = f'<del class="diffchange">{_element_text(line)}</del>'
                out.append("<tr>" + _deleted(gone) + _empty("added") + "</tr>\n")
        else:
            old, new = word_diff(edit.orig, edit.closing)
            for k in range(max(len(old), len(new))):
                left = _deleted(old[k]) if k < len(old) else _empty("deleted")
                right = _added(new[k]) if k < len(new) else _empty("added")
                out.append("<tr>" + left + right + "</tr>\n")

"""Full-text search over the latest revision of every page: one interface, two engines.

SQLite keeps an FTS5 virtual table `searchindex(si_title, si_text)` whose rowid is the page id;
PostgreSQL keeps a `searchindex` table with `tsvector` columns generated from the same two texts
and GIN indexes on them. Both are filled by `index_page` (called by `changes/` on every save) and
emptied by `unindex_page` (deletion).

SQLite also keeps `searchslim(ss_title, ss_text)`, a contentless FTS5 index without positions
(`detail=column`) whose rowid carries the namespace above the page id (`slim_rowid`): a query whose
terms are single words (nearly all of them) is answered and counted there, one rowid range per
namespace, without reading positions or the page table; about three times faster for two common
words on a 100,000-page wiki. Phrases (quoted, or words joined by `-`, `'`, `.`, `_`) need positions
and use `searchindex`. A contentless table forgets its texts, and removing a row needs them: they
are read back from `searchindex`, the namespace from `searchslim_page` (page id -> namespace as
indexed), which also marks the pages `searchslim` holds.

Queries follow MediaWiki's SQL search backends (SearchSqlite): the query is lower-cased, cut into
terms of the legal search characters (quoted phrases, `-` exclusions, `*` prefixes), every term
must match, results come in page-id order, and the snippets are MediaWiki's `highlightSimple`
over the raw wikitext (two matching lines, 75 characters of context each).
"""

from __future__ import annotations

import heapq
import html
import re
import sqlite3
from dataclasses import dataclass, field

from atrium.core.db import Conn, Row

# SearchEngine::legalSearchChars()
_LEGAL = r"A-Za-z_'.0-9\x80-\U0010ffff\-"
_TERM = re.compile(r"([-+<>~]?)(([" + _LEGAL + r"]+)(\*?)|\"[^\"]*\")")
_WORD = re.compile(r"\w+")
_URL_CHARS = r"A-Za-z0-9_/:.,~%\-+&;#?!=()@\x80-\U0010ffff"
_PROTOCOLS = "http|https|ftp|mailto|news|gopher"

CONTEXT_LINES = 2
CONTEXT_CHARS = 75

SQLITE_DDL = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS searchindex USING fts5("
    "si_title, si_text, tokenize = 'unicode61 remove_diacritics 2')",
)
SQLITE_SLIM_DDL = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS searchslim USING fts5("
    "ss_title, ss_text, content = '', detail = column,"
    " tokenize = 'unicode61 remove_diacritics 2')",
    "CREATE TABLE IF NOT EXISTS searchslim_page ("
    " ssp_page INTEGER PRIMARY KEY, ssp_namespace INTEGER NOT NULL)",
)
POSTGRES_DDL = (
    "CREATE TABLE IF NOT EXISTS searchindex ("
    " si_page integer PRIMARY KEY,"
    " si_title text NOT NULL,"
    " si_text text NOT NULL,"
    " si_title_vector tsvector GENERATED ALWAYS AS (to_tsvector('simple', si_title)) STORED,"
    " si_text_vector tsvector GENERATED ALWAYS AS (to_tsvector('simple', si_text)) STORED)",
    "CREATE INDEX IF NOT EXISTS si_title_vector ON searchindex USING gin (si_title_vector)",
    "CREATE INDEX IF NOT EXISTS si_text_vector ON searchindex USING gin (si_text_vector)",
)


def normalized_title(dbkey: str) -> str:
    """SearchUpdate::getNormalizedTitle: the title as indexed (lower-case, search characters)."""
    text = re.sub(r"[^" + _LEGAL + r"&#;]+", " ", dbkey.replace("_", " ")).lower()
    return re.sub(r"\s+", " ", text).strip()


def normalized_text(text: str) -> str:
    """SearchUpdate::updateText, the parts that matter to a word index: markup and URLs out."""
    text = re.sub(r"</?\s*[A-Za-z][^>]*?>", " ", f" {text} ".lower())
    text = re.sub(r"(^|[^\[])(" + _PROTOCOLS + r"):[" + _URL_CHARS + r"]+", r"\1 ", text)
    text = re.sub(r"''+", " ", text)
    return re.sub(r"[^" + _LEGAL + r"&#;]+", " ", text)


PAGE_ID_BITS = 40


def slim_rowid(ns: int, page_id: int) -> int:
    """A page's rowid in `searchslim`: ordered by namespace, then page id, so that a namespace is
    a rowid range FTS5 seeks to."""
    return (ns << PAGE_ID_BITS) | page_id


def _namespace_range(ns: int) -> tuple[int, int]:
    low = ns << PAGE_ID_BITS
    return low, low + (1 << PAGE_ID_BITS) - 1


def _slim_insert(conn: Conn, page_id: int, ns: int, title: str, body: str) -> None:
    conn.execute(
        "INSERT INTO searchslim (rowid, ss_title, ss_text) VALUES (:id, :title, :text)",
        {"id": slim_rowid(ns, page_id), "title": title, "text": body},
    )
    conn.execute(
        "INSERT OR REPLACE INTO searchslim_page (ssp_page, ssp_namespace) VALUES (:id, :ns)",
        {"id": page_id, "ns": ns},
    )


def _slim_remove(conn: Conn, page_id: int) -> None:
    """Take a page out of `searchslim` with the values it was indexed with (FTS5 'delete')."""
    held = conn.one(
        "SELECT ssp_namespace FROM searchslim_page WHERE ssp_page = :id", {"id": page_id}
    )
    indexed = conn.one(
        "SELECT si_title, si_text FROM searchindex WHERE rowid = :id", {"id": page_id}
    )
    if held is None or indexed is None:
        return
    conn.execute(
        "INSERT INTO searchslim (searchslim, rowid, ss_title, ss_text)"
        " VALUES ('delete', :id, :title, :text)",
        {
            "id": slim_rowid(int(held["ssp_namespace"]), page_id),
            "title": indexed["si_title"],
            "text": indexed["si_text"],
        },
    )
    conn.execute("DELETE FROM searchslim_page WHERE ssp_page = :id", {"id": page_id})


def _page_namespace(conn: Conn, page_id: int) -> int:
    ns = conn.scalar("SELECT page_namespace FROM page WHERE page_id = :id", {"id": page_id})
    return int(ns or 0)


def index_page(conn: Conn, page_id: int, dbkey: str, text: str) -> None:
    """Index the page's current text; its page row (namespace) is written first."""
    title, body = normalized_title(dbkey), normalized_text(text)
    if conn.is_sqlite:
        _slim_remove(conn, page_id)
        conn.execute("DELETE FROM searchindex WHERE rowid = :id", {"id": page_id})
        conn.execute(
            "INSERT INTO searchindex (rowid, si_title, si_text) VALUES (:id, :title, :text)",
            {"id": page_id, "title": title, "text": body},
        )
        _slim_insert(conn, page_id, _page_namespace(conn, page_id), title, body)
    else:
        conn.execute(
            "INSERT INTO searchindex (si_page, si_title, si_text) VALUES (%(id)s, %(title)s, %(text)s)"
            " ON CONFLICT (si_page) DO UPDATE SET si_title = EXCLUDED.si_title,"
            " si_text = EXCLUDED.si_text",
            {"id": page_id, "title": title, "text": body},
        )


def retitle_page(conn: Conn, page_id: int, dbkey: str) -> None:
    """A move: the same text under a new title (the page row already has the new namespace)."""
    title = normalized_title(dbkey)
    if conn.is_sqlite:
        _slim_remove(conn, page_id)
        conn.execute(
            "UPDATE searchindex SET si_title = :title WHERE rowid = :id",
            {"id": page_id, "title": title},
        )
        body = conn.scalar("SELECT si_text FROM searchindex WHERE rowid = :id", {"id": page_id})
        if body is not None:
            _slim_insert(conn, page_id, _page_namespace(conn, page_id), title, str(body))
    else:
        conn.execute(
            "UPDATE searchindex SET si_title = %(title)s WHERE si_page = %(id)s",
            {"id": page_id, "title": title},
        )


def unindex_page(conn: Conn, page_id: int) -> None:
    if conn.is_sqlite:
        _slim_remove(conn, page_id)
        conn.execute("DELETE FROM searchindex WHERE rowid = :id", {"id": page_id})
    else:
        conn.execute("DELETE FROM searchindex WHERE si_page = %(id)s", {"id": page_id})


@dataclass
class ParsedQuery:
    """The terms of a query: what must match, what must not, and the highlight patterns."""

    required: list[tuple[str, bool, bool]] = field(default_factory=list)  # (text, phrase, prefix)
    excluded: list[str] = field(default_factory=list)
    highlight: list[str] = field(default_factory=list)  # regular expressions, as MediaWiki's


def parse_query(query: str) -> ParsedQuery:
    filtered = re.sub(r"[^" + _LEGAL + r"\"*+<>~ ]", " ", query.lower()).strip()
    parsed = ParsedQuery()
    for match in _TERM.finditer(filtered):
        modifier, term, unquoted, wildcard = (
            match.group(1),
            match.group(2),
            match.group(3),
            match.group(4),
        )
        phrase = not unquoted
        text = unquoted if unquoted else term.replace('"', "")
        if not _WORD.search(text):
            continue
        if modifier == "-":
            parsed.excluded.append(text)
            continue
        parsed.required.append((text, phrase, bool(wildcard)))
        pattern = re.escape(text)
        parsed.highlight.append(rf"\b{pattern}" if wildcard else rf"\b{pattern}\b")
    return parsed


def _fts5_match(parsed: ParsedQuery, column: str) -> str:
    def quote(text: str) -> str:
        return '"' + " ".join(_WORD.findall(text)).replace('"', "") + '"'

    parts = [quote(t) + ("*" if prefix else "") for t, _phrase, prefix in parsed.required]
    expression = " AND ".join(parts)
    for text in parsed.excluded:
        expression += " NOT " + quote(text)
    return f"{column} : ({expression})"


def _tsquery(parsed: ParsedQuery) -> str:
    groups: list[str] = []
    for text, phrase, prefix in parsed.required:
        words = _WORD.findall(text)
        if prefix and words:
            words[-1] += ":*"
        groups.append("(" + (" <-> " if phrase else " & ").join(words) + ")")
    for text in parsed.excluded:
        words = _WORD.findall(text)
        if words:
            groups.append("!(" + " <-> ".join(words) + ")")
    return " & ".join(groups)


@dataclass
class Hits:
    rows: list[Row]  # page_id, page_namespace, page_title, page_len, page_latest
    total: int


def search(
    conn: Conn,
    query: str,
    namespaces: list[int],
    *,
    titles_only: bool,
    limit: int,
    offset: int,
    count: bool = True,
) -> Hits:
    parsed = parse_query(query)
    if not parsed.required or not namespaces:
        return Hits([], 0)
    columns = "page_id, page_namespace, page_title, page_len, page_latest, page_is_redirect"
    if conn.is_sqlite and _single_words(parsed):
        try:
            return _search_slim(conn, parsed, namespaces, titles_only, limit, offset, count)
        except sqlite3.OperationalError as error:
            # A word FTS5's tokenizer splits although `\w+` does not is a phrase to it.
            if "phrase" not in str(error):
                raise
    ns_list = ",".join(str(int(n)) for n in namespaces)
    if conn.is_sqlite:
        match = _fts5_match(parsed, "si_title" if titles_only else "si_text")
        # CROSS JOIN keeps SQLite on the full-text index first: a plan starting from page (by
        # namespace) probes the index once per page, seconds on a 100,000-page wiki.
        where = (
            f"FROM searchindex CROSS JOIN page ON page_id = searchindex.rowid "
            f"WHERE searchindex MATCH :match AND page_namespace IN ({ns_list})"
        )
        params: dict[str, object] = {"match": match, "limit": limit, "offset": offset}
        sql = f"SELECT {columns} {where} ORDER BY searchindex.rowid LIMIT :limit OFFSET :offset"
        count_sql = f"SELECT COUNT(*) AS c {where}"
    else:
        vector = "si_title_vector" if titles_only else "si_text_vector"
        where = (
            f"FROM searchindex JOIN page ON page_id = si_page "
            f"WHERE {vector} @@ to_tsquery('simple', %(match)s) AND page_namespace IN ({ns_list})"
        )
        params = {"match": _tsquery(parsed), "limit": limit, "offset": offset}
        sql = f"SELECT {columns} {where} ORDER BY si_page LIMIT %(limit)s OFFSET %(offset)s"
        count_sql = f"SELECT COUNT(*) AS c {where}"
    rows = conn.all(sql, params)
    total = int(conn.scalar(count_sql, params) or 0) if count else len(rows)
    return Hits(rows, total)


def _single_words(parsed: ParsedQuery) -> bool:
    """Whether no term is a phrase to FTS5 (one word each, `_` splitting words there)."""
    terms = [text for text, _phrase, _prefix in parsed.required] + parsed.excluded
    for text in terms:
        words = _WORD.findall(text)
        if len(words) != 1 or "_" in words[0]:
            return False
    return True


def _search_slim(
    conn: Conn,
    parsed: ParsedQuery,
    namespaces: list[int],
    titles_only: bool,
    limit: int,
    offset: int,
    count: bool,
) -> Hits:
    """The query on `searchslim`, one rowid range per namespace; the page table is read for the
    hits shown only."""
    match = _fts5_match(parsed, "ss_title" if titles_only else "ss_text")
    ranges = [_namespace_range(int(ns)) for ns in sorted(set(namespaces))]
    hits_sql = (
        "SELECT rowid FROM searchslim WHERE searchslim MATCH :match"
        " AND rowid BETWEEN :low AND :high ORDER BY rowid LIMIT :limit OFFSET :offset"
    )
    mask = (1 << PAGE_ID_BITS) - 1
    if len(ranges) == 1:
        low, high = ranges[0]
        params = {"match": match, "low": low, "high": high, "limit": limit, "offset": offset}
        ids = [int(rowid) & mask for rowid in conn.scalars(hits_sql, params)]
    else:
        # Page-id order across namespaces: the first offset + limit of each, merged.
        firsts = [
            [
                int(rowid) & mask
                for rowid in conn.scalars(
                    hits_sql,
                    {
                        "match": match,
                        "low": low,
                        "high": high,
                        "limit": offset + limit,
                        "offset": 0,
                    },
                )
            ]
            for low, high in ranges
        ]
        ids = list(heapq.merge(*firsts))[offset : offset + limit]
    rows = _pages(conn, ids)
    if not count:
        return Hits(rows, len(rows))
    total = 0
    for low, high in ranges:
        total += int(
            conn.scalar(
                "SELECT COUNT(*) FROM searchslim WHERE searchslim MATCH :match"
                " AND rowid BETWEEN :low AND :high",
                {"match": match, "low": low, "high": high},
            )
            or 0
        )
    return Hits(rows, total)


def _pages(conn: Conn, ids: list[int]) -> list[Row]:
    """The page rows of the hits, in the hits' order."""
    if not ids:
        return []
    found = conn.all(
        "SELECT page_id, page_namespace, page_title, page_len, page_latest, page_is_redirect"
        f" FROM page WHERE page_id IN ({','.join(str(i) for i in ids)})"
    )
    by_id = {int(r["page_id"]): r for r in found}
    return [by_id[i] for i in ids if i in by_id]


def _truncate(text: str, length: int) -> str:
    """Language::truncateForVisual with a `...` ellipsis not counted in the length."""
    if len(text) <= abs(length):
        return text
    if length > 0:
        cut = text[:length].rstrip() + "..."
    else:
        cut = "..." + text[len(text) + length :].lstrip()
    return cut if len(cut) < len(text) else text


def highlight(text: str, patterns: list[str]) -> str:
    """SearchHighlighter::highlightSimple: up to two matching lines, escaped, terms in spans."""
    if not patterns:
        return ""
    terms = "|".join(patterns)
    line_pattern = re.compile(rf"(.*)({terms})(.{{0,{CONTEXT_CHARS + 1}}})", re.I)
    mark = re.compile("(" + terms + ")", re.I)
    remaining = CONTEXT_LINES
    extract = ""
    for line in text.split("\n"):
        if remaining == 0:
            break
        # The term alone first: `(.*)` before it is quadratic on a long line without it.
        if mark.search(line) is None:
            continue
        match = line_pattern.search(line)
        if match is None:
            continue
        remaining -= 1
        pre = _truncate(match.group(1), -CONTEXT_CHARS)
        post = _truncate(match.group(3), CONTEXT_CHARS)
        shown = html.escape(pre + match.group(2) + post, quote=True).replace("&#x27;", "&#039;")
        extract += mark.sub(r"<span class='searchmatch'>\1</span>", shown) + "\n"
    return extract


_PHP_WORD = re.compile(r"[A-Za-z'][A-Za-z'-]*")


def word_count(text: str) -> int:
    """PHP's str_word_count, which MediaWiki's search results report: runs of letters, `'`, `-`."""
    return len(_PHP_WORD.findall(text))

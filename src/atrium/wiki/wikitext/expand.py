"""Template expansion: `{{Template|a|name=b}}` replaced by the template's text with its parameters
(`{{{1}}}`, `{{{name|default}}}`) substituted, `<noinclude>`/`<includeonly>`/`<onlyinclude>` honoured,
a few magic words and the `#if`, `#ifeq`, `#switch`, `#expr` and `#ifexpr` parser functions.

Innermost braces are expanded first, which gives MediaWiki's result for the usual cases (arguments
are expanded before they are passed). `<nowiki>`, `<pre>` and comments are left alone. Recursion is
cut at MediaWiki's limit of 40 levels and a template that includes itself is shown as a loop error.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import quote

from atrium.wiki.titles import NS_TEMPLATE, InvalidTitle, TitleParser
from atrium.wiki.wikitext.expr import expr_function, ifexpr_function

MAX_DEPTH = 40
TemplateLoader = Callable[[int, str], str | None]

_PROTECT = re.compile(r"<nowiki>.*?</nowiki>|<pre>.*?</pre>|<!--.*?-->", re.S | re.I)
_PARAM = re.compile(r"\{\{\{([^{}]*)\}\}\}")
_CALL = re.compile(r"\{\{(?!\{)([^{}]*)\}\}")
_ONLYINCLUDE = re.compile(r"<onlyinclude>(.*?)</onlyinclude>", re.S)
_NOINCLUDE = re.compile(r"<noinclude>.*?(?:</noinclude>|$)", re.S)
_INCLUDEONLY_TAGS = re.compile(r"</?includeonly>")
_INCLUDEONLY = re.compile(r"<includeonly>.*?(?:</includeonly>|$)", re.S)
_NOINCLUDE_TAGS = re.compile(r"</?noinclude>")
_ONLYINCLUDE_TAGS = re.compile(r"</?onlyinclude>")
# Private-use characters stand for text that must come out unchanged.
_MARK = "\ue000"
_MARK_RE = re.compile(_MARK + r"(\d+)" + _MARK)


def for_view(text: str) -> str:
    """The text of a page as shown on its own page (includeonly parts dropped)."""
    text = _INCLUDEONLY.sub("", text)
    return _ONLYINCLUDE_TAGS.sub("", _NOINCLUDE_TAGS.sub("", text))


def for_inclusion(text: str) -> str:
    """The text a transclusion brings in."""
    parts = _ONLYINCLUDE.findall(text)
    if parts:
        return "".join(parts)
    return _INCLUDEONLY_TAGS.sub("", _NOINCLUDE.sub("", text))


def split_args(inner: str) -> list[str]:
    """Split on `|` outside `[[…]]` (the braces are already expanded)."""
    parts: list[str] = []
    depth = 0
    start = 0
    i = 0
    while i < len(inner):
        if inner.startswith("[[", i):
            depth += 1
            i += 2
            continue
        if inner.startswith("]]", i) and depth:
            depth -= 1
            i += 2
            continue
        if inner[i] == "|" and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
        i += 1
    parts.append(inner[start:])
    return parts


@dataclass
class ExpansionStats:
    """What the parser's limit report tells of one expansion: nodes handled (the root, each
    template, parser function and argument), the size of what the page's own templates produced
    and of the arguments substituted, the deepest frame, and the time spent in each template."""

    visited: int = 1
    post_expand: int = 0
    argument_size: int = 0
    highest_depth: int = 1
    total_ms: float = 0.0
    # Seconds the output stays valid: clock words shorten MediaWiki's day (an hour for the time).
    cache_expiry: int = 86400
    templates: dict[str, list[float]] = field(default_factory=dict)  # name -> [ms, count]


class Expander:
    """Expands the templates of one page; `loader(ns, dbkey)` returns a page's text or None."""

    def __init__(
        self,
        parser: TitleParser,
        loader: TemplateLoader,
        page_title: tuple[int, str],
        sitename: str = "Atrium Wiki",
        variables: Mapping[str, str] | None = None,
    ) -> None:
        self.parser = parser
        # Per-revision magic words (REVISIONID, REVISIONUSER, …) of the text being parsed.
        self.variables = dict(variables or {})
        self.loader = loader
        self.page_ns, self.page_dbkey = page_title
        self.sitename = sitename
        self.used: list[tuple[int, str]] = []  # templates transcluded, in order of first use
        self._protected: list[str] = []
        self._cache: dict[tuple[int, str], str | None] = {}
        # Set when the text used a word that reads the clock, so its expansion must not be
        # reused later.
        self.volatile = False
        # `{{DEFAULTSORT:key}}` met while expanding (the page's or a template's; the last one
        # wins unless it says `noreplace`): the sort key prefix of its categories.
        self.defaultsort: str | None = None
        self.stats = ExpansionStats()

    def expand(self, text: str) -> str:
        """Expand a page's text for viewing."""
        started = time.perf_counter()
        text = _PROTECT.sub(self._protect, for_view(text))
        text = self._expand(text, None, 0, ())
        text = self.restore(text)
        self.stats.total_ms += (time.perf_counter() - started) * 1000
        return text

    def restore(self, text: str) -> str:
        for _ in range(3):
            if _MARK not in text:
                break
            text = _MARK_RE.sub(lambda m: self._protected[int(m.group(1))], text)
        return text

    def _protect(self, match: re.Match[str]) -> str:
        self._protected.append(match.group(0))
        return f"{_MARK}{len(self._protected) - 1}{_MARK}"

    def _literal(self, text: str) -> str:
        self._protected.append(text)
        return f"{_MARK}{len(self._protected) - 1}{_MARK}"

    def _expand(
        self,
        text: str,
        args: dict[str, str] | None,
        depth: int,
        stack: tuple[tuple[int, str], ...],
    ) -> str:
        if "{{" not in text:
            return text
        for _ in range(200):
            changed = False
            new = _PARAM.sub(lambda m: self._param(m, args, depth), text)
            if new != text:
                text, changed = new, True
            new = _CALL.sub(lambda m: self._call(m, depth, stack), text)
            if new != text:
                text, changed = new, True
            if not changed or "{{" not in text:
                break
        return text

    def _param(self, match: re.Match[str], args: dict[str, str] | None, depth: int) -> str:
        self._visit(depth)
        name, sep, default = match.group(1).partition("|")
        key = name.strip()
        if args is not None and key in args:
            self.stats.argument_size += len(args[key])
            return args[key]
        if sep:
            return default
        return self._literal(match.group(0))

    def _visit(self, depth: int) -> None:
        """A template or argument node handled in the frame `depth` templates deep: the root's
        frame is at depth 1 of the limit report and the node one deeper."""
        self.stats.visited += 1
        if depth + 2 > self.stats.highest_depth:
            self.stats.highest_depth = depth + 2

    def _call(self, match: re.Match[str], depth: int, stack: tuple[tuple[int, str], ...]) -> str:
        self._visit(depth)
        result = self._call_inner(match, depth, stack)
        if depth == 0:
            self.stats.post_expand += len(self.restore(result))
        return result

    def _call_inner(
        self, match: re.Match[str], depth: int, stack: tuple[tuple[int, str], ...]
    ) -> str:
        inner = match.group(1)
        parts = split_args(inner)
        head = parts[0].strip()
        if head == "!":
            return "|"
        if head.startswith("#"):
            return self._function(head, parts[1:], match.group(0))
        magic = self._magic(head, parts[1:])
        if magic is not None:
            return magic
        try:
            title = self.parser.parse(head.removeprefix("msgnw:"), NS_TEMPLATE)
        except InvalidTitle:
            return self._literal(match.group(0))
        if title.interwiki or not title.dbkey:
            return self._literal(match.group(0))
        key = (title.ns, title.dbkey)
        if key not in self.used:
            self.used.append(key)
        shown = self.parser.prefixed_text(*key)
        if key in stack:
            return self._literal(f'<span class="error">Template loop detected: [[{shown}]]</span>')
        if depth >= MAX_DEPTH:
            return self._literal(
                '<span class="error">Template recursion depth limit exceeded (40)</span>'
            )
        if key not in self._cache:
            self._cache[key] = self.loader(*key)
        body = self._cache[key]
        if body is None:
            return self._literal(f"[[:{shown}]]")
        call_args: dict[str, str] = {}
        position = 1
        for part in parts[1:]:
            name, eq, value = part.partition("=")
            if eq and "[[" not in name:
                call_args[name.strip()] = value.strip()
            else:
                call_args[str(position)] = part
                position += 1
        started = time.perf_counter()
        body = _PROTECT.sub(self._protect, for_inclusion(body))
        result = self._expand(body, call_args, depth + 1, (*stack, key))
        timing = self.stats.templates.setdefault(shown, [0.0, 0])
        timing[0] += (time.perf_counter() - started) * 1000
        timing[1] += 1
        return result

    def evaluate(self, inner: str) -> str | None:
        """`{{inner}}` when it is a magic word or a parser function (its arguments already
        expanded), as `subst:` evaluates it; None when it is neither."""
        parts = split_args(inner)
        head = parts[0].strip()
        if head.startswith("#"):
            original = "{{" + inner + "}}"
            result = self._function(head, parts[1:], original)
            restored = self.restore(result)
            return None if restored == original else restored
        return self._magic(head, parts[1:])

    def _function(self, head: str, rest: list[str], original: str) -> str:
        name, _, first = head.partition(":")
        name = name.lower()
        if name == "#if":
            then = rest[0] if rest else ""
            other = rest[1] if len(rest) > 1 else ""
            return (then if first.strip() else other).strip()
        if name == "#ifeq":
            left = first.strip()
            right = rest[0].strip() if rest else ""
            then = rest[1] if len(rest) > 1 else ""
            other = rest[2] if len(rest) > 2 else ""
            return (then if left == right else other).strip()
        if name == "#expr":
            return self._literal(expr_function(first))
        if name == "#ifexpr":
            then = rest[0] if rest else ""
            other = rest[1] if len(rest) > 1 else ""
            result = ifexpr_function(first, then.strip(), other.strip())
            return self._literal(result) if result.startswith("<strong") else result
        if name == "#switch":
            value = first.strip()
            default = ""
            fall = False
            for case in rest:
                key, eq, result = case.partition("=")
                if not eq:
                    if key.strip() == value:
                        fall = True
                    default = key
                    continue
                if fall or key.strip() == value:
                    return result.strip()
                if key.strip() == "#default":
                    default = result
            return default.strip()
        return self._literal(original)

    def _magic(self, head: str, rest: list[str] | None = None) -> str | None:
        word, colon, arg = head.partition(":")
        upper = word.strip().upper()
        text = self.parser.prefixed_text(self.page_ns, self.page_dbkey)
        name = text.split(":", 1)[1] if self.page_ns != 0 and ":" in text else text
        now = datetime.now(UTC)
        simple = {
            "PAGENAME": name,
            "FULLPAGENAME": text,
            "NAMESPACE": self.parser.namespaces.name(self.page_ns),
            "NAMESPACENUMBER": str(self.page_ns),
            "SITENAME": self.sitename,
            "CURRENTYEAR": f"{now.year}",
            "CURRENTMONTH": f"{now.month:02d}",
            "CURRENTDAY": str(now.day),
            "CURRENTTIMESTAMP": now.strftime("%Y%m%d%H%M%S"),
        }
        for plain in ("PAGENAME", "FULLPAGENAME"):
            # wfEscapeWikiText(wfUrlencode()) of the name: spaces as underscores, URL-encoded.
            simple[plain + "E"] = quote(simple[plain].replace(" ", "_"), safe=";:@$!*(),/~")
        simple.update(self.variables)
        if not colon and upper in simple:
            if upper.startswith("CURRENT"):
                self.volatile = True
                expiry = 3600 if upper == "CURRENTTIMESTAMP" else 86400
                self.stats.cache_expiry = min(self.stats.cache_expiry, expiry)
            return simple[upper]
        if colon and upper == "PLURAL":
            number = arg.strip().replace(",", "")
            choices = [f.strip() for f in rest or []]
            if not choices:
                return ""
            try:
                one = float(number) == 1
            except ValueError:
                one = False
            return choices[0] if one or len(choices) == 1 else choices[1]
        if colon and upper in {"NS", "NSE"}:
            value = arg.strip()
            index = int(value) if value.lstrip("-").isdigit() else None
            if index is None:
                index = self.parser.namespaces.lookup(value.replace("_", " "))
            if index is None or index not in self.parser.namespaces.ids():
                return ""
            name = self.parser.namespaces.name(index)
            return quote(name.replace(" ", "_"), safe=";:@$!*(),/~") if upper == "NSE" else name
        if colon and upper in {"LC", "UC", "LCFIRST", "UCFIRST"}:
            value = arg.strip()
            if upper == "LC":
                return value.lower()
            if upper == "UC":
                return value.upper()
            if upper == "LCFIRST":
                return value[:1].lower() + value[1:]
            return value[:1].upper() + value[1:]
        if colon and upper in {"DEFAULTSORT", "DEFAULTSORTKEY", "DEFAULTCATEGORYSORT"}:
            flags = {f.strip().lower() for f in rest or []}
            if self.defaultsort is None or "noreplace" not in flags:
                self.defaultsort = arg.strip()
            return ""
        if colon and upper == "DISPLAYTITLE":
            return ""
        return None


def expand_text(
    text: str,
    parser: TitleParser,
    loader: TemplateLoader,
    page_title: tuple[int, str],
) -> tuple[str, list[tuple[int, str]]]:
    """The expanded text and the templates it used."""
    expander = Expander(parser, loader, page_title)
    return expander.expand(text), expander.used

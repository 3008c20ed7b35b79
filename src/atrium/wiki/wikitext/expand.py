"""Template expansion: `{{Template|a|name=b}}` replaced by the template's text with its parameters
(`{{{1}}}`, `{{{name|default}}}`) substituted, `<noinclude>`/`<includeonly>`/`<onlyinclude>` honoured,
a few magic words and the `#if`, `#ifeq`, `#switch`, `#expr` and `#ifexpr` parser functions.

Innermost braces are expanded first, which gives MediaWiki's result for the usual cases (arguments
are expanded before they are passed). `<nowiki>`, `<pre>` and comments are left alone. A template
that includes itself is shown as a loop error.

MediaWiki 1.39's preprocessor limits bound the work one text can ask for: the visited node count
($wgMaxPPNodeCount), the template depth ($wgMaxTemplateDepth) and expansion depth
($wgMaxPPExpandDepth), the post-expand include size and the template argument size (both
$wgMaxArticleSize). Past a limit the node is replaced by MediaWiki's error or warning comment and
the page earns the limit's tracking category. A wall-clock budget on top (MediaWiki leaves that to
PHP's max_execution_time) stops what stays under the counts but is still slow.
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

MAX_DEPTH = 100
MAX_NODE_COUNT = 1_000_000
MAX_EXPAND_DEPTH = 100
MAX_INCLUDE_SIZE = 2 * 1024 * 1024
# Seconds one expansion may run; set from ATRIUM_RENDER_TIMEOUT when the process starts.
_time_budget = 10.0
# The clock is read every this many nodes: often enough to stop within milliseconds.
_CLOCK_EVERY = 256
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

NODE_COUNT_ERROR = '<span class="error">Node-count limit exceeded</span>'
EXPAND_DEPTH_ERROR = '<span class="error">Expansion depth limit exceeded</span>'
TIME_ERROR = '<span class="error">Expansion time limit exceeded</span>'
TEMPLATE_OMITTED = "<!-- WARNING: template omitted, post-expand include size too large -->"
ARGUMENT_OMITTED = "<!-- WARNING: argument omitted, expansion size too large -->"
# The tracking category (its message key) each exceeded limit earns.
NODE_COUNT_CATEGORY = "node-count-exceeded-category"
EXPAND_DEPTH_CATEGORY = "expansion-depth-exceeded-category"
INCLUSION_CATEGORY = "post-expand-template-inclusion-category"
ARGUMENT_CATEGORY = "post-expand-template-argument-category"


# The words `_magic` answers, with and without an argument: anything else is a template.
_PLAIN_WORDS = frozenset(
    {
        "PAGENAME",
        "FULLPAGENAME",
        "PAGENAMEE",
        "FULLPAGENAMEE",
        "NAMESPACE",
        "NAMESPACENUMBER",
        "SITENAME",
        "CURRENTYEAR",
        "CURRENTMONTH",
        "CURRENTDAY",
        "CURRENTTIMESTAMP",
    }
)
_COLON_WORDS = frozenset(
    {
        "PLURAL",
        "NS",
        "NSE",
        "LC",
        "UC",
        "LCFIRST",
        "UCFIRST",
        "DEFAULTSORT",
        "DEFAULTSORTKEY",
        "DEFAULTCATEGORYSORT",
        "DISPLAYTITLE",
    }
)


def set_time_budget(seconds: float) -> None:
    """The wall-clock budget of one expansion (ATRIUM_RENDER_TIMEOUT)."""
    global _time_budget
    _time_budget = max(0.001, seconds)


def time_budget() -> float:
    return _time_budget


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
    post_expand: int = 0  # template output at every depth
    argument_size: int = 0
    highest_depth: int = 1
    total_ms: float = 0.0
    # Seconds the output stays valid: clock words shorten MediaWiki's day (an hour for the time).
    cache_expiry: int = 86400
    templates: dict[str, list[float]] = field(default_factory=dict)  # name -> [ms, count]
    # Message keys of the tracking categories of the limits exceeded, in order of first excess.
    exceeded: list[str] = field(default_factory=list)


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
        self._deadline = time.perf_counter() + _time_budget
        self._timed_out = False
        # Text of each template page as transcluded, protected sections held once.
        self._bodies: dict[tuple[int, str], str] = {}
        self._targets: dict[str, tuple[tuple[int, str], str] | None] = {}
        self._used_set: set[tuple[int, str]] = set()

    def _exceed(self, category: str) -> None:
        if category not in self.stats.exceeded:
            self.stats.exceeded.append(category)

    def expand(self, text: str) -> str:
        """Expand a page's text for viewing."""
        started = time.perf_counter()
        self._deadline = started + _time_budget
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
        refusal = self._visit(depth)
        if refusal is not None:
            return refusal
        name, sep, default = match.group(1).partition("|")
        key = name.strip()
        if args is not None and key in args:
            value = args[key]
            if self.stats.argument_size + len(value) > MAX_INCLUDE_SIZE:
                self._exceed(ARGUMENT_CATEGORY)
                return self._literal(ARGUMENT_OMITTED)
            self.stats.argument_size += len(value)
            return value
        if sep:
            return default
        return self._literal(match.group(0))

    def _visit(self, depth: int) -> str | None:
        """A template or argument node handled in the frame `depth` templates deep: the root's
        frame is at depth 1 of the limit report and the node one deeper. Returns the error
        that replaces the node when a limit is exceeded, as PPFrame::expand does."""
        stats = self.stats
        stats.visited += 1
        if stats.visited > MAX_NODE_COUNT:
            self._exceed(NODE_COUNT_CATEGORY)
            return self._literal(NODE_COUNT_ERROR)
        if depth + 2 > MAX_EXPAND_DEPTH:
            self._exceed(EXPAND_DEPTH_CATEGORY)
            return self._literal(EXPAND_DEPTH_ERROR)
        if depth + 2 > stats.highest_depth:
            stats.highest_depth = depth + 2
        if not self._timed_out and stats.visited % _CLOCK_EVERY == 0:
            self._timed_out = time.perf_counter() > self._deadline
        if self._timed_out:
            return self._literal(TIME_ERROR)
        return None

    @property
    def timed_out(self) -> bool:
        """The wall-clock budget ran out: the expansion is cut and must not be kept."""
        return self._timed_out

    def _call(self, match: re.Match[str], depth: int, stack: tuple[tuple[int, str], ...]) -> str:
        refusal = self._visit(depth)
        if refusal is not None:
            return refusal
        # Once a template has been omitted the page is at its limit: later calls are omitted
        # without being expanded first, or a bomb would still be expanded to its node limit.
        omitting = INCLUSION_CATEGORY in self.stats.exceeded
        result = "" if omitting else self._call_inner(match, depth, stack)
        size = len(self.restore(result)) if _MARK in result else len(result)
        # Counted at every depth, as Parser::braceSubstitution counts it.
        if omitting or self.stats.post_expand + size > MAX_INCLUDE_SIZE:
            self._exceed(INCLUSION_CATEGORY)
            head = split_args(match.group(1))[0].strip()
            target = self._target(head)
            shown = target[1] if target is not None else head.lstrip(":")
            return f"[[:{shown}]]" + self._literal(TEMPLATE_OMITTED)
        self.stats.post_expand += size
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
        target = self._target(head)
        if target is None:
            return self._literal(match.group(0))
        key, shown = target
        if key not in self._used_set:
            self._used_set.add(key)
            self.used.append(key)
        if key in stack:
            return self._literal(f'<span class="error">Template loop detected: [[{shown}]]</span>')
        if depth >= MAX_DEPTH:
            return self._literal(
                f'<span class="error">Template recursion depth limit exceeded ({MAX_DEPTH})</span>'
            )
        body = self._bodies.get(key)
        if body is None:
            if key not in self._cache:
                self._cache[key] = self.loader(*key)
            loaded = self._cache[key]
            if loaded is None:
                return self._literal(f"[[:{shown}]]")
            body = self._bodies[key] = _PROTECT.sub(self._protect, for_inclusion(loaded))
        call_args: dict[str, str] = {}
        position = 1
        for part in parts[1:]:
            name, eq, value = part.partition("=")
            if eq and "[[" not in name:
                call_args[name.strip()] = value.strip()
            else:
                call_args[str(position)] = part
                position += 1
        # Expanding the template's text is a node of its own, as PPFrame::expand counts it.
        refusal = self._visit(depth + 1)
        if refusal is not None:
            return refusal
        started = time.perf_counter()
        result = self._expand(body, call_args, depth + 1, (*stack, key))
        timing = self.stats.templates.setdefault(shown, [0.0, 0])
        timing[0] += (time.perf_counter() - started) * 1000
        timing[1] += 1
        return result

    def _target(self, head: str) -> tuple[tuple[int, str], str] | None:
        """The template a call names and its shown title, parsed once per expansion (a call
        repeated a million times must not parse its title a million times)."""
        if head in self._targets:
            return self._targets[head]
        found: tuple[tuple[int, str], str] | None = None
        try:
            title = self.parser.parse(head.removeprefix("msgnw:"), NS_TEMPLATE)
        except InvalidTitle:
            title = None
        if title is not None and not title.interwiki and title.dbkey:
            found = (title.ns, title.dbkey), self.parser.prefixed_text(title.ns, title.dbkey)
        self._targets[head] = found
        return found

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
        if (upper not in _COLON_WORDS if colon else upper not in _PLAIN_WORDS) and (
            colon or upper not in self.variables
        ):
            return None
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

"""Template expansion: `{{Template|a|name=b}}` replaced by the template's text with its parameters
(`{{{1}}}`, `{{{name|default}}}`) substituted, `<noinclude>`/`<includeonly>`/`<onlyinclude>` honoured,
a few magic words and the `#if`, `#ifeq`, `#switch`, `#expr` and `#ifexpr` parser functions.

The text is read once into MediaWiki's preprocessor tree (`preprocess`) and walked as
PPFrame::expand walks it: a template's arguments are expanded in the caller's frame when the template
first uses them (one never used is never expanded), parser functions read only the arguments their
answer needs. `<nowiki>`, `<pre>` and comments are left alone. A template that includes itself is
shown as a loop error. Unlike MediaWiki, a call without arguments repeated in one frame is expanded
each time: the node-count limit must stop a tree of such calls.

MediaWiki 1.39's preprocessor limits bound the work one text can ask for: the visited node count
($wgMaxPPNodeCount), the template depth ($wgMaxTemplateDepth) and expansion depth
($wgMaxPPExpandDepth), the post-expand include size and the template argument size (both
$wgMaxArticleSize). Past a limit the node is replaced by MediaWiki's error or warning comment and
the page earns the limit's tracking category. A wall-clock budget on top (MediaWiki leaves that to
PHP's max_execution_time) stops what stays under the counts but is still slow.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast
from urllib.parse import quote

from atrium.wiki.titles import NS_TEMPLATE, InvalidTitle, TitleParser
from atrium.wiki.wikitext.escaping import escape_wikitext
from atrium.wiki.wikitext.expr import ExprError, evaluate, expr_function
from atrium.wiki.wikitext.preprocess import Element, Node, preprocess, source

MAX_DEPTH = 100
MAX_NODE_COUNT = 1_000_000
MAX_EXPAND_DEPTH = 100
MAX_INCLUDE_SIZE = 2 * 1024 * 1024
# Seconds one expansion may run; set from ATRIUM_RENDER_TIMEOUT when the process starts.
_time_budget = 10.0
# The clock is read every this many nodes: often enough to stop within milliseconds.
_CLOCK_EVERY = 256
TemplateLoader = Callable[[int, str], str | None]
# Nested walks of the tree, whether MediaWiki counts them as expansions or not (an argument's
# default inside another's is walked in place): each takes a few Python frames, and past this
# many the walk stops with the expansion depth error rather than exhaust the stack.
_MAX_NESTING = 150


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
    return _kept(preprocess(text, headings=False))


def for_inclusion(text: str) -> str:
    """The text a transclusion brings in."""
    return _kept(preprocess(text, for_inclusion=True, headings=False))


def _kept(node: Node) -> str:
    """The text of a tree without what the preprocessor ignores (inclusion tags and the parts
    they leave out); comments and extension tags as written."""
    if isinstance(node, str):
        return node
    name = node.name
    if name == "ignore" or name.startswith("@"):
        return ""
    if name in ("comment", "ext"):
        return source(node, drop_comments=False)
    if name in ("template", "tplarg"):
        braces = "{{" if name == "template" else "{{{"
        pieces = (_kept(c) for c in node.children if not isinstance(c, str) and c.name[0] != "@")
        return braces + "|".join(pieces) + braces.replace("{", "}")
    return "".join(_kept(child) for child in node.children)


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
    """What the parser's limit report tells of one expansion: nodes handled (each expansion of a
    tree node: the root, a call's title, its named arguments' names, an argument's value, a
    template's text, an extension tag's parts), the size of what the page's own templates
    produced and of the arguments substituted, the deepest expansion, and the time spent in each
    template."""

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


class _Frame:
    """PPTemplateFrame: the arguments of one template call, each expanded in the caller's frame
    the first time the template asks for it (an argument never asked for is never expanded)."""

    __slots__ = ("args", "depth", "parent", "stack", "values")

    def __init__(
        self,
        parent: _Frame | None,
        args: dict[str, tuple[Element, bool]],
        depth: int,
        stack: tuple[tuple[int, str], ...],
    ) -> None:
        self.parent = parent
        self.args = args  # name -> (value node, trimmed: a named argument's value is)
        self.values: dict[str, str] = {}
        self.depth = depth  # templates deep: the page's own frame is 0
        self.stack = stack  # the templates being expanded, to tell a loop


class _Parts:
    """The arguments of a parser function as the tree holds them: each expanded only when the
    function reads it, as ParserFunctions' `#if`, `#ifeq` and `#switch` read theirs."""

    def __init__(self, expander: Expander, parts: list[Element], frame: _Frame) -> None:
        self.expander = expander
        self.parts = parts
        self.frame = frame
        self.wholes: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self.parts)

    def whole(self, index: int) -> str:
        """The part as written, `name=value` included, expanded."""
        if index not in self.wholes:
            self.wholes[index] = self.expander._node(self.parts[index].children, self.frame)
        return self.wholes[index]

    def named(self, index: int) -> bool:
        return len(self.parts[index].children) == 3  # name, `=`, value

    def name(self, index: int) -> str:
        return self.expander._node(_part_name(self.parts[index]).children, self.frame)

    def value(self, index: int) -> str:
        return self.expander._node(_part_value(self.parts[index]).children, self.frame)


class _Texts:
    """Parser function arguments already expanded (what `subst:` evaluates)."""

    def __init__(self, parts: list[str]) -> None:
        self.parts = parts

    def __len__(self) -> int:
        return len(self.parts)

    def whole(self, index: int) -> str:
        return self.parts[index]

    def named(self, index: int) -> bool:
        return "=" in self.parts[index]

    def name(self, index: int) -> str:
        return self.parts[index].partition("=")[0]

    def value(self, index: int) -> str:
        return self.parts[index].partition("=")[2]


_Args = _Parts | _Texts


# What a call's title names, besides a template (`Expander._kind`).
_PIPE, _FUNCTION, _MAGIC, _NOTHING = object(), object(), object(), object()


def _child(node: Element, name: str) -> Element:
    for child in node.children:
        if isinstance(child, Element) and child.name == name:
            return child
    return Element(name)


def _call_pieces(node: Element) -> tuple[Element, list[Element]]:
    """The title and the parts of a `template` or `tplarg` node, which `preprocess` makes as
    an optional `@lineStart`, the title, then only parts."""
    children = node.children
    skip = 1 if cast(Element, children[0]).name == "@lineStart" else 0
    return cast(Element, children[skip]), cast(list[Element], children[skip + 1 :])


def _part_name(part: Element) -> Element:
    return cast(Element, part.children[0])


def _part_value(part: Element) -> Element:
    return cast(Element, part.children[-1])


@functools.lru_cache(maxsize=256)
def _body_tree(text: str) -> Element:
    """A template's text as transcluded, read once however many pages and calls use it."""
    return preprocess(text, for_inclusion=True, headings=False)


class Expander:
    """Expands the templates of one page; `loader(ns, dbkey)` returns a page's text or None.

    The text is read into MediaWiki's preprocessor tree (`preprocess`) and walked as
    PPFrame::expand walks it: a template's arguments are expanded when the template uses them,
    in the frame of its caller, and the expansion of each node counts against the limits."""

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
        # Each template's text as transcluded (None: no such page), read once per expansion.
        self._trees: dict[tuple[int, str], Element | None] = {}
        self._kinds: dict[str, object] = {}
        # Set when the text used a word that reads the clock, so its expansion must not be
        # reused later.
        self.volatile = False
        # `{{DEFAULTSORT:key}}` met while expanding (the page's or a template's; the last one
        # wins unless it says `noreplace`): the sort key prefix of its categories.
        self.defaultsort: str | None = None
        self.stats = ExpansionStats()
        self._deadline = time.perf_counter() + _time_budget
        self._timed_out = False
        self._depth = 1  # nested node expansions; the page's own tree is the first
        self._nesting = 0  # nested walks, counted or not (a default inside a default …)
        self._targets: dict[str, tuple[tuple[int, str], str] | None] = {}
        self._used_set: set[tuple[int, str]] = set()

    def _exceed(self, category: str) -> None:
        if category not in self.stats.exceeded:
            self.stats.exceeded.append(category)

    def expand(self, text: str) -> str:
        """Expand a page's text for viewing."""
        started = time.perf_counter()
        self._deadline = started + _time_budget
        if "{{" in text or "<" in text:
            text = self._walk(preprocess(text, headings=False).children, _Frame(None, {}, 0, ()))
        self.stats.total_ms += (time.perf_counter() - started) * 1000
        return text

    @property
    def timed_out(self) -> bool:
        """The wall-clock budget ran out: the expansion is cut and must not be kept."""
        return self._timed_out

    # --- the walk ----------------------------------------------------------------------------

    def _walk(self, nodes: list[Node], frame: _Frame, strip_comments: bool = False) -> str:
        """The expansion of a run of sibling nodes: text as it is, calls replaced by what they
        give, comments kept (unless stripped) for the renderer and `action=expandtemplates`."""
        if self._nesting >= _MAX_NESTING:
            self._exceed(EXPAND_DEPTH_CATEGORY)
            return EXPAND_DEPTH_ERROR
        self._nesting += 1
        out: list[str] = []
        for node in nodes:
            if isinstance(node, str):
                out.append(node)
                continue
            name = node.name
            if name == "template":
                out.append(self._template(node, frame))
            elif name == "tplarg":
                out.append(self._tplarg(node, frame))
            elif name == "comment":
                if not strip_comments:
                    out.append("".join(c for c in node.children if isinstance(c, str)))
            elif name == "ext":
                out.append(self._extension(node, frame))
            elif name == "ignore" or name.startswith("@"):
                continue
            else:
                out.append(self._walk(node.children, frame, strip_comments))
        self._nesting -= 1
        return "".join(out)

    def _node(self, nodes: list[Node], frame: _Frame, strip_comments: bool = False) -> str:
        """One counted expansion (PPFrame::expand called on a node), or the error that stands
        for it past a limit."""
        stats = self.stats
        stats.visited += 1
        depth = self._depth + 1
        if (
            stats.visited > MAX_NODE_COUNT
            or depth > MAX_EXPAND_DEPTH
            or self._timed_out
            or stats.visited % _CLOCK_EVERY == 0
        ):
            refusal = self._refusal(depth)
            if refusal is not None:
                return refusal
        if depth > stats.highest_depth:
            stats.highest_depth = depth
        if len(nodes) == 1:
            only = nodes[0]
            if isinstance(only, str):
                return only
        self._depth = depth
        out = self._walk(nodes, frame, strip_comments)
        self._depth = depth - 1
        return out

    def _refusal(self, depth: int) -> str | None:
        """The error that replaces an expansion `depth` deep past a limit (its node already
        counted), and the clock read every `_CLOCK_EVERY` nodes."""
        if self.stats.visited > MAX_NODE_COUNT:
            self._exceed(NODE_COUNT_CATEGORY)
            return NODE_COUNT_ERROR
        if depth > MAX_EXPAND_DEPTH:
            self._exceed(EXPAND_DEPTH_CATEGORY)
            return EXPAND_DEPTH_ERROR
        if not self._timed_out and self.stats.visited % _CLOCK_EVERY == 0:
            self._timed_out = time.perf_counter() > self._deadline
        return TIME_ERROR if self._timed_out else None

    def _extension(self, node: Element, frame: _Frame) -> str:
        """An extension tag: `<nowiki>` and `<pre>` keep their text as written; the others
        (`<gallery>`, `<indicator>` …) have the templates of their content expanded, as their
        handlers' recursive parse does. Its name, attributes and content each count as a node."""
        tag = _child(node, "name")
        attr = _child(node, "attr")
        inner = next(
            (c for c in node.children if isinstance(c, Element) and c.name == "inner"), None
        )
        for _ in range(2 if inner is None else 3):
            refusal = self._node([""], frame)
            if refusal:
                return refusal
        written = source(node, drop_comments=False)
        name = source(tag, drop_comments=False)
        if inner is None or name.lower() in ("nowiki", "pre"):
            return written
        body = source(inner, drop_comments=False)
        close = source(_child(node, "close"), drop_comments=False)
        tree = preprocess(body, headings=False)
        return (
            f"<{name}{source(attr, drop_comments=False)}>{self._walk(tree.children, frame)}{close}"
        )

    def _tplarg(self, node: Element, frame: _Frame) -> str:
        """`{{{name|default}}}`: the caller's argument, else the default, else itself."""
        title_node, parts = _call_pieces(node)
        title = self._node(title_node.children, frame, strip_comments=True)
        name = title.strip()
        if name in frame.args:
            value = self._argument(frame, name)
            if self.stats.argument_size + len(value) > MAX_INCLUDE_SIZE:
                self._exceed(ARGUMENT_CATEGORY)
                return ARGUMENT_OMITTED
            self.stats.argument_size += len(value)
            return value
        if parts:
            return self._walk(parts[0].children, frame)
        return "{{{" + title + "}}}"

    def _argument(self, frame: _Frame, name: str) -> str:
        """An argument's value, expanded in the caller's frame on first use."""
        value = frame.values.get(name)
        if value is None:
            node, trimmed = frame.args[name]
            assert frame.parent is not None
            value = self._node(node.children, frame.parent, strip_comments=True)
            if trimmed:
                value = value.strip()
            frame.values[name] = value
        return value

    def _template(self, node: Element, frame: _Frame) -> str:
        """`{{…}}`: a template, parser function or magic word, counted against the post-expand
        include size."""
        title_node, parts = _call_pieces(node)
        title = self._node(title_node.children, frame, strip_comments=True)
        # Once a template has been omitted the page is at its limit: later calls are omitted
        # without being expanded first, or a bomb would still be expanded to its node limit.
        omitting = INCLUSION_CATEGORY in self.stats.exceeded
        result = "" if omitting else self._call(title, parts, frame)
        # Counted at every depth, as Parser::braceSubstitution counts it.
        if omitting or self.stats.post_expand + len(result) > MAX_INCLUDE_SIZE:
            self._exceed(INCLUSION_CATEGORY)
            head = title.strip()
            target = self._target(head)
            shown = target[1] if target is not None else head.lstrip(":")
            return f"[[:{shown}]]" + TEMPLATE_OMITTED
        self.stats.post_expand += len(result)
        return result

    def _written(self, title: str, parts: list[Element], frame: _Frame) -> str:
        """A call that is none: as written, its parts expanded where they stand."""
        return "{{" + title + "".join("|" + self._walk(p.children, frame) for p in parts) + "}}"

    def _call(self, title: str, parts: list[Element], frame: _Frame) -> str:
        head = title.strip()
        kind = self._kinds.get(head)
        if kind is None:
            kind = self._kinds[head] = self._kind(head)
        if kind is _FUNCTION:
            result = self._function(head, _Parts(self, parts, frame))
            return self._written(title, parts, frame) if result is None else result
        if kind is _MAGIC:
            given = _Parts(self, parts, frame)
            magic = self._magic(head, [given.whole(i) for i in range(len(given))])
            if magic is not None:
                return magic
            kind = self._target(head) or _NOTHING
        if kind is _PIPE:
            return "|"
        if not isinstance(kind, tuple):
            return self._written(title, parts, frame)
        key, shown = kind
        if key not in self._used_set:
            self._used_set.add(key)
            self.used.append(key)
        if key in frame.stack:
            return f'<span class="error">Template loop detected: [[{shown}]]</span>'
        if frame.depth >= MAX_DEPTH:
            return (
                f'<span class="error">Template recursion depth limit exceeded ({MAX_DEPTH})</span>'
            )
        if key in self._trees:
            tree = self._trees[key]
        else:
            loaded = self.loader(*key)
            tree = self._trees[key] = None if loaded is None else _body_tree(loaded)
        if tree is None:
            return f"[[:{shown}]]"
        args: dict[str, tuple[Element, bool]] = {}
        for part in parts:
            name = _part_name(part)
            if len(part.children) == 3:
                named = self._node(name.children, frame, strip_comments=True).strip()
                args[named] = (_part_value(part), True)
            else:
                # A numbered part's name is its `@index` attribute.
                number = cast(str, cast(Element, name.children[0]).children[0])
                args[number] = (_part_value(part), False)
        child = _Frame(frame, args, frame.depth + 1, (*frame.stack, key))
        started = time.perf_counter()
        result = self._node(tree.children, child)
        timing = self.stats.templates.get(shown)
        if timing is None:
            timing = self.stats.templates[shown] = [0.0, 0]
        timing[0] += (time.perf_counter() - started) * 1000
        timing[1] += 1
        return result

    def _kind(self, head: str) -> object:
        """What a call's trimmed title names: `{{!}}`, a parser function, a magic word, a
        template (its key and shown title) or nothing."""
        if head == "!":
            return _PIPE
        if head.startswith("#"):
            return _FUNCTION
        if self._is_magic(head):
            return _MAGIC
        return self._target(head) or _NOTHING

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

    # --- parser functions and magic words ----------------------------------------------------

    def evaluate(self, inner: str) -> str | None:
        """`{{inner}}` when it is a magic word or a parser function (its arguments already
        expanded), as `subst:` evaluates it; None when it is neither."""
        parts = split_args(inner)
        head = parts[0].strip()
        if head.startswith("#"):
            return self._function(head, _Texts(parts[1:]))
        return self._magic(head, parts[1:])

    def _function(self, head: str, args: _Args) -> str | None:
        """A parser function (ParserFunctions' and `#expr`), reading only the arguments its
        answer needs; None when there is no such function."""
        name, _, first = head.partition(":")
        name = name.lower()
        count = len(args)
        if name == "#if":
            index = 0 if first.strip() else 1
            return args.whole(index).strip() if index < count else ""
        if name == "#ifeq":
            right = args.whole(0).strip() if count else ""
            index = 1 if first.strip() == right else 2
            return args.whole(index).strip() if index < count else ""
        if name == "#expr":
            return expr_function(first)
        if name == "#ifexpr":
            try:
                value = evaluate(first)
            except ExprError as error:
                return f'<strong class="error">{error}</strong>'
            index = 1
            if value != "":
                try:
                    index = 0 if float(value.split("<br />")[-1]) != 0 else 1
                except ValueError:
                    index = 0
            return args.whole(index).strip() if index < count else ""
        if name == "#switch":
            return self._switch(first.strip(), args)
        return None

    def _switch(self, value: str, args: _Args) -> str:
        """`{{#switch:value|case=result|a|b=fall-through|#default=…}}`: a case without `=`
        falls through to the next result and, last, is the default."""
        found = False
        default: int | None = None
        last_bare: int | None = None
        for index in range(len(args)):
            if not args.named(index):
                last_bare = index
                if args.whole(index).strip() == value:
                    found = True
                continue
            last_bare = None
            if found:
                return args.value(index).strip()
            case = args.name(index).strip()
            if case == value:
                return args.value(index).strip()
            if case == "#default":
                default = index
        if last_bare is not None:
            return args.whole(last_bare).strip()
        if default is not None:
            return args.value(default).strip()
        return ""

    def _is_magic(self, head: str) -> bool:
        word, colon, _ = head.partition(":")
        upper = word.strip().upper()
        if colon:
            return upper in _COLON_WORDS
        return upper in _PLAIN_WORDS or upper in self.variables

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
            # The name (and its URL form: underscores, URL-encoded) as text, not markup.
            url = quote(simple[plain].replace(" ", "_"), safe=";:@$!*(),/~")
            simple[plain + "E"] = escape_wikitext(url)
            simple[plain] = escape_wikitext(simple[plain])
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

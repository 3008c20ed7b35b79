"""MediaWiki's pre-save transform (`Parser::preSaveTransform`): what an edit's wikitext becomes
before it is stored, and what `rvdifftotextpst` diffs against.

In MediaWiki 1.39's order: NUL characters dropped, line endings normalised and trailing space
trimmed; `{{subst:…}}`/`{{safesubst:…}}` replaced by the template's text with its parameters (other
templates and parser functions inside stay as written), magic words and parser functions evaluated
when substituted; the signatures `~~~` (user), `~~~~` (user and date) and `~~~~~` (date); the pipe
tricks `[[Foo (bar)|]]`, `[[Foo, bar|]]` and `[[|Foo]]`. Comments and extension tags
(`<nowiki>`, `<pre>` …) are kept out of every step, as the parser's strip markers keep them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from atrium.wiki.timestamps import formatted
from atrium.wiki.titles import NS_TEMPLATE, NS_USER, NS_USER_TALK, InvalidTitle, Title, TitleParser
from atrium.wiki.wikitext.escaping import escape_wikitext as escape_wikitext
from atrium.wiki.wikitext.expand import MAX_DEPTH, Expander, TemplateLoader
from atrium.wiki.wikitext.preprocess import Element, Node, preprocess, source

_MARK = "\ue002"
_MARK_RE = re.compile(_MARK + r"(\d+)" + _MARK)
_SUBST = re.compile(r"\s*(?:safe)?subst:", re.I)

# Title::legalChars() and the namespace characters of Parser::pstPass2 (PHP's byte ranges
# \x80-\xff stand for every non-ASCII character).
_TC = r"[ %!\"$&'()*,\-./0-9:;=?@A-Z\\^_`a-z~+\x80-\U0010ffff]"
_NC = r"[ _0-9A-Za-z\x80-\U0010ffff-]"
_P1 = re.compile(rf"\[\[(:?{_NC}+:|:|)({_TC}+?)( ?\({_TC}+\))\|\]\]")
_P4 = re.compile(rf"\[\[(:?{_NC}+:|:|)({_TC}+?)( ?（{_TC}+）)\|\]\]")
_P3 = re.compile(rf"\[\[(:?{_NC}+:|:|)({_TC}+?)( ?\({_TC}+\)|)((?:, |，|، ){_TC}+|)\|\]\]")
_P2 = re.compile(rf"\[\[\|({_TC}+)\]\]")
_TITLE_CONTEXT = re.compile(rf"^({_NC}+:|){_TC}+?( \({_TC}+\))$")
_TITLE_COMMA = re.compile(rf"^({_NC}+:|){_TC}+?(, {_TC}+|)$")
_SIGNATURES = re.compile(r"~~~~~|~~~~|~~~")


@dataclass(frozen=True)
class Signer:
    """Who signs: the user's name, whether registered, and the `nickname`/`fancysig` options."""

    name: str
    registered: bool
    nickname: str = ""
    fancysig: bool = False


def signature_text(text: str) -> str:
    """A user name or nickname as a signature shows it: escaped, and with no `~~~` left that a
    later edit's pre-save transform would read as a signature of its own."""
    return escape_wikitext(text).replace("~~~", "~~&#126;")


def signature(parser: TitleParser, signer: Signer) -> str:
    """Parser::getUserSig: the `signature` (or `signature-anon`) message for the user."""
    nickname = signer.nickname or signer.name
    if signer.nickname and signer.fancysig and len(signer.nickname) <= 255:
        return re.sub(r"~{3,5}", "", signer.nickname)
    nickname = re.sub(r"~{3,5}", "", nickname)
    user, nick = signature_text(signer.name), signature_text(nickname)
    if not signer.registered:
        return f"[[{parser.namespaces.name(-1)}:Contributions/{user}|{nick}]]"
    user_ns, talk_ns = parser.namespaces.name(NS_USER), parser.namespaces.name(NS_USER_TALK)
    return f"[[{user_ns}:{user}|{nick}]] ([[{talk_ns}:{user}|talk]])"


def signature_date(timestamp: str) -> str:
    """The date of `~~~~`: the content language's `timeanddate` ("H:i, j F Y") and the zone."""
    moment = datetime.strptime(timestamp, "%Y%m%d%H%M%S")
    return f"{formatted(moment.strftime('%Y%m%d%H%M%S'))} (UTC)"


class _Substituter:
    """Parser::replaceVariables in OT_WIKI mode: only `subst:` calls are expanded."""

    def __init__(self, parser: TitleParser, loader: TemplateLoader, page: Title) -> None:
        self.parser = parser
        self.loader = loader
        self.functions = Expander(parser, loader, (page.ns, page.dbkey))
        self.held: list[str] = []

    def hold(self, text: str) -> str:
        self.held.append(text)
        return f"{_MARK}{len(self.held) - 1}{_MARK}"

    def unstrip(self, text: str) -> str:
        for _ in range(MAX_DEPTH):
            if _MARK not in text:
                break
            text = _MARK_RE.sub(lambda m: self.held[int(m.group(1))], text)
        return text

    def walk(
        self,
        node: Node,
        args: dict[str, str] | None,
        depth: int,
        stack: tuple[tuple[int, str], ...],
    ) -> str:
        if isinstance(node, str):
            return node
        name = node.name
        if name.startswith("@"):
            return ""
        if name in ("comment", "ext"):
            return self.hold(source(node, drop_comments=False))
        if name == "ignore":
            # In the page itself <includeonly> and friends stay; in a substituted body they go.
            return source(node, drop_comments=False) if args is None else ""
        if name == "template":
            return self._template(node, args, depth, stack)
        if name == "tplarg":
            return self._tplarg(node, args, depth, stack)
        return "".join(self.walk(child, args, depth, stack) for child in node.children)

    def _pieces(
        self,
        node: Element,
        args: dict[str, str] | None,
        depth: int,
        stack: tuple[tuple[int, str], ...],
    ) -> tuple[str, list[str]]:
        title = ""
        parts: list[str] = []
        for child in node.children:
            if isinstance(child, Element) and child.name == "title":
                title = self.walk(child, args, depth, stack)
            elif isinstance(child, Element) and child.name == "part":
                parts.append(self.walk(child, args, depth, stack))
        return title, parts

    def _tplarg(
        self,
        node: Element,
        args: dict[str, str] | None,
        depth: int,
        stack: tuple[tuple[int, str], ...],
    ) -> str:
        title, parts = self._pieces(node, args, depth, stack)
        if args is not None:
            key = title.strip()
            if key in args:
                return args[key]
            if parts:
                return parts[0]
        return "{{{" + title + "".join("|" + p for p in parts) + "}}}"

    def _template(
        self,
        node: Element,
        args: dict[str, str] | None,
        depth: int,
        stack: tuple[tuple[int, str], ...],
    ) -> str:
        title, parts = self._pieces(node, args, depth, stack)
        written = "{{" + title + "".join("|" + p for p in parts) + "}}"
        prefix = _SUBST.match(title)
        if prefix is None:
            return written
        result = self._substitute(title[prefix.end() :], parts, depth, stack)
        return written if result is None else result

    def _substitute(
        self, target: str, parts: list[str], depth: int, stack: tuple[tuple[int, str], ...]
    ) -> str | None:
        evaluated = self.functions.evaluate(target + "".join("|" + p for p in parts))
        if evaluated is not None:
            return evaluated
        try:
            title = self.parser.parse(self.unstrip(target).strip(), NS_TEMPLATE)
        except InvalidTitle:
            return None
        if title.interwiki or not title.dbkey or title.ns < 0:
            return None
        key = (title.ns, title.dbkey)
        shown = self.parser.prefixed_text(*key)
        if key in stack:
            return f'<span class="error">Template loop detected: [[{shown}]]</span>'
        if depth >= MAX_DEPTH:
            return (
                f'<span class="error">Template recursion depth limit exceeded ({MAX_DEPTH})</span>'
            )
        body = self.loader(*key)
        if body is None:
            return None
        call_args: dict[str, str] = {}
        position = 1
        for part in parts:
            name, eq, value = part.partition("=")
            if eq:
                call_args[name.strip()] = value.strip()
            else:
                call_args[str(position)] = part
                position += 1
        tree = preprocess(body, for_inclusion=True)
        return self.walk(tree, call_args, depth + 1, (*stack, key))


def _pipe_tricks(text: str, page: Title) -> str:
    text = _P1.sub(lambda m: f"[[{m[1]}{m[2]}{m[3]}|{m[2]}]]", text)
    text = _P4.sub(lambda m: f"[[{m[1]}{m[2]}{m[3]}|{m[2]}]]", text)
    text = _P3.sub(lambda m: f"[[{m[1]}{m[2]}{m[3]}{m[4]}|{m[2]}]]", text)
    name = page.text
    context = _TITLE_CONTEXT.match(name)
    if context is None:
        comma = _TITLE_COMMA.match(name)
        if comma is not None and comma[1] + comma[2]:
            context = comma
    if context is not None:
        before, after = context[1], context[2]
        return _P2.sub(lambda m: f"[[{before}{m[1]}{after}|{m[1]}]]", text)
    return _P2.sub(lambda m: f"[[{m[1]}]]", text)


def pre_save_transform(
    text: str,
    *,
    parser: TitleParser,
    page: Title,
    signer: Signer,
    loader: TemplateLoader,
    timestamp: str | None = None,
) -> str:
    """The text as MediaWiki would store it; `timestamp` (14 digits, UTC) dates the
    signatures, now when not given."""
    text = text.replace("\x00", "")
    text = text.rstrip().replace("\r\n", "\n").replace("\r", "\n")
    substituter = _Substituter(parser, loader, page)
    text = substituter.walk(preprocess(text), None, 0, ())
    if "~~~" in text:
        date = signature_date(timestamp or datetime.now(UTC).strftime("%Y%m%d%H%M%S"))
        sig = signature(parser, signer)
        forms = {"~~~~~": date, "~~~~": f"{sig} {date}", "~~~": sig}
        text = _SIGNATURES.sub(lambda m: forms[m[0]], text)
    text = _pipe_tricks(text, page)
    return substituter.unstrip(text).rstrip()

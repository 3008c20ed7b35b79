"""The output formats beside JSON: ApiFormatXml (`xml`, `xmlfm`), ApiFormatPhp (`php`,
`phpfm`), ApiFormatJson's `rawfm` and ApiFormatNone (`none`).

A result is built once, as formatversion 1 (or 2 for `php`) JSON values; XML needs what
MediaWiki's result keeps beside them: the element name of each list's items (`ELEMENTS`, as
MediaWiki 1.39 names them), the lists that are keyed (by page id, namespace id: their items carry
the key as `_idx`) and those keyed by a name attribute (`KVP`). Text under `*` is the element's
content, kept with `xml:space="preserve"`.
"""

from __future__ import annotations

import json
import re
from typing import Any

# The item element of each list, by the list's key (ApiResult::setIndexedTagName in 1.39).
ELEMENTS = {
    "acceptlang": "lang", "add": "g", "add-self": "g", "aliases": "alias", "allcategories": "c",
    "alldeletedrevisions": "page", "allfileusages": "f", "allimages": "img", "alllinks": "l",
    "allmessages": "message", "allpages": "p", "allredirects": "r", "allrevisions": "page",
    "backlinks": "bl",
    "alltransclusions": "t", "allusers": "u", "badrevids": "rev", "blocks": "block",
    "cascadinglevels": "level", "categories": "cl", "categoryinfo": "ci",
    "categorymembers": "cm", "contributors": "user", "dbrepllag": "db", "deletedrevs": "page",
    "deletedrevisions": "rev", "embeddedin": "ei", "extensions": "ext", "extensiontags": "t",
    "externallinks": "el", "exturlusage": "eu", "fallback": "lang", "fallbacks": "fb",
    "filearchive": "fa", "fileextensions": "fe", "functionhooks": "h",
    "groupmemberships": "groupmembership", "groups": "g", "helpurls": "helpurl",
    "imageinfo": "ii", "imagelimits": "limit", "images": "img", "imageusage": "iu",
    "implicitgroups": "g", "indicators": "ind", "interwiki": "i", "interwikimap": "iw",
    "iwbacklinks": "iw", "iwlinks": "iw", "jsconfigvars": "var", "langbacklinks": "ll",
    "langlinks": "ll", "languages": "lang", "languagevariants": "lang", "levels": "level",
    "libraries": "library", "limitreportdata": "lr", "links": "pl", "linkshere": "lh",
    "logevents": "item", "logparams": "param", "magicwords": "magicword", "metadata": "metadata",
    "commonmetadata": "metadata", "modules": "m", "modulescripts": "m", "modulestyles": "m",
    "mystashedfiles": "file", "namespacealiases": "ns", "namespaces": "ns", "normalized": "n",
    "converted": "c", "pagepropnames": "p", "pages": "page", "parameters": "param",
    "params": "param", "parsewarnings": "pw", "prefixsearch": "ps", "properties": "pp",
    "protectedtitles": "pt", "protection": "pr", "protocols": "p", "random": "page",
    "recentchanges": "rc", "redirects": "r", "remove": "g", "remove-self": "g", "repos": "repo",
    "restrictiontypes": "rt", "results": "page", "revisions": "rev", "rights": "r",
    "search": "p", "sections": "s", "semiprotectedlevels": "level", "showhooks": "hook",
    "skins": "skin", "slots": "slot", "specialpagealiases": "specialpage",
    "submodules": "submodule", "tags": "tag", "templatedparameters": "param",
    "templates": "tl", "thumblimits": "limit", "transcludedin": "ti", "type": "t",
    "types": "type", "usercontribs": "item", "usergroups": "group", "users": "user",
    "value": "metadata", "variables": "v", "variants": "var", "watchlist": "item",
    "watchlistraw": "wr", "errors": "error", "warnings": "warning", "modules[paraminfo]": "module",
    "duplicate": "duplicate", "alias": "alias", "info": "i",
    # The action modules' lists (ApiProtect, ApiWatch, ApiPurge, ApiMove, ApiTag, ApiImport,
    # ApiSetNotificationTimestamp, ApiRevisionDelete, ApiUpload).
    "protections": "protection", "watch": "w", "purge": "page", "subpages": "subpage",
    "subpages-talk": "subpage", "tag": "result", "import": "page",
    "setnotificationtimestamp": "page", "items": "i", "allowed": "ext", "blacklisted": "ext",
    "details": "detail",
}  # fmt: skip
# Items whose element name depends on the list they are in.
_IN_CONTEXT = {
    ("paraminfo", "modules"): "module",
    ("query", "redirects"): "r",
    ("page", "redirects"): "rd",
    ("group", "rights"): "permission",
    ("userrights", "added"): "group",
    ("userrights", "removed"): "group",
    ("result", "added"): "t",
    ("result", "removed"): "t",
    ("variant", "fallbacks"): "variant",
}
# Lists keyed by a name the item carries as an attribute (ApiResult::META_KVP_KEY_NAME).
KVP = {"slots": "role", "languagevariants": "code"}
# The same, for lists known by the list they are in: (parent, element) -> (item, key attribute).
_KVP_IN_CONTEXT = {("languagevariants", "lang"): ("variant", "code")}
# Text members written as elements of their own rather than attributes, by the element they are
# in (ApiResult::setSubelementsList in ApiExpandTemplates, ApiParse, ApiParamInfo, ApiHelp).
SUBELEMENTS = {
    "expandtemplates": frozenset({"wikitext", "parsetree", "encodedjsconfigvars"}),
    "parse": frozenset({"encodedjsconfigvars"}),
    "example": frozenset({"description"}),
    "i": frozenset({"text"}),
    "help": frozenset({"help"}),
}
# Text members whose key is not `*` in MediaWiki's result (ApiResult::META_CONTENT), by the
# element they are in; formatversion 1 (what this module reads) spells them `*`.
_CONTENT_NAMES = {"api": "docref"}
_INTEGER = re.compile(r"^-?[0-9]+$")
# ApiFormatXml::mangleName's name characters: the first may not be `_` (reserved for mangled
# names) nor `:` (XML namespaces); the others may be `_`.
_NAME_START = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff"
    "\u200c-\u200d\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd"
    "\U00010000-\U000effff"
)
_NAME_CHAR = _NAME_START + "_\\-.0-9\u00b7\u0300-\u036f\u203f-\u2040"
_NAME = re.compile(f"[{_NAME_START}][{_NAME_CHAR}]*")
_NOT_NAME_CHAR = re.compile(f"[^{_NAME_CHAR}]")


def _mangle(name: str) -> str:
    """ApiFormatXml::mangleName: a key that is no XML name, spelled so that it is one."""
    if name == "":
        return "_"
    if _NAME.fullmatch(name):
        return name
    return "_" + _NOT_NAME_CHAR.sub(lambda m: f".{ord(m.group()):X}.", name.replace(".", ".2E."))


def _attr(value: str) -> str:
    """Sanitizer::encodeAttribute: htmlspecialchars with both quotes, whitespace as entities."""
    return (
        value.replace("&", "&amp;").replace('"', "&quot;").replace("'", "&#039;")
        .replace("<", "&lt;").replace(">", "&gt;")
        .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    )  # fmt: skip


def _text(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _scalar(value: Any) -> str | None:
    if value is None or value is False:
        return None
    if value is True:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _item_name(parent: str, key: str) -> str:
    return _IN_CONTEXT.get((parent, key)) or ELEMENTS.get(key, "_v")


def _tag(name: str, attributes: dict[str, str], content: str | None = None) -> str:
    """Xml::element: a short tag when there is no content or it is empty."""
    attrs = "".join(f' {k}="{_attr(v)}"' for k, v in attributes.items())
    if not content:
        return f"<{name}{attrs} />"
    return f"<{name}{attrs}>{_text(content)}</{name}>"


class _Writer:
    def __init__(self, pretty: bool) -> None:
        self.pretty = pretty
        self.parts: list[str] = []

    def line(self, depth: int, text: str) -> None:
        if self.pretty:
            self.parts.append(("  " * depth) + text + "\n")
        else:
            self.parts.append(text)

    def element(
        self, name: str, value: Any, depth: int, extra: dict[str, str], parent: str
    ) -> None:
        # `name` is already an XML name: a key mangled by its parent, or a list's item name
        # (which ApiFormatXml writes as it is, `_v` too).
        tag = name
        if not isinstance(value, dict | list):
            # A scalar item of a list holds its value as content (`<g>sysop</g>`).
            text = _scalar(value)
            if text is not None:
                self.line(depth, _tag(tag, extra, text))
            return
        attributes = dict(extra)
        children: list[tuple[str, Any, dict[str, str]]] = []
        content: str | None = None
        if isinstance(value, list):
            item = _item_name(parent, name)
            children = [(item, each, {}) for each in value]
        elif name in KVP:
            item = _item_name(parent, name)
            children = [(item, each, {KVP[name]: str(key)}) for key, each in value.items()]
        elif (parent, name) in _KVP_IN_CONTEXT:
            item, attribute = _KVP_IN_CONTEXT[(parent, name)]
            children = [(item, each, {attribute: str(key)}) for key, each in value.items()]
        elif (
            name in ELEMENTS
            and value
            and all(isinstance(v, dict) and _INTEGER.match(k) for k, v in value.items())
        ):
            # A list keyed by id in formatversion 1 (pages, namespaces, badrevids…).
            item = _item_name(parent, name)
            children = [(item, each, {"_idx": str(key)}) for key, each in value.items()]
        else:
            own = SUBELEMENTS.get(name, frozenset())
            for key, each in value.items():
                if key == "*" and not isinstance(each, dict | list):
                    content = _scalar(each) or ""
                elif isinstance(each, dict | list):
                    children.append((_mangle(key), each, {}))
                elif key in own:
                    children.append((_mangle(key), {"*": each}, {}))
                else:
                    text = _scalar(each)
                    if text is not None:
                        attributes[_mangle(key)] = text
        if content is not None and children:
            # Text beside elements goes into an element of its own, named for its key: `*`,
            # or `docref` beside the errors of a non-legacy error format.
            children.append((_CONTENT_NAMES.get(name, _mangle("*")), {"*": content}, {}))
            content = None
        if content is not None:
            attributes["xml:space"] = "preserve"
        if not children:
            self.line(depth, _tag(tag, attributes, content))
            return
        self.line(depth, _tag(tag, attributes, None)[:-3] + ">")
        for key, each, more in children:
            self.element(key, each, depth + 1, more, name)
        self.line(depth, f"</{tag}>")


def xml(body: dict[str, Any], pretty: bool = False, namespace: bool = False) -> str:
    """The result as ApiFormatXml prints it (`pretty`: as xmlfm shows it, indented)."""
    writer = _Writer(pretty)
    extra = {"xmlns": "http://www.mediawiki.org/xml/api/"} if namespace else {}
    writer.element("api", body, 0, extra, "")
    # xmlfm starts each element on a line of its own, the first one too, and ends with none.
    head = '<?xml version="1.0"?>' + ("\n" if pretty else "")
    return head + "".join(writer.parts).rstrip("\n")


def php(value: Any) -> str:
    """PHP's serialize() of the result; keys that are integers in PHP become integer keys."""
    if value is None:
        return "N;"
    if value is True or value is False:
        return f"b:{int(value)};"
    if isinstance(value, int):
        return f"i:{value};"
    if isinstance(value, float):
        return f"d:{json.dumps(value)};"
    if isinstance(value, str):
        return f's:{len(value.encode())}:"{value}";'
    items = value.items() if isinstance(value, dict) else enumerate(value)
    inner = "".join(_php_key(key) + php(each) for key, each in items)
    return f"a:{len(value)}:{{{inner}}}"


def _php_key(key: Any) -> str:
    text = str(key)
    if re.fullmatch(r"-?(0|[1-9][0-9]*)", text) and -(2**63) <= int(text) < 2**63:
        return f"i:{int(text)};"
    return php(text)


def raw(body: dict[str, Any]) -> str:
    """rawfm: the result with the list metadata MediaWiki keeps (`_element`, `_type`), pretty."""
    return json.dumps(_with_metadata(body, ""), ensure_ascii=False, indent=4)


def _with_metadata(value: Any, key: str) -> Any:
    if isinstance(value, list):
        out: dict[str, Any] = {str(i): _with_metadata(v, "") for i, v in enumerate(value)}
        out["_element"] = ELEMENTS.get(key, "_v")
        return out
    if isinstance(value, dict):
        return {k: _with_metadata(v, k) for k, v in value.items()}
    return value

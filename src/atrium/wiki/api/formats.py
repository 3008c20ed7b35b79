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
    "duplicate": "duplicate", "alias": "alias", "info": "i", "deprecatedvalues": "v",
}  # fmt: skip
# Items whose element name depends on the list they are in.
_IN_CONTEXT = {
    ("paraminfo", "modules"): "module",
    ("query", "redirects"): "r",
    ("page", "redirects"): "rd",
    ("group", "rights"): "permission",
}
# Lists keyed by a name the item carries as an attribute (ApiResult::META_KVP_KEY_NAME).
KVP = {"slots": "role"}
_INTEGER = re.compile(r"^-?[0-9]+$")
_NAME = re.compile(r"^[A-Za-z_:][A-Za-z0-9_:.-]*$")


def _mangle(name: str) -> str:
    """ApiFormatXml::mangleName: a key that is no XML name, spelled so that it is one."""
    if _NAME.match(name):
        return name
    spelled = "".join(c if re.match(r"[A-Za-z0-9_:.-]", c) else f".{ord(c):x}." for c in name)
    return spelled if _NAME.match(spelled) else "_" + spelled


def _attr(value: str) -> str:
    return (
        value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
        .replace(">", "&gt;").replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
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
        tag = _mangle(name)
        if not isinstance(value, dict | list):
            text = _scalar(value)
            if text is None:
                return
            attrs = "".join(f' {k}="{_attr(v)}"' for k, v in extra.items())
            self.line(depth, f"<{tag}{attrs}>{_text(text)}</{tag}>")
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
        elif (
            name in ELEMENTS
            and value
            and all(isinstance(v, dict) and _INTEGER.match(k) for k, v in value.items())
        ):
            # A list keyed by id in formatversion 1 (pages, namespaces, badrevids…).
            item = _item_name(parent, name)
            children = [(item, each, {"_idx": str(key)}) for key, each in value.items()]
        else:
            for key, each in value.items():
                if key == "*" and not isinstance(each, dict | list):
                    content = _scalar(each) or ""
                elif isinstance(each, dict | list):
                    children.append((key, each, {}))
                else:
                    text = _scalar(each)
                    if text is not None:
                        attributes[_mangle(key)] = text
        attrs = "".join(f' {k}="{_attr(v)}"' for k, v in attributes.items())
        if content is not None:
            attrs += ' xml:space="preserve"'
        if not children and content is None:
            self.line(depth, f"<{tag}{attrs} />")
            return
        if not children:
            self.line(depth, f"<{tag}{attrs}>{_text(content or '')}</{tag}>")
            return
        self.line(depth, f"<{tag}{attrs}>" + (_text(content) if content else ""))
        for key, each, more in children:
            # A scalar item of a list holds its value as content (`<g>sysop</g>`).
            self.element(key, each, depth + 1, more, name)
        self.line(depth, f"</{tag}>")


def xml(body: dict[str, Any], pretty: bool = False, namespace: bool = False) -> str:
    """The result as ApiFormatXml prints it (`pretty`: as xmlfm shows it, indented)."""
    writer = _Writer(pretty)
    extra = {"xmlns": "http://www.mediawiki.org/xml/api/"} if namespace else {}
    writer.element("api", body, 0, extra, "")
    head = '<?xml version="1.0"?>' + ("\n" if pretty else "")
    return head + "".join(writer.parts)


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

"""Every module the API knows: the action modules, the query modules, and `main` itself.

`main`'s `action` values and `query`'s `list`/`prop`/`meta`/`generator` values come from what is
registered here, so paraminfo and dispatch cannot disagree.
"""

from __future__ import annotations

from atrium.wiki.api import feeds, query
from atrium.wiki.api.actions import (
    Action,
    block,
    changecontentmodel,
    clearhasmsg,
    clientlogin,
    compare,
    createaccount,
    delete,
    edit,
    emailuser,
    expandtemplates,
    help,
    login,
    logout,
    managetags,
    mergehistory,
    move,
    opensearch,
    options,
    paraminfo,
    parse,
    patrol,
    protect,
    purge,
    resetpassword,
    revisiondelete,
    rollback,
    rsd,
    tag,
    unblock,
    undelete,
    upload,
    userrights,
    watch,
)
from atrium.wiki.api.params import BOOLEAN, INTEGER, USER, ModuleSpec, Param, enum
from atrium.wiki.api.query.modules import MODULES

# One line per file, in the order `action=paraminfo` and `action=help` list the modules.
_ACTION_LIST: list[Action] = [
    login.ACTION,
    clientlogin.ACTION,
    logout.ACTION,
    edit.ACTION,
    createaccount.ACTION,
    options.ACTION,
    paraminfo.ACTION,
    help.ACTION,
    delete.ACTION,
    undelete.ACTION,
    move.ACTION,
    mergehistory.ACTION,
    changecontentmodel.ACTION,
    protect.ACTION,
    rollback.ACTION,
    patrol.ACTION,
    purge.ACTION,
    watch.ACTION,
    block.ACTION,
    unblock.ACTION,
    userrights.ACTION,
    managetags.ACTION,
    tag.ACTION,
    upload.ACTION,
    *parse.ACTIONS,
    compare.ACTION,
    clearhasmsg.ACTION,
    resetpassword.ACTION,
    emailuser.ACTION,
    *expandtemplates.ACTIONS,
    rsd.ACTION,
    opensearch.ACTION,
    revisiondelete.ACTION,
    *feeds.ACTIONS,
    Action(query.QUERY, query.execute),
]
ACTIONS: dict[str, Action] = {a.spec.name: a for a in _ACTION_LIST}

FORMATS = ("json", "jsonfm", "none", "php", "phpfm", "rawfm", "xml", "xmlfm")

MAIN = ModuleSpec(
    "main",
    "ApiMain",
    None,
    "",
    (
        Param(
            "action",
            enum(*sorted(ACTIONS)),
            default="help",
            submodules={name: name for name in sorted(ACTIONS)},
        ),
        Param("format", enum(*FORMATS), default="jsonfm", submodules={f: f for f in FORMATS}),
        Param("maxlag", INTEGER),
        Param("smaxage", INTEGER, default=0),
        Param("maxage", INTEGER, default=0),
        Param("assert", enum("anon", "bot", "user")),
        Param("assertuser", USER, subtypes=("name",)),
        Param("requestid"),
        Param("servedby", BOOLEAN),
        Param("curtimestamp", BOOLEAN),
        Param("responselanginfo", BOOLEAN),
        Param("origin"),
        Param("uselang", default="user"),
        Param("variant"),
        Param(
            "errorformat", enum("bc", "html", "none", "plaintext", "raw", "wikitext"), default="bc"
        ),
        Param("errorlang", default="uselang"),
        Param("errorsuselocal", BOOLEAN),
    ),
    readrights=False,
)


def _format_spec(name: str, classname: str) -> ModuleSpec:
    return ModuleSpec(
        name,
        classname,
        "format",
        "",
        (
            Param("callback"),
            Param("utf8", BOOLEAN),
            Param("ascii", BOOLEAN),
            Param("formatversion", enum("1", "2", "latest"), default="1"),
        ),
        readrights=False,
    )


JSON_FORMAT = _format_spec("json", "ApiFormatJson")
JSONFM_FORMAT = _format_spec("jsonfm", "ApiFormatJson")
_WRAPPED = Param("wrappedhtml", BOOLEAN)
_XML_PARAMS = (Param("xslt"), Param("includexmlnamespace", BOOLEAN))
_FORMATVERSION = Param("formatversion", enum("1", "2", "latest"), default="1")


def _other_format(name: str, classname: str, params: tuple[Param, ...]) -> ModuleSpec:
    return ModuleSpec(name, classname, "format", "", params)


# Every format but json and jsonfm: the parameters of each, as paraminfo lists them.
OTHER_FORMATS = {
    "none": _other_format("none", "ApiFormatNone", ()),
    "php": _other_format("php", "ApiFormatPhp", (_FORMATVERSION,)),
    "phpfm": _other_format("phpfm", "ApiFormatPhp", (_WRAPPED, _FORMATVERSION)),
    "rawfm": _other_format("rawfm", "ApiFormatJson", (_WRAPPED,)),
    "xml": _other_format("xml", "ApiFormatXml", _XML_PARAMS),
    "xmlfm": _other_format("xmlfm", "ApiFormatXml", (_WRAPPED, *_XML_PARAMS)),
}

QUERY_MODULE_SPECS: dict[str, ModuleSpec] = {m.spec.name: m.spec for m in MODULES}

_BY_PATH: dict[str, ModuleSpec] = {
    "main": MAIN,
    "json": JSON_FORMAT,
    "jsonfm": JSONFM_FORMAT,
    **OTHER_FORMATS,
    **{a.spec.path: a.spec for a in _ACTION_LIST},
    **{s.path: s for s in QUERY_MODULE_SPECS.values()},
}


def lookup(path: str) -> ModuleSpec | None:
    return _BY_PATH.get(path)


def children(path: str) -> list[ModuleSpec]:
    if path == "main":
        return [a.spec for a in _ACTION_LIST]
    if path == "query":
        return list(QUERY_MODULE_SPECS.values())
    return []

"""`meta=authmanagerinfo`: what a client must send to log in or create an account (password only)."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.context import Out
from atrium.wiki.api.params import (
    BOOLEAN,
    ModuleSpec,
    Param,
    enum,
)
from atrium.wiki.api.query.pageset import QueryModule, QueryRun

_FIELD_TEXT = {
    "username": ("string", "Username", "Username for authentication."),
    "password": ("password", "Password", "Password for authentication."),
    "retype": ("password", "Confirm password", "Same password as above."),
    "email": ("string", "Email", "Email address (optional)."),
    "realname": ("string", "Real name", "Real name (optional)."),
}
_REQUEST_FIELDS = {
    "login": ("username", "password"),
    "create": ("username", "password", "retype", "email", "realname"),
    "change": ("password", "retype"),
    "remove": (),
}


def _fields(names: tuple[str, ...], out: Out, messageformat: str) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name in names:
        kind, label, help_text = _FIELD_TEXT[name]
        entry: dict[str, Any] = {"type": kind}
        if messageformat != "none":
            entry["label"] = label
            entry["help"] = help_text
        if kind == "password":
            out.flag_if(entry, "sensitive", True)
        if name in ("email", "realname"):
            out.flag_if(entry, "optional", True)
        fields[name] = entry
    return fields


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    out = q.ctx.out
    info: dict[str, Any] = {}
    out.flag(info, "canauthenticatenow", True)
    out.flag(info, "cancreateaccounts", True)
    out.flag(info, "canlinkaccounts", False)  # no provider links accounts
    if params["securitysensitiveoperation"] is not None:
        info["securitysensitiveoperationstatus"] = "OK"
    action = params["requestsfor"]
    if action is not None:
        # No authentication step is ever left half done, so nothing is preserved.
        out.flag(info, "haspreservedstate", False)
        out.flag(info, "hasprimarypreservedstate", False)
        info["preservedusername"] = ""
        key = action.removesuffix("-continue")
        names = _REQUEST_FIELDS.get(key, ())
        requests: list[dict[str, Any]] = []
        if names and not action.endswith("-continue"):
            requests.append(
                {
                    "id": "MediaWiki\\Auth\\PasswordAuthenticationRequest",
                    "metadata": {} if out.fv >= 2 else [],
                    "required": "primary-required",
                    "provider": "Password-based authentication",
                    "account": "",
                    "fields": _fields(names, out, params["messageformat"]),
                }
            )
        if params["mergerequestfields"]:
            merged: dict[str, Any] = {}
            for request in requests:
                merged.update(request["fields"])
            info["fields"] = merged
        else:
            info["requests"] = requests
    q.data["authmanagerinfo"] = info


AUTHMANAGERINFO = ModuleSpec(
    "authmanagerinfo",
    "ApiQueryAuthManagerInfo",
    "meta",
    "ami",
    (
        Param("securitysensitiveoperation"),
        Param(
            "requestsfor",
            enum(
                "change",
                "create",
                "create-continue",
                "link",
                "link-continue",
                "login",
                "login-continue",
                "remove",
                "unlink",
            ),
        ),
        Param("mergerequestfields", BOOLEAN),
        Param("messageformat", enum("html", "none", "raw", "wikitext"), default="wikitext"),
    ),
    readrights=False,
)


MODULE = QueryModule(AUTHMANAGERINFO, run)

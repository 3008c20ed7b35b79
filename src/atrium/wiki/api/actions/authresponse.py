"""ApiAuthManagerHelper's FAIL answer of `action=createaccount` and `action=clientlogin`.

MediaWiki words an AuthManager failure through the module, not the error formatter: the message
in the user language (`uselang`; `errorlang` plays no part), in the module's `messageformat`:
`wikitext` (`text()`), `html` (`parseAsBlock()` without its outer paragraph), `raw` (key and
parameters) or `none` (no `message` at all). `messagecode` is ApiMessage's code of the message;
`canpreservestate` is false, as no request is kept for a later creation (shown in formatversion=2
only, like every false boolean).

Several refusals at once (a password breaking two policies) are Status::getMessage's bulleted
list: a raw message `* $1\n* $2` whose parameters are the refusals, each a string in the user
language (a Message in an ApiResult is its `__toString()`, the parsed text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from atrium.wiki.api.context import ApiContext
from atrium.wiki.messages import messages as msg

# ApiMessageTrait::$messageMap, for the keys an AuthManager failure carries here.
_CODES = {"noname": "invaliduser"}
_NOT_A_CODE = re.compile(r"[^a-zA-Z0-9_-]")


def message_code(key: str) -> str:
    """ApiMessage::getApiCode of a message by key."""
    return _NOT_A_CODE.sub("_", _CODES.get(key) or msg.api_code(key))


async def fail(
    ctx: ApiContext, messages: Sequence[msg.Message], messageformat: str
) -> dict[str, Any]:
    """The FAIL member of the module's answer (`formatAuthenticationResponse`)."""
    out: dict[str, Any] = {"status": "FAIL"}
    await _message(ctx, out, messages, messageformat)
    ctx.out.flag(out, "canpreservestate", False)
    return out


async def new_password_ui(
    ctx: ApiContext,
    account_name: str,
    message: msg.Message,
    messageformat: str,
    merge_fields: bool = False,
) -> dict[str, Any]:
    """The UI answer that asks for a new password after a temporary one: one required
    PasswordAuthenticationRequest for a change (`password` and `retype`), and why. With
    `mergerequestfields` the fields are the answer's own rather than the request's."""

    async def field(label: msg.Message, help_text: msg.Message) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "password"}
        if messageformat != "none":
            out["label"] = await _formatted(ctx, label, messageformat)
            out["help"] = await _formatted(ctx, help_text, messageformat)
        ctx.out.flag(out, "optional", False)
        ctx.out.flag(out, "sensitive", True)
        return out

    request: dict[str, Any] = {
        "id": "MediaWiki\\Auth\\PasswordAuthenticationRequest",
        "metadata": {},
        "required": "required",
    }
    if messageformat != "none":
        provider = msg.api("authmanager-provider-password")
        request["provider"] = await _formatted(ctx, provider, messageformat)
        request["account"] = (
            {"key": "$1", "params": [account_name]} if messageformat == "raw" else account_name
        )
    fields = {
        "password": await field(msg.api("newpassword"), msg.api("authmanager-password-help")),
        "retype": await field(msg.api("retypenew"), msg.api("authmanager-retype-help")),
    }
    if not merge_fields:
        request["fields"] = fields
    out: dict[str, Any] = {"status": "UI", "requests": [request]}
    if merge_fields:
        out["fields"] = fields
    await _message(ctx, out, [message], messageformat)
    return out


async def _formatted(ctx: ApiContext, message: msg.Message, messageformat: str) -> Any:
    if messageformat == "raw":
        return {"key": message.key, "params": list(message.params)}
    form = msg.HTML if messageformat == "html" else msg.WIKITEXT
    return await ctx.render_in_uselang(message, form)


async def _message(
    ctx: ApiContext, out: dict[str, Any], messages: Sequence[msg.Message], messageformat: str
) -> None:
    if len(messages) == 1:
        key = messages[0].key
        if messageformat == "raw":
            out["message"] = {"key": key, "params": list(messages[0].params)}
        elif messageformat in ("wikitext", "html"):
            form = msg.HTML if messageformat == "html" else msg.WIKITEXT
            out["message"] = await ctx.render_in_uselang(messages[0], form)
    else:
        key = "* $" + "\n* $".join(str(i) for i in range(1, len(messages) + 1))
        if messageformat == "raw":
            params = [await ctx.render_in_uselang(m, msg.HTML) for m in messages]
            out["message"] = {"key": key, "params": params}
        elif messageformat == "wikitext":
            items = [await ctx.render_in_uselang(m, msg.WIKITEXT) for m in messages]
            out["message"] = "* " + "\n* ".join(items)
        elif messageformat == "html":
            items = [await ctx.render_in_uselang(m, msg.HTML) for m in messages]
            out["message"] = "<ul><li>" + "</li>\n<li>".join(items) + "</li></ul>"
    out["messagecode"] = message_code(key)

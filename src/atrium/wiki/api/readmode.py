"""The wiki's audience for anonymous callers, and MediaWiki's read mode.

The anonymous caller has the rights of `*` under the site's audience (accounts/audience.py). On a
private wiki (`$wgGroupPermissions['*']['read'] = false`) that leaves out `read`, so every module
marked `readrights` refuses it with `readapidenied`. `action=query` is in read mode unless it asks only
for `meta` modules that need no read right (ApiQuery::isReadMode), so a client can still fetch a
login token on a private wiki.
"""

from __future__ import annotations

import dataclasses

from atrium.wiki.accounts.audience import anonymous_rights
from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.query import QUERY
from atrium.wiki.api.query.modules import RUNNABLE
from atrium.wiki.reads.users import Account

# Query parameters that never expose anything (frameworks send them unconditionally).
_HARMLESS = ("rawcontinue", "indexpageids")


def caller_on(ctx: ApiContext) -> Account:
    """The caller as the wiki's permissions make it: when anonymous, only the rights the
    audience leaves to `*`."""
    caller = ctx.caller
    if caller.registered:
        return caller
    return dataclasses.replace(caller, allowed_rights=anonymous_rights(ctx.site.audience))


def query_reads(ctx: ApiContext) -> bool:
    """ApiQuery::isReadMode."""
    raw = ctx.params.raw
    for param in QUERY.params:
        if param.name in _HARMLESS:
            continue
        if (param.name in raw) != (param.name == "meta"):
            return True
    for name in str(raw.get("meta") or "").replace("\x1f", "|").split("|"):
        module = RUNNABLE.get(name)
        if module is None or module.spec.readrights:
            return True
    return False

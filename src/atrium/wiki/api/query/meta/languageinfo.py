"""`meta=languageinfo` (ApiQueryLanguageinfo): facts about the languages the wiki knows, keyed by
code, in the known languages' order whatever order `licode` names them in.

Like MediaWiki 1.39 the module works to a time budget rather than a count: once three seconds
have passed it stops and names the next language in `licontinue`, and a client resumes from
there (every known code not below it, by string order, is answered).
"""

from __future__ import annotations

import time
from typing import Any

from atrium.wiki.api.params import ModuleSpec, Param, enum
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.messages import messages as msg
from atrium.wiki.messages.language_facts import known_languages, name_in

PROPS = ("code", "bcp47", "dir", "autonym", "name", "fallbacks", "variants")
BUDGET_SECONDS = 3.0  # ApiQueryLanguageinfo::MAX_EXECUTE_SECONDS


def clock() -> float:
    """The clock the budget is measured on (a test moves it)."""
    return time.monotonic()


LANGUAGEINFO = ModuleSpec(
    "languageinfo",
    "ApiQueryLanguageinfo",
    "meta",
    "li",
    (
        Param("prop", enum(*PROPS), default="code", multi=True),
        Param("code", default="*", multi=True),
        Param("continue"),
    ),
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    deadline = clock() + BUDGET_SECONDS
    props = set(params["prop"])
    known = known_languages()
    selected: list[str] = params["code"]
    if selected == ["*"]:
        codes = list(known)
    else:
        wanted = set(selected)
        codes = [code for code in known if code in wanted]
        unrecognized = [code for code in selected if code not in known]
        if unrecognized:
            q.ctx.warn(
                LANGUAGEINFO,
                "unrecognizedvalues",
                msg.api(
                    "apiwarn-unrecognizedvalues",
                    "licode",
                    {"list": unrecognized, "type": "comma"},
                    len(unrecognized),
                ),
            )
    resume: str | None = params["continue"]
    uselang = await q.ctx.user_language() if "name" in props else "en"
    answered: dict[str, Any] = {}
    q.data["languageinfo"] = answered
    for code in codes:
        if resume is not None and code < resume:
            continue
        if clock() >= deadline:
            q.continuation.add(LANGUAGEINFO, "continue", code)
            break
        facts = known[code]
        info: dict[str, Any] = {}
        if "code" in props:
            info["code"] = code
        if "bcp47" in props:
            info["bcp47"] = facts.bcp47
        if "dir" in props:
            info["dir"] = facts.dir
        if "autonym" in props:
            info["autonym"] = facts.autonym
        if "name" in props:
            info["name"] = name_in(code, uselang)
        if "fallbacks" in props:
            info["fallbacks"] = list(facts.fallbacks)
        if "variants" in props:
            info["variants"] = list(facts.variants)
        answered[code] = info


MODULE = QueryModule(LANGUAGEINFO, run)

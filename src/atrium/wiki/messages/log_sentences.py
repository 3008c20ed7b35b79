"""A log entry as a sentence, from MediaWiki's `logentry-<type>-<action>` messages and the
entry's stored parameters (LogFormatter and its subclasses for moves, protection, blocks,
rights, deletions and tags), as wikitext with the performer, the page and the parameters as
links. The browser pages and the API's recent-changes feed render it; each says how it writes
times and whether the performer carries its talk and contributions links.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from atrium.wiki.messages.store import CORE_MESSAGES
from atrium.wiki.site import Site
from atrium.wiki.timestamps import from_iso
from atrium.wiki.titles import Title
from atrium.wiki.wikitext.escaping import escape_wikitext

_BLOCK_FLAGS = ("anononly", "nocreate", "noautoblock", "noemail", "nousertalk", "hiddenname")
_REVDEL_FIELDS = (("content", "content"), ("comment", "summary"), ("user", "uname"))
_PLURAL = re.compile(r"\{\{PLURAL:\$(\d+)\|([^{}]*)\}\}", re.I)
_GENDER = re.compile(r"\{\{GENDER:[^|{}]*\|([^{}]*)\}\}", re.I)
_PARAM = re.compile(r"\$(\d+)")


@dataclass(frozen=True)
class LogLine:
    """What a reader may see of a log entry: None for a hidden performer or target."""

    log_type: str
    action: str
    params: str | None  # the stored JSON
    user: str | None
    title: Title | None


def message(key: str, *params: str | int) -> str:
    """A core message's wikitext with its parameters, PLURAL and GENDER resolved (GENDER with
    the neutral form: the wiki keeps no genders)."""
    text = CORE_MESSAGES.get(key, key).replace("&#32;", " ")
    values = [str(p) for p in params]

    def nth(index: str) -> str:
        i = int(index) - 1
        return values[i] if 0 <= i < len(values) else f"${index}"

    def plural(match: re.Match[str]) -> str:
        forms = match.group(2).split("|")
        try:
            count = float(nth(match.group(1)).replace(",", ""))
        except ValueError:
            count = 2
        return forms[0] if count == 1 or len(forms) == 1 else forms[1]

    def gender(match: re.Match[str]) -> str:
        forms = match.group(1).split("|")
        return forms[2] if len(forms) > 2 else forms[0]

    text = _GENDER.sub(gender, _PLURAL.sub(plural, text))
    return _PARAM.sub(lambda m: nth(m.group(1)), text)


def _link(site: Site, title: Title) -> str:
    name = site.parser.prefixed_text(title.ns, title.dbkey)
    return f"[[:{escape_wikitext(name)}]]"


def _user(name: str, tools: bool) -> str:
    """The performer, with the talk and contributions links (Linker::userToolLinks) where the
    page shows them (LogFormatter's `linkFlood`)."""
    shown = escape_wikitext(name)
    link = f"[[User:{shown}|{shown}]]"
    if not tools:
        return link
    return f"{link} ([[User talk:{shown}|talk]] | [[Special:Contributions/{shown}|contribs]])"


def _list(items: Sequence[str]) -> str:
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def _params(raw: str | None) -> dict[str, Any]:
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _revdel(p: dict[str, Any]) -> str:
    old, new = p.get("old") or {}, p.get("new") or {}
    changes = []
    for field, name in _REVDEL_FIELDS:
        if bool(new.get(field)) != bool(old.get(field)):
            changes.append(message(f"revdelete-{name}-{'hid' if new.get(field) else 'unhid'}"))
    if bool(new.get("restricted")) != bool(old.get("restricted")):
        changes.append(
            message("revdelete-restricted" if new.get("restricted") else "revdelete-unrestricted")
        )
    return escape_wikitext(", ".join(changes))


def _block(p: dict[str, Any], when: Callable[[str], str]) -> tuple[str, str]:
    duration = str(p.get("duration") or "infinity")
    shown = "infinite" if duration in ("infinity", "infinite", "indefinite") else duration
    if p.get("expiry") and shown != "infinite":
        shown = f"{duration} (ends {when(from_iso(str(p['expiry'])))})"
    flags = [message(f"block-log-flags-{f}") for f in _BLOCK_FLAGS if f in (p.get("flags") or [])]
    return escape_wikitext(shown), escape_wikitext(f"({', '.join(flags)})") if flags else ""


def wikitext(site: Site, line: LogLine, when: Callable[[str], str], tools: bool = True) -> str:
    """The entry's sentence as wikitext (LogFormatter::getActionText), its times written by
    `when` (a 14-digit timestamp in, the reader's way of writing it out)."""
    p = _params(line.params)
    user = _user(line.user, tools) if line.user is not None else "(username removed)"
    name = escape_wikitext(line.user or "")
    target = _link(site, line.title) if line.title is not None else ""
    if line.title is None:
        # A hidden action hides its parameters too (LogFormatter's `rev-deleted-event`).
        return f"{user} (log details removed)"
    kind, action = line.log_type, line.action
    key = f"logentry-{kind}-{action}"
    extra: list[str | int] = []
    if kind == "move" and action in ("move", "move_redir"):
        moved_to = Title(int(p.get("target_ns") or 0), str(p.get("target_title") or ""))
        parsed = site.parser.parse(str(p.get("target_title") or "")) if moved_to.dbkey else None
        extra = [_link(site, Title(parsed.ns, parsed.dbkey)) if parsed else ""]
        if p.get("suppressredirect"):
            key += "-noredirect"
    elif kind == "protect" and action in ("protect", "modify"):
        extra = [escape_wikitext(str(p.get("description") or ""))]
        if p.get("cascade"):
            key += "-cascade"
    elif kind == "protect" and action == "move_prot":
        extra = [escape_wikitext(str(p.get("oldtitle_title") or ""))]
    elif kind == "delete" and action == "restore":
        count = p.get("count") or {}
        parts = []
        if count.get("revisions"):
            parts.append(message("restore-count-revisions", int(count["revisions"])))
        if count.get("files"):
            parts.append(message("restore-count-files", int(count["files"])))
        if parts:
            extra = [_list(parts)]
        else:
            key += "-nocount"
    elif kind in ("delete", "suppress") and action in ("revision", "event"):
        extra = [_revdel(p), len(p.get("ids") or [])]
    elif kind in ("block", "suppress") and action in ("block", "reblock"):
        extra = [target, *_block(p, when)]
        if not p.get("sitewide", True) and kind == "block":
            key = f"logentry-partialblock-{action}"
            extra.append("the specified pages or namespaces")
    elif kind == "rights" and action in ("rights", "autopromote"):
        none = message("rightsnone")
        extra = [
            escape_wikitext(", ".join(p.get("oldgroups") or []) or none),
            escape_wikitext(", ".join(p.get("newgroups") or []) or none),
            name,
        ]
    elif kind == "patrol":
        extra = [str(p.get("curid") or "")]
        if p.get("auto"):
            key += "-auto"
    elif kind == "merge":
        dest = site.parser.parse(str(p.get("dest_title") or "")) if p.get("dest_title") else None
        stamp = str(p.get("mergepoint") or "")
        extra = [
            _link(site, Title(dest.ns, dest.dbkey)) if dest else "",
            when(from_iso(stamp)) if stamp else "",
        ]
    elif kind == "managetags":
        extra = [escape_wikitext(str(p.get("tag") or "")), int(p.get("count") or 0)]
    elif kind == "tag":
        added, removed = p.get("tagsAdded") or [], p.get("tagsRemoved") or []
        on = "revision" if p.get("revid") else "logentry"
        change = "update" if added and removed else "update-add" if added else "update-remove"
        key = f"logentry-tag-{change}-{on}"
        extra = [
            str(p.get("revid") or ""), str(p.get("logid") or ""),
            escape_wikitext(", ".join(added)), len(added),
            escape_wikitext(", ".join(removed)), len(removed),
        ]  # fmt: skip
    elif kind == "contentmodel":
        # ContentModelLogFormatter names the models as readers know them ("CSS").
        extra = [escape_wikitext(message(f"content-model-{p.get('oldmodel') or ''}")),
                 escape_wikitext(message(f"content-model-{p.get('newmodel') or ''}"))]  # fmt: skip
    elif kind == "import" and p.get("count"):
        key += "-details"
        extra = [int(p["count"]), escape_wikitext(str(p.get("interwiki_title") or ""))]
    if key not in CORE_MESSAGES:
        return f"{user} performed {escape_wikitext(kind)}/{escape_wikitext(action)} on {target}"
    if kind == "newusers" and action in ("create", "autocreate", "newusers"):
        # The new account is the performer: its user page is $1.
        return message(key, user, name)
    return message(key, user, name, target, *extra)

"""The pieces `action=query` modules are written against: the page set and continuation.

`QueryModule` is a list/meta/prop module body; `PageSet` holds the pages a query works on (from
`titles`, `pageids`, `revids` or a generator) with MediaWiki's normalized/redirects/missing/invalid
bookkeeping; `Continuation` is MediaWiki's ApiContinuationManager (the `continue` object,
`batchcomplete`, and the legacy `query-continue` of `rawcontinue`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from atrium.wiki.api.context import ApiContext
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import INT64_MAX, INT64_MIN, ModuleSpec
from atrium.wiki.messages import messages as msg


@dataclass
class PageRow:
    page_id: int
    ns: int
    dbkey: str
    is_redirect: bool = False
    is_new: bool = False
    touched: str = ""
    latest: int = 0
    length: int = 0
    content_model: str = "wikitext"


@dataclass
class MissingPage:
    ns: int
    dbkey: str
    fake_id: int
    special: bool = False


@dataclass
class InvalidPage:
    title: str
    reason: Any  # `invalidreason`: the reason in the response's error format
    fake_id: int


@dataclass
class PageSet:
    good: dict[int, PageRow] = field(default_factory=dict)
    missing: list[MissingPage] = field(default_factory=list)
    invalid: list[InvalidPage] = field(default_factory=list)
    missing_ids: list[int] = field(default_factory=list)
    bad_revids: list[int] = field(default_factory=list)
    normalized: list[tuple[str, str]] = field(default_factory=list)
    redirects: list[dict[str, Any]] = field(default_factory=list)
    interwiki: list[tuple[str, str]] = field(default_factory=list)
    revids: dict[int, int] = field(default_factory=dict)  # requested revision -> its page
    # Requested revisions found in `archive` (PageSet::getDeletedRevisionIDs): revision -> the
    # (namespace, dbkey) of its title, which joins the set as a good or missing page.
    deleted_revids: dict[int, tuple[int, str]] = field(default_factory=dict)
    # Extra data per page id (generator=search `index` and the like).
    extra: dict[int, dict[str, Any]] = field(default_factory=dict)
    next_fake: int = -1

    def fake_id(self) -> int:
        value = self.next_fake
        self.next_fake -= 1
        return value

    def sorted_good(self) -> list[PageRow]:
        return [self.good[k] for k in sorted(self.good)]

    @property
    def revision_count(self) -> int:
        """PageSet::getRevisionCount: the requested revisions found, live or deleted."""
        return len(self.revids) + len(self.deleted_revids)

    def key_of(self, ns: int, dbkey: str) -> int | None:
        """The page id (or a missing title's fake id) a title has in the set."""
        for page in self.good.values():
            if page.ns == ns and page.dbkey == dbkey:
                return page.page_id
        for missing in self.missing:
            if missing.ns == ns and missing.dbkey == dbkey:
                return missing.fake_id
        return None


class Continuation:
    """MediaWiki's ApiContinuationManager: what to send back so the client can resume."""

    def __init__(self, value: str | None, has_generator: bool, raw_params: dict[str, str]) -> None:
        self.skip: set[str] = set()
        self.generator_done = False
        self.generator_params: dict[str, str] = {}
        if value:
            parts = value.split("||")
            if len(parts) != 2:
                raise badcontinue()
            self.generator_done = parts[0] == "-"
            self.skip = {name for name in parts[1].split("|") if name}
            if not self.generator_done and parts[0]:
                for name in parts[0].split("|"):
                    if name in raw_params:
                        self.generator_params[name] = raw_params[name]
        self.has_generator = has_generator
        self.module_data: dict[str, dict[str, str | int]] = {}  # list/meta modules
        self.prop_data: dict[str, dict[str, str | int]] = {}
        self.generator_data: dict[str, str | int] = {}
        self.ran: list[str] = []
        self.skipped: list[str] = []
        # Every requested module in request order (prop, list, meta) and which of them are props:
        # MediaWiki lists all modules without continuation data as finished, and restarts the
        # prop modules when the generator moves on.
        self.all_modules: list[str] = []
        self.prop_modules: set[str] = set()

    def set_modules(self, names: list[str], props: set[str]) -> None:
        self.all_modules = list(dict.fromkeys(names))
        self.prop_modules = set(props)
        if self.generator_done:
            self.skip |= self.prop_modules

    def should_run(self, name: str) -> bool:
        return name not in self.skip

    def add(self, spec: ModuleSpec, name: str, value: object) -> None:
        key = spec.prefix + name
        target = self.prop_data if spec.group == "prop" else self.module_data
        target.setdefault(spec.name, {})[key] = _value(value)

    def add_generator(self, spec: ModuleSpec, name: str, value: object) -> None:
        self.generator_data["g" + spec.prefix + name] = _value(value)

    @property
    def batch_complete(self) -> bool:
        return not self.prop_data

    def result(self, rawcontinue: bool, generator_name: str | None) -> dict[str, Any]:
        """Top-level members: `continue` (or `query-continue`) and the batchcomplete decision."""
        if rawcontinue:
            legacy: dict[str, dict[str, str | int]] = {}
            for module, kvp in {**self.prop_data, **self.module_data}.items():
                legacy.setdefault(module, {}).update(kvp)
            if self.generator_data and not self.prop_data and generator_name is not None:
                legacy.setdefault(generator_name, {}).update(self.generator_data)
            return {"query-continue": legacy} if legacy else {}
        if not self.module_data and not self.prop_data and not self.generator_data:
            return {}
        data: dict[str, str | int] = {}
        for kvp in self.module_data.values():
            data.update(kvp)
        if self.all_modules:
            finished = [
                name
                for name in self.all_modules
                if name not in self.module_data and name not in self.prop_data
            ]
        else:
            finished = [name for name in self.ran if name not in self.module_data] + self.skipped
        if self.prop_data:
            for kvp in self.prop_data.values():
                data.update(kvp)
            data.update(self.generator_params)
            generator_keys = "|".join(self.generator_params)
        elif self.generator_data:
            data.update(self.generator_data)
            generator_keys = "|".join(self.generator_data)
            finished = [name for name in finished if name not in self.prop_modules]
        else:
            generator_keys = "-"
        data["continue"] = generator_keys + "||" + "|".join(finished)
        return {"continue": data}


def _value(value: object) -> str | int:
    return value if isinstance(value, int) and not isinstance(value, bool) else str(value)


_CONT_INT = re.compile(r"-?[0-9]+")


def cont_int(text: str) -> int:
    """An integer part of a continue value. ApiBase::parseContinueParamOrDie refuses a part that
    is not one PHP's int holds as `badcontinue`, so no such part reaches the database."""
    if not _CONT_INT.fullmatch(text):
        raise badcontinue()
    value = int(text)
    if not INT64_MIN <= value <= INT64_MAX:
        raise badcontinue()
    return value


def badcontinue() -> ApiUsageError:
    return ApiUsageError(
        "badcontinue",
        msg.api("apierror-badcontinue"),
        module="query",
    )


@dataclass
class QueryRun:
    """The state of one `action=query` request shared by its modules."""

    ctx: ApiContext
    pages: PageSet
    continuation: Continuation
    data: dict[str, Any] = field(default_factory=dict)  # the `query` member
    page_data: dict[int, dict[str, Any]] = field(default_factory=dict)  # per page id (fake ids too)
    root: dict[str, Any] = field(default_factory=dict)  # members beside `query` (watchlistraw)

    def page_entry(self, key: int) -> dict[str, Any]:
        return self.page_data.setdefault(key, {})


@dataclass
class GeneratedPages:
    """What a module run as a generator hands to the page set."""

    page_ids: list[int] = field(default_factory=list)
    titles: list[tuple[int, str]] = field(default_factory=list)
    extra: dict[int, dict[str, Any]] = field(default_factory=dict)
    # Revisions (PageSet::populateFromRevisionIDs): their pages join the set, as with `revids`.
    revids: list[int] = field(default_factory=list)


ModuleRunner = Callable[[QueryRun, dict[str, Any]], Awaitable[None]]
GeneratorRunner = Callable[[QueryRun, dict[str, Any]], Awaitable[GeneratedPages]]


@dataclass(frozen=True)
class QueryModule:
    """A query module whose body exists: its declaration and the coroutine that runs it."""

    spec: ModuleSpec
    run: ModuleRunner
    generate: GeneratorRunner | None = None
    # Called before the generator runs, to refuse parameter combinations (MediaWiki's `params`).
    check_generator: Callable[[QueryRun, dict[str, Any]], None] | None = None

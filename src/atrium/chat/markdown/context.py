"""What the renderer may know about a realm, and what it reports back.

The renderer never touches the database. The caller builds a `RenderContext`
from the database (users, groups and streams the sender may mention or link,
the realm's linkifiers and custom emoji) and gets a `RenderResult` back: the
HTML plus the facts the sending code needs (who was mentioned, wildcards,
`/me`, links worth previewing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from atrium.chat.markdown.wikilinks import WikiTarget


@dataclass(frozen=True, slots=True)
class MentionableUser:
    """A realm member as mention syntax sees it."""

    id: int
    full_name: str
    email: str = ""
    is_active: bool = True


@dataclass(frozen=True, slots=True)
class MentionableGroup:
    """A user group that `@*name*` may mention (system groups excluded by the caller)."""

    id: int
    name: str


@dataclass(frozen=True, slots=True)
class LinkableStream:
    """A stream the sender can see, so `#**name**` may link to it."""

    id: int
    name: str


@dataclass(frozen=True, slots=True)
class Linkifier:
    """A realm linkifier: a regular expression with named groups and an RFC 6570 URL template."""

    id: int
    pattern: str
    url_template: str


@dataclass(frozen=True)
class RenderContext:
    """Realm data for one render; build it once per realm state and reuse it.

    `realm_url` is the realm's base URL without a trailing slash (links into it
    are rewritten to relative `#narrow/...` links). `realm_emoji` maps the name
    of each active custom emoji to its image URL. `camo_uri` and `camo_key` are
    the server's external-content proxy (Zulip's `CAMO_URI`/`CAMO_KEY`), used
    for the source of video previews; without one the video's own URL is used.
    `render_math` turns on math (MathML) for `$$...$$` and math blocks (as on
    Zulip's servers, which always render it); off, math takes Zulip's `tex-error`
    fallback and the output holds no MathML, SVG or inline styles.
    """

    realm_url: str = ""
    users: Sequence[MentionableUser] = ()
    groups: Sequence[MentionableGroup] = ()
    streams: Sequence[LinkableStream] = ()
    linkifiers: Sequence[Linkifier] = ()
    realm_emoji: Mapping[str, str] = field(default_factory=dict)
    translate_emoticons: bool = False
    # The realm's "show previews of linked images" setting.
    inline_image_preview: bool = True
    camo_uri: str = ""
    camo_key: str = ""
    render_math: bool = False
    sender_id: int | None = None
    # The message's resolved `[[wiki links]]`, by target as written (see `wikilinks`).
    wiki_links: Mapping[str, WikiTarget] = field(default_factory=dict)

    @cached_property
    def users_by_name(self) -> dict[str, MentionableUser]:
        # Zulip matches full names case-insensitively; the first user wins a tie,
        # which is why clients send `@**Name|id**`.
        found: dict[str, MentionableUser] = {}
        for user in self.users:
            found.setdefault(user.full_name.lower(), user)
        return found

    @cached_property
    def users_by_id(self) -> dict[int, MentionableUser]:
        return {user.id: user for user in self.users}

    @cached_property
    def groups_by_name(self) -> dict[str, MentionableGroup]:
        return {group.name.lower(): group for group in self.groups}

    @cached_property
    def stream_ids_by_name(self) -> dict[str, int]:
        return {stream.name: stream.id for stream in self.streams}

    @cached_property
    def linkifier_key(self) -> tuple[tuple[str, str], ...]:
        """What distinguishes one engine from another: the linkifiers, in order."""
        return tuple((lf.pattern, lf.url_template) for lf in self.linkifiers)


EMPTY_CONTEXT = RenderContext()


@dataclass
class RenderResult:
    """The HTML of a message and what it implies for the recipients' flags."""

    html: str
    mentioned_user_ids: set[int] = field(default_factory=set)
    mentioned_group_ids: set[int] = field(default_factory=set)
    stream_wildcard_mentioned: bool = False
    topic_wildcard_mentioned: bool = False
    is_me_message: bool = False
    links_for_preview: set[str] = field(default_factory=set)
    # True when the input could not be rendered and `html` is the escaped text.
    failed: bool = False
    # True when rendering ran past its time budget (`failed` too): Zulip refuses such a message.
    timed_out: bool = False

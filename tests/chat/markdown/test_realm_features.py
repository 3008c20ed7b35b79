"""Constructs that need realm data (not covered by Zulip's fixture): HTML per api-facts §7."""

from __future__ import annotations

import logging

import pytest

from atrium.chat.markdown import (
    LinkableStream,
    Linkifier,
    MentionableGroup,
    MentionableUser,
    RenderContext,
    render_markdown,
    render_stream_description,
    render_topic_links,
)
from atrium.chat.markdown import engine as engine_module

HAMLET = MentionableUser(id=10, full_name="King Hamlet", email="hamlet@example.com")
OTHELLO = MentionableUser(id=11, full_name="Othello", email="othello@example.com")
GHOST = MentionableUser(id=12, full_name="Old Ghost", is_active=False)
CTX = RenderContext(
    realm_url="http://zulip.testserver",
    users=[HAMLET, OTHELLO, GHOST],
    groups=[MentionableGroup(id=3, name="support")],
    streams=[LinkableStream(id=1, name="Denmark"), LinkableStream(id=2, name="core team")],
    linkifiers=[
        Linkifier(id=1, pattern=r"#(?P<id>[0-9]+)", url_template="https://trac.example.com/t/{id}"),
        Linkifier(
            id=2,
            pattern=r"(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<num>[0-9]+)",
            url_template="https://github.com/{org}/{repo}/pull/{num}",
        ),
    ],
    realm_emoji={"green_tick": "/user_avatars/2/emoji/images/1.png"},
)


def html(text: str, ctx: RenderContext = CTX) -> str:
    return render_markdown(text, ctx).html


# (input, expected HTML): one row per construct.
CASES = [
    ("@**King Hamlet**", '<p><span class="user-mention" data-user-id="10">@King Hamlet</span></p>'),
    ("@**king hamlet**", '<p><span class="user-mention" data-user-id="10">@King Hamlet</span></p>'),
    (
        "@**King Hamlet|10**",
        '<p><span class="user-mention" data-user-id="10">@King Hamlet</span></p>',
    ),
    ("@**|11**", '<p><span class="user-mention" data-user-id="11">@Othello</span></p>'),
    ("@**Othello|10**", "<p>@<strong>Othello|10</strong></p>"),
    # An unknown name is not a mention; the asterisks then mean bold, as in Zulip.
    ("@**Nobody**", "<p>@<strong>Nobody</strong></p>"),
    (
        "@_**King Hamlet**",
        '<p><span class="user-mention silent" data-user-id="10">King Hamlet</span></p>',
    ),
    ("@**all**", '<p><span class="user-mention" data-user-id="*">@all</span></p>'),
    ("@**everyone**", '<p><span class="user-mention" data-user-id="*">@everyone</span></p>'),
    ("@**stream**", '<p><span class="user-mention" data-user-id="*">@stream</span></p>'),
    ("@**topic**", '<p><span class="topic-mention">@topic</span></p>'),
    (
        "@*support*",
        '<p><span class="user-group-mention" data-user-group-id="3">@support</span></p>',
    ),
    (
        "@_*support*",
        '<p><span class="user-group-mention silent" data-user-group-id="3">support</span></p>',
    ),
    ("@*nogroup*", "<p>@<em>nogroup</em></p>"),
    ("mail@**King Hamlet**", "<p>mail@<strong>King Hamlet</strong></p>"),
    (
        "#**Denmark**",
        '<p><a class="stream" data-stream-id="1" href="/#narrow/stream/1-Denmark">#Denmark</a></p>',
    ),
    (
        "#**core team**",
        '<p><a class="stream" data-stream-id="2" href="/#narrow/stream/2-core-team">#core team</a></p>',
    ),
    (
        "#**Denmark>some topic**",
        '<p><a class="stream-topic" data-stream-id="1" '
        'href="/#narrow/stream/1-Denmark/topic/some.20topic">#Denmark &gt; some topic</a></p>',
    ),
    ("#**Secret**", "<p>#<strong>Secret</strong></p>"),
    ("see #123 now", '<p>see <a href="https://trac.example.com/t/123">#123</a> now</p>'),
    ("see#123", "<p>see#123</p>"),
    ("#123abc", "<p>#123abc</p>"),
    (
        "zulip/zulip#42",
        '<p><a href="https://github.com/zulip/zulip/pull/42">zulip/zulip#42</a></p>',
    ),
    ("`#123`", "<p><code>#123</code></p>"),
    (
        "[x](https://a.example.com) #1",
        '<p><a href="https://a.example.com">x</a> <a href="https://trac.example.com/t/1">#1</a></p>',
    ),
    (
        ":green_tick:",
        '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/1.png" '
        'title="green tick"></p>',
    ),
    (
        "<time:2017-06-05T22:30:00+02:00>",
        '<p><time datetime="2017-06-05T20:30:00Z">2017-06-05T22:30:00+02:00</time></p>',
    ),
    ("$$x^2$$", '<p><span class="tex-error">$$x^2$$</span></p>'),
    ("```math\nx < 1\n```", '<p><span class="tex-error">x &lt; 1</span></p>'),
    (
        "```spoiler Plot\n**twist**\n```",
        '<div class="spoiler-block"><div class="spoiler-header">\n<p>Plot</p>\n</div>'
        '<div class="spoiler-content" aria-hidden="true">\n<p><strong>twist</strong></p>\n</div></div>',
    ),
    (
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_construct(text: str, expected: str) -> None:
    assert html(text) == expected


def test_mentions_are_reported() -> None:
    result = render_markdown("@**King Hamlet** @_**Othello** @*support* @**all**", CTX)
    assert result.mentioned_user_ids == {10}
    assert result.mentioned_group_ids == {3}
    assert result.stream_wildcard_mentioned
    assert not result.topic_wildcard_mentioned


def test_silent_wildcards_notify_nobody() -> None:
    result = render_markdown("@_**all** @_**topic**", CTX)
    assert not result.stream_wildcard_mentioned and not result.topic_wildcard_mentioned
    assert render_markdown("@**topic**", CTX).topic_wildcard_mentioned


def test_deactivated_user_mention_is_silent() -> None:
    result = render_markdown("@**Old Ghost**", CTX)
    assert (
        result.html == '<p><span class="user-mention silent" data-user-id="12">Old Ghost</span></p>'
    )
    assert result.mentioned_user_ids == set()


def test_mentions_in_quotes_are_silenced() -> None:
    result = render_markdown("> @**King Hamlet** and @*support*", CTX)
    assert result.mentioned_user_ids == set() and result.mentioned_group_ids == set()
    assert 'class="user-mention silent"' in result.html
    assert 'class="user-group-mention silent"' in result.html


def test_mentions_in_code_are_not_mentions() -> None:
    result = render_markdown("`@**King Hamlet**`\n\n```\n@**Othello**\n```", CTX)
    assert result.mentioned_user_ids == set()


def test_me_message() -> None:
    assert render_markdown("/me is away", CTX).is_me_message
    assert render_markdown("/me is away\nreally", CTX).is_me_message  # multi-line too (Zulip 7)
    assert not render_markdown("I /me", CTX).is_me_message
    assert render_markdown("/me is away", CTX).html == "<p>/me is away</p>"


def test_linkifier_template_is_rfc6570() -> None:
    ctx = RenderContext(
        linkifiers=[
            Linkifier(
                id=1,
                pattern=r"doc:(?P<path>[a-z/]+)",
                url_template="https://docs.example.com/{+path}{?q}",
            )
        ]
    )
    assert html("see doc:a/b", ctx) == (
        '<p>see <a href="https://docs.example.com/a/b">doc:a/b</a></p>'
    )


def test_broken_linkifier_is_skipped(caplog: pytest.LogCaptureFixture) -> None:
    ctx = RenderContext(linkifiers=[Linkifier(id=1, pattern=r"(?P<x>[", url_template="{x}")])
    with caplog.at_level(logging.WARNING):
        assert html("hello #1", ctx) == "<p>hello #1</p>"


def test_topic_links() -> None:
    links = render_topic_links("fix #123 and zulip/zulip#42, see example.com/x", CTX)
    assert links == [
        {"url": "https://trac.example.com/t/123", "text": "#123"},
        {"url": "https://github.com/zulip/zulip/pull/42", "text": "zulip/zulip#42"},
        {"url": "https://example.com/x", "text": "example.com/x"},
    ]


def test_stream_description_has_no_image_previews() -> None:
    text = "logo: https://example.com/a.png #**Denmark**"
    assert "message_inline_image" in html(text)
    rendered = render_stream_description(text, CTX)
    assert "message_inline_image" not in rendered
    assert 'class="stream"' in rendered


def test_image_previews_follow_the_realm_setting() -> None:
    ctx = RenderContext(inline_image_preview=False)
    assert "message_inline_image" not in html("https://example.com/a.png", ctx)


def test_video_previews_need_a_proxy() -> None:
    # Without Camo the readers' browsers would fetch the video from the sender's host.
    url = "https://example.com/clip.webm"
    assert html(url, RenderContext()) == f'<p><a href="{url}">{url}</a></p>'
    proxied = RenderContext(camo_uri="https://camo.example/", camo_key="k")
    assert html(url, proxied).startswith(
        '<div class="message_inline_image message_inline_video"><a href="https://example.com/'
    )
    assert 'src="https://camo.example/' in html(url, proxied)
    assert "video" not in html(url, RenderContext(inline_image_preview=False))


def test_an_internal_error_renders_escaped_text(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def boom(content: str, ctx: RenderContext) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(engine_module, "convert", boom)
    with caplog.at_level(logging.ERROR):
        result = render_markdown("<b>secret words</b>\nline", CTX)
    assert result.failed
    assert result.html == "<p>&lt;b&gt;secret words&lt;/b&gt;<br>\nline</p>"
    # The log shows the message's shape, never its words.
    assert "secret" not in caplog.text and "xxxxxx" in caplog.text


def test_unsafe_output_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    def unsafe(content: str, ctx: RenderContext) -> object:
        return engine_module.RenderResult(html='<p onclick="x()">hi</p>')

    monkeypatch.setattr(engine_module, "convert", unsafe)
    result = render_markdown("hi", CTX)
    assert result.failed and result.html == "<p>hi</p>"


def test_engine_is_reused_per_linkifier_set() -> None:
    first = engine_module.get_engine(CTX.linkifier_key)
    render_markdown("a", CTX)
    assert engine_module.get_engine(CTX.linkifier_key) is first
    assert engine_module.get_engine(()) is not first

"""`[[wiki links]]` in chat messages: rendered as links to the wiki, blue or red as the page
exists when the message is rendered, and safe whatever the title holds."""

from __future__ import annotations

import re
import time

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.markdown import RenderContext, render_markdown
from atrium.chat.markdown.wikilinks import MAX_WIKI_LINKS, WikiTarget, wiki_link_targets
from atrium.wiki.changes.accounts import create_user
from atrium.workspace.bridge.wiki_links import resolve_titles
from tests.bridge.conftest import WorkspaceHarness, wiki_client, wiki_post
from tests.chat.conftest import assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio


async def rendered(ws: WorkspaceHarness, content: str, topic: str = "links") -> str:
    message_id = await ws.send_stream(ws.hamlet, "Verona", topic, content)
    html: str = await ws.runtime.db.read(
        lambda conn: conn.scalar(
            sa.select(schema.message.c.rendered_content).where(schema.message.c.id == message_id)
        )
    )
    return html


async def test_links_to_existing_and_missing_pages(workspace: WorkspaceHarness) -> None:
    await workspace.make_stream("Verona", [workspace.hamlet])
    await workspace.edit_page("Meeting notes", "Agenda.")
    await workspace.edit_page("Help:Editing", "How to edit.")
    html = await rendered(
        workspace,
        "See [[Meeting notes]], [[meeting notes|the notes]], [[Help:Editing#Tables]] "
        "and [[No such page]].",
    )
    assert (
        '<a class="wiki-link" href="/wiki/Meeting_notes" title="Meeting notes">Meeting notes</a>'
        in html
    )
    assert (
        '<a class="wiki-link" href="/wiki/Meeting_notes" title="Meeting notes">the notes</a>'
        in html
    )
    assert (
        '<a class="wiki-link" href="/wiki/Help:Editing#Tables" title="Help:Editing#Tables">'
        "Help:Editing#Tables</a>" in html
    )
    assert (
        '<a class="wiki-link new" href="/w/index.php?title=No_such_page&amp;action=edit&amp;'
        'redlink=1" title="No such page (page does not exist)">No such page</a>' in html
    )


async def test_existence_is_decided_when_rendered(workspace: WorkspaceHarness) -> None:
    await workspace.make_stream("Verona", [workspace.hamlet])
    before = await rendered(workspace, "[[Later]]")
    assert 'class="wiki-link new"' in before
    await workspace.edit_page("Later", "Now it exists.")
    after = await rendered(workspace, "[[Later]]")
    assert '<a class="wiki-link" href="/wiki/Later" title="Later">Later</a>' in after
    # An edit renders again, against the wiki as it is then.
    message_id = await workspace.send_stream(workspace.hamlet, "Verona", "t", "[[Gone]]")
    await workspace.edit_page("Gone", "Created.")
    assert_json_success(
        await workspace.patch(f"/messages/{message_id}", workspace.hamlet, content="[[Gone]] !")
    )
    html = await workspace.runtime.db.read(
        lambda conn: conn.scalar(
            sa.select(schema.message.c.rendered_content).where(schema.message.c.id == message_id)
        )
    )
    assert 'class="wiki-link"' in html and "new" not in html


async def test_invalid_titles_and_code_stay_text(workspace: WorkspaceHarness) -> None:
    await workspace.make_stream("Verona", [workspace.hamlet])
    html = await rendered(
        workspace, "[[a<b]] [[{{x}}]] [[../up]] [[fr:Paris]] `[[Code]]` [[ ]] [[#only]]"
    )
    assert "wiki-link" not in html
    assert "<code>[[Code]]</code>" in html
    assert "[[a&lt;b]]" in html


async def test_hostile_labels_and_titles_are_escaped(workspace: WorkspaceHarness) -> None:
    await workspace.make_stream("Verona", [workspace.hamlet])
    html = await rendered(
        workspace,
        '[[Page|<img src=x onerror=alert(1)>]] [[Page" onmouseover="alert(1)]] '
        "[[javascript:alert(1)]] [[Page|**bold** [x](javascript:alert(1))]]",
    )
    assert "<img" not in html
    assert not [tag for tag in re.findall(r"<[^>]*>", html) if 'onmouseover="' in tag]
    assert 'href="javascript' not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    # A title with a quote: escaped inside the attribute, never closing it.
    assert 'title="Page&quot; onmouseover=&quot;alert(1) (page does not exist)"' in html
    # `javascript:` is no namespace: a page of the main namespace, on the wiki.
    assert 'href="/w/index.php?title=Javascript:alert(1)&amp;action=edit' in html


async def test_too_long_titles_stay_text(workspace: WorkspaceHarness) -> None:
    await workspace.make_stream("Verona", [workspace.hamlet])
    long_title = "A" * 300  # over MediaWiki's 255 bytes
    html = await rendered(workspace, f"[[{long_title}]] [[{'B' * 5000}]]")
    assert "wiki-link" not in html


def test_targets_are_bounded_per_message() -> None:
    content = " ".join(f"[[Page {i}]]" for i in range(1000))
    targets = wiki_link_targets(content)
    assert len(targets) == MAX_WIKI_LINKS
    # Repeats count once.
    assert wiki_link_targets("[[A]] [[A]] [[ A ]] [[B|x]]") == ["A", "B"]


async def test_many_links_resolve_in_bounded_work(workspace: WorkspaceHarness) -> None:
    await workspace.make_stream("Verona", [workspace.hamlet])
    content = " ".join(f"[[Page {i}]]" for i in range(2000))
    started = time.perf_counter()
    html = await rendered(workspace, content[:9000])
    assert time.perf_counter() - started < 5
    assert html.count('class="wiki-link new"') == MAX_WIKI_LINKS
    # Asked of the wiki: at most the bound, in one query.
    found = resolve_titles(workspace.wiki, [f"Page {i}" for i in range(MAX_WIKI_LINKS)])
    assert len(found) == MAX_WIKI_LINKS


def test_renderer_without_a_wiki_leaves_text() -> None:
    html = render_markdown("[[Meeting notes]]", RenderContext()).html
    assert html == "<p>[[Meeting notes]]</p>"
    ctx = RenderContext(wiki_links={"X": WikiTarget(title="X", href="/wiki/X", exists=True)})
    assert render_markdown("[[X]] [[Y]]", ctx).html == (
        '<p><a class="wiki-link" href="/wiki/X" title="X">X</a> [[Y]]</p>'
    )


async def test_preview_card_for_readers_of_the_wiki(workspace: WorkspaceHarness) -> None:
    await workspace.edit_page(
        "Meeting notes",
        "{{DISPLAYTITLE:x}}\n\nWe met on <b>Monday</b> & <script>alert(1)</script> agreed.\n\nMore.",
    )
    body = assert_json_success(
        await workspace.get("/atrium/wiki_preview", workspace.hamlet, title="meeting notes")
    )
    page = body["page"]
    assert page["title"] == "Meeting notes"
    assert page["url"] == "/wiki/Meeting_notes"
    assert page["extract"] == "We met on Monday & <script>alert(1)</script> agreed."
    assert page["last_edit"]["user"] == "Admin"
    assert page["last_edit"]["timestamp"]
    assert_json_error(
        await workspace.get("/atrium/wiki_preview", workspace.hamlet, title="Nowhere"),
        "No such page",
    )
    assert_json_error(
        await workspace.get("/atrium/wiki_preview", workspace.hamlet, title="a<b"), "Invalid title"
    )
    assert_json_error(
        await workspace.get("/atrium/wiki_preview", workspace.hamlet, title="x" * 301),
        "title is too long (limit: 300 characters)",
    )
    bot = await workspace.make_user("helper-bot", bot_owner=workspace.hamlet)
    workspace.wiki.site.audience = "private"
    try:
        # A member reads a private wiki as their own wiki user; a bot as anyone would.
        assert_json_success(
            await workspace.get("/atrium/wiki_preview", workspace.hamlet, title="Meeting notes")
        )
        assert_json_error(
            await workspace.get("/atrium/wiki_preview", bot, title="Meeting notes"),
            "You may not read this wiki",
            status=403,
            code="UNAUTHORIZED",
        )
    finally:
        workspace.wiki.site.audience = "edit"


async def test_preview_hides_a_hidden_author(workspace: WorkspaceHarness) -> None:
    rev = await workspace.edit_page("Plans", "Our plans.")
    await workspace.wiki.db.write(
        lambda conn: create_user(conn, "Hider", "hider-password-1", groups=["sysop", "suppress"])
    )
    async with wiki_client(workspace, "Hider", "hider-password-1") as admin:
        done = await wiki_post(
            admin,
            action="revisiondelete",
            type="revision",
            target="Plans",
            ids=str(rev),
            hide="user",
        )
        assert "revisiondelete" in done, done
    body = assert_json_success(
        await workspace.get("/atrium/wiki_preview", workspace.hamlet, title="Plans")
    )
    assert body["page"]["last_edit"]["user"] == ""

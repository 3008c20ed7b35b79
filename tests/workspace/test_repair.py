"""A member half made (a crash between the identity's stores) is completed by running the
creation again or by `atrium link-accounts`, and `link-accounts` joins the separate accounts
of a data directory made before the workspace (by email, and by a names file)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from atrium.chat.actions.users import NewUser, create_user
from atrium.chat.queries.realm import default_realm
from atrium.cli import main
from atrium.core.db import Conn
from atrium.wiki.changes.accounts import create_user as create_wiki_user
from atrium.wiki.reads.users import account_by_name
from atrium.workspace import identities, members
from atrium.workspace.cli import link_all, open_members
from tests.workspace.conftest import PASSWORD, Workspace
from tests.workspace.signing import chat_sign_in, wiki_refused, wiki_sign_in, wiki_user

pytestmark = pytest.mark.anyio


class Crash(Exception):
    pass


async def test_a_crash_before_the_wiki_user_is_repaired_by_a_rerun(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(*args: object) -> int:
        raise Crash

    with monkeypatch.context() as patch:
        patch.setattr(members, "_wiki_user", crash)
        with pytest.raises(Crash):
            await workspace.member("maya@example.com", "Maya Lin")
    # Half made: the identity and the chat user exist, the wiki name is reserved, no wiki user.
    identity = await workspace.members.core_db.read(identities.by_email, "maya@example.com")
    accounts = await workspace.members.core_db.read(identities.accounts, identity["id"])
    assert accounts["wiki"]["name"] == "Maya Lin" and accounts["wiki"]["user_id"] is None
    member = await workspace.member("maya@example.com", "Maya Lin")
    assert member.wiki_name == "Maya Lin" and member.wiki_user_id
    assert (await wiki_sign_in(workspace.client, "Maya Lin")).status_code == 302


async def test_a_crash_before_the_chat_user_is_repaired_by_link_accounts(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(*args: object) -> object:
        raise Crash

    with monkeypatch.context() as patch:
        patch.setattr(members, "_chat_user", crash)
        with pytest.raises(Crash):
            await workspace.member("maya@example.com", "Maya Lin")
    assert await workspace.members.core_db.read(identities.by_email, "maya@example.com")
    linked = await link_all(workspace.members, {})
    assert [m.wiki_name for m in linked] == ["Maya"]
    # The password given at the identity, the first store, is the one that signs in.
    assert (await chat_sign_in(workspace.client, "maya@example.com")).status_code == 303
    assert (await wiki_user(workspace.client))["name"] == "Maya"


def _old_data(data_dir: Path) -> None:
    """A data directory as the code before the workspace made it: separate accounts."""
    runner = CliRunner()
    env = {"ATRIUM_DATA_DIR": str(data_dir)}
    assert runner.invoke(main, ["chat", "create-realm", "--name", "Old"], env=env).exit_code == 0
    from atrium.core.db import open_database
    from atrium.settings import Settings
    from atrium.wiki.app import open_wiki

    settings = Settings(data_dir=data_dir, wiki_main_page=False)
    chat = open_database(None, settings.sqlite_path("chat"), "chat")

    def people(conn: Conn) -> None:
        realm = default_realm(conn)
        assert realm is not None
        for email, name in (("ann@old.example", "Ann Old"), ("bob@old.example", "Bob Old")):
            create_user(conn, realm.id, NewUser(email=email, full_name=name, password=PASSWORD))

    chat.write_sync(people)
    chat.close()
    wiki, _site = open_wiki(settings)

    def editors(conn: Conn) -> None:
        # Ann's wiki account has her email; Bob's is under another name and address.
        create_wiki_user(conn, "Annie", "annie-wiki-password", email="ANN@old.example")
        create_wiki_user(conn, "Robert", "robert-wiki-password", email="robert@elsewhere")

    wiki.write_sync(editors)
    wiki.close()


def test_link_accounts_joins_an_old_data_directory(tmp_path: Path) -> None:
    data_dir = tmp_path / "old"
    _old_data(data_dir)
    names = tmp_path / "names.txt"
    names.write_text("# email = wiki user\nbob@old.example = Robert\n")
    runner = CliRunner()
    env = {"ATRIUM_DATA_DIR": str(data_dir)}
    done = runner.invoke(main, ["link-accounts", "--names", str(names)], env=env)
    assert done.exit_code == 0, done.output
    assert "(Annie)" in done.output and "(Robert)" in done.output
    again = runner.invoke(main, ["link-accounts", "--names", str(names)], env=env)
    assert again.output == done.output
    from atrium.settings import Settings
    from atrium.wiki.app import open_wiki

    wiki, _site = open_wiki(Settings(data_dir=data_dir, wiki_main_page=False))
    try:
        assert wiki.read_sync(account_by_name, "Ann Old") is None  # no second account made
    finally:
        wiki.close()


async def test_old_accounts_sign_in_with_the_chat_password(
    tmp_path: Path, sqlite_templates: Path
) -> None:
    import httpx

    from atrium.server import create_app
    from atrium.settings import Settings

    data_dir = tmp_path / "old"
    _old_data(data_dir)
    settings = Settings(data_dir=data_dir, wiki_main_page=False)
    async with open_members(settings) as found:
        await link_all(found, {})
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            assert wiki_refused(await wiki_sign_in(client, "Annie", "annie-wiki-password"))
            assert (await wiki_sign_in(client, "Annie")).status_code == 302
            assert (await client.get("/json/users/me")).json()["email"] == "ann@old.example"


async def test_a_name_registered_meanwhile_is_never_adopted(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(*args: object) -> int:
        raise Crash

    with monkeypatch.context() as patch:
        patch.setattr(members, "_wiki_user", crash)
        with pytest.raises(Crash):
            await workspace.member("maya@example.com", "Maya Lin")
    # Someone else registers the reserved name before the rerun.
    wiki_db = workspace.members.wiki_db()
    assert wiki_db is not None
    await wiki_db.write(
        lambda conn: create_wiki_user(conn, "Maya Lin", "intruder-pass-1", email="x@evil.example")
    )
    member = await workspace.member("maya@example.com", "Maya Lin")
    assert member.wiki_name == "Maya Lin 2"
    assert wiki_refused(await wiki_sign_in(workspace.client, "Maya Lin"))
    assert (await wiki_sign_in(workspace.client, "Maya Lin 2")).status_code == 302


def test_no_linking_by_email_where_anyone_registers(tmp_path: Path) -> None:
    data_dir = tmp_path / "old"
    _old_data(data_dir)
    env = {"ATRIUM_DATA_DIR": str(data_dir), "ATRIUM_WIKI_AUDIENCE": "edit"}
    done = CliRunner().invoke(main, ["link-accounts"], env=env)
    assert done.exit_code == 0, done.output
    # Anyone could have given Ann's email to "Annie": she gets an account of her own.
    assert "(Ann Old)" in done.output and "(Annie)" not in done.output

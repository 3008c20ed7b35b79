"""Mail through a real SMTP server (aiosmtpd on loopback) from a real `atrium serve`: each kind
of mail arrives with its recipient, subject and link, and the link does what it says; a mail
server that goes away loses nothing; and `kill -9` of the server before the claim, after it,
and after the mail server's 250 before the row is marked loses nothing either (a repeat carries
the same Message-ID)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from atrium.chat import schema as chat_schema
from atrium.core.db import Conn, open_database
from atrium.settings import Settings
from atrium.wiki.app import open_wiki
from atrium.wiki.changes.accounts import set_email
from atrium.wiki.reads.users import account_by_name
from tests.conftest import PostgresServer, free_port, require_redis
from tests.e2e.browser_server import BrowserServer, connected_browser
from tests.e2e.seed import (
    ChatUser,
    chat_write,
    create_chat_realm,
    create_wiki_users,
    prepare_data_dir,
)
from tests.e2e.server import LiveServer, atrium_env, running_server
from tests.mail_server import SmtpServer, link_in, text_part

pytestmark = pytest.mark.e2e

OWNER, OWNER_PASSWORD = "owner@mail.test", "owner-pw-1"
WIKI_USER, WIKI_PASSWORD = "Mailer", "mailer-password-1"
# The browser test's own accounts (a reset link or temporary password is rationed per account).
BROWSER_CHAT_USER, BROWSER_WIKI_USER = "browser@mail.test", "Browsy"
AWAY = "away@mail.test"
READY = "/w/api.php?action=query&meta=siteinfo&format=json"


@dataclass
class Site:
    server: LiveServer
    smtp: SmtpServer
    env: dict[str, str]

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.server.url, timeout=30)


def _seed_chat(settings: Settings) -> None:
    create_chat_realm(
        settings,
        "Mail Test",
        [
            ChatUser(OWNER, "Olive Owner", password=OWNER_PASSWORD, role="owner"),
            ChatUser(BROWSER_CHAT_USER, "Bea Browser", password="browser-pw-1"),
            ChatUser(AWAY, "Avery Away", password="away-pw-1"),
        ],
    )
    # Avery's missed-message mails come a second after the message, not two minutes.
    chat_write(settings, _short_batching, AWAY)


def _seed(data_dir: Path, sqlite_templates: Path) -> None:
    settings = prepare_data_dir(data_dir, None, sqlite_templates)
    _seed_chat(settings)
    create_wiki_users(
        settings, [(WIKI_USER, WIKI_PASSWORD, []), (BROWSER_WIKI_USER, "browsy-password-1", [])]
    )
    db, _site = open_wiki(settings)
    try:
        for name, address in (
            (WIKI_USER, "mailer@mail.test"),
            (BROWSER_WIKI_USER, "browsy@mail.test"),
        ):
            account = db.read_sync(account_by_name, name)
            assert account is not None
            db.write_sync(set_email, account.id, address)
    finally:
        db.close()


def _short_batching(conn: Conn, email: str) -> None:
    user = chat_schema.user
    conn.execute(
        sa.update(user)
        .where(user.c.delivery_email == email)
        .values(email_notifications_batching_period_seconds=1)
    )


def _env(data_dir: Path, smtp: SmtpServer, **extra: str) -> dict[str, str]:
    return atrium_env(
        data_dir,
        None,
        ATRIUM_SMTP_HOST="127.0.0.1",
        ATRIUM_SMTP_PORT=str(smtp.port),
        ATRIUM_SMTP_SECURITY="none",
        # A dead sender's claim passes to the next one after this long.
        ATRIUM_MAIL_CLAIM_SECONDS="2",
        **extra,
    )


@pytest.fixture(scope="module")
def smtp() -> Iterator[SmtpServer]:
    server = SmtpServer(free_port())
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory, smtp: SmtpServer, sqlite_templates: Path
) -> Iterator[Site]:
    data_dir = tmp_path_factory.mktemp("mail") / "atrium-data"
    data_dir.mkdir()
    _seed(data_dir, sqlite_templates)
    env = _env(data_dir, smtp)
    with running_server(env, READY) as server:
        yield Site(server, smtp, env)


def _csrf(page: httpx.Response) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert match is not None, page.text
    return match.group(1)


def _path(link: str) -> str:
    return re.sub(r"^https?://[^/]+", "", link)


def _api_key(client: httpx.Client, email: str, password: str) -> str:
    response = client.post("/api/v1/fetch_api_key", data={"username": email, "password": password})
    assert response.status_code == 200, response.text
    return str(response.json()["api_key"])


def _wait_tried(env: dict[str, str], addresses: list[str], timeout: float = 20) -> None:
    """Until the sender has tried every mail to `addresses` once and failed (the mail server is
    away): each row unsent, with an attempt counted and no claim held."""
    data_dir = Path(env["ATRIUM_DATA_DIR"])
    db = open_database(env.get("ATRIUM_DATABASE_URL"), data_dir / "chat.sqlite3", "chat")
    c = chat_schema.mail_outbox.c

    def failed(conn: Conn) -> int:
        query = sa.select(sa.func.count()).where(
            c.recipient.in_(addresses),
            c.sent.is_(None),
            c.attempts >= 1,
            c.claimed_until.is_(None),
        )
        return int(conn.scalar(query) or 0)

    try:
        _wait(lambda: db.read_sync(failed) == len(addresses), "every mail tried once", timeout)
    finally:
        db.close()


def _invite(site: Site, emails: list[str]) -> None:
    with site.client() as client:
        auth = (OWNER, _api_key(client, OWNER, OWNER_PASSWORD))
        created = client.post(
            "/api/v1/users/me/subscriptions",
            data={"subscriptions": '[{"name": "welcome"}]'},
            auth=auth,
        )
        assert created.status_code == 200, created.text
        stream_id = client.get("/api/v1/get_stream_id", params={"stream": "welcome"}, auth=auth)
        response = client.post(
            "/api/v1/invites",
            data={
                "invitee_emails": ",".join(emails),
                "stream_ids": f"[{stream_id.json()['stream_id']}]",
            },
            auth=auth,
        )
        assert response.status_code == 200, response.text


def test_a_chat_password_reset_arrives_and_its_link_sets_the_password(site: Site) -> None:
    with site.client() as client:
        form = client.get("/accounts/password/reset/")
        sent = client.post(
            "/accounts/password/reset/", data={"email": OWNER, "csrf_token": _csrf(form)}
        )
        assert sent.status_code == 303
        [mail] = site.smtp.inbox.wait_for(OWNER)
        assert mail["Subject"] == "Reset your password for Mail Test"
        assert mail["Reply-To"].startswith("noreply@")
        link = _path(link_in(mail, r"https?://\S+/accounts/password/reset/\S+/"))
        page = client.get(link)
        done = client.post(
            link,
            data={
                "new_password1": "reset-pw-22",
                "new_password2": "reset-pw-22",
                "csrf_token": _csrf(page),
            },
        )
        assert done.status_code == 200 and "Password reset complete" in done.text
        assert client.get(link).status_code == 404  # used up
        assert _api_key(client, OWNER, "reset-pw-22")
    # Back to the password the other tests use.
    _reset_chat_password(site)


def _reset_chat_password(site: Site) -> None:
    before = len(site.smtp.inbox.to(OWNER))
    with site.client() as client:
        form = client.get("/accounts/password/reset/")
        client.post("/accounts/password/reset/", data={"email": OWNER, "csrf_token": _csrf(form)})
        mail = site.smtp.inbox.wait_for(OWNER, before + 1)[-1]
        link = _path(link_in(mail, r"https?://\S+/accounts/password/reset/\S+/"))
        page = client.get(link)
        client.post(
            link,
            data={
                "new_password1": OWNER_PASSWORD,
                "new_password2": OWNER_PASSWORD,
                "csrf_token": _csrf(page),
            },
        )


def test_an_invitation_arrives_and_its_link_signs_up(site: Site) -> None:
    _invite(site, ["newcomer@mail.test"])
    [mail] = site.smtp.inbox.wait_for("newcomer@mail.test")
    assert mail["Subject"] == "Olive Owner invited you to join Mail Test"
    link = _path(link_in(mail, r"https?://\S+/join/\S+/"))
    with site.client() as client:
        page = client.get(link)
        assert page.status_code == 200 and "Join Mail Test" in page.text
        created = client.post(
            link,
            data={"full_name": "New Comer", "password": "newcomer-pw", "csrf_token": _csrf(page)},
        )
        assert created.status_code == 200 and "Welcome to Mail Test" in created.text
        assert _api_key(client, "newcomer@mail.test", "newcomer-pw")


def test_a_wiki_password_reset_arrives_and_its_password_signs_in(site: Site) -> None:
    with site.client() as client:
        form = client.get("/w/index.php?title=Special:PasswordReset")
        token = re.search(r'name="wpEditToken" value="([^"]+)"', form.text)
        assert token is not None
        client.post(
            "/w/index.php?title=Special:PasswordReset",
            data={"wpUsername": WIKI_USER, "wpEditToken": token.group(1)},
        )
        [mail] = site.smtp.inbox.wait_for("mailer@mail.test")
        assert mail["Subject"] == "Account details on Atrium Wiki"
        temporary = re.search(r"Temporary password:\n(\S+)", text_part(mail))
        assert temporary is not None
        login = client.get("/w/index.php?title=Special:UserLogin")
        login_token = re.search(r'value="([^"]+)" name="wpLoginToken"', login.text)
        assert login_token is not None
        fields = {
            "wpName": WIKI_USER,
            "wpPassword": temporary.group(1),
            "wpLoginToken": login_token.group(1),
        }
        asked = client.post("/w/index.php?title=Special:UserLogin", data=fields)
        assert "temporary emailed code" in asked.text
        done = client.post(
            "/w/index.php?title=Special:UserLogin",
            data={
                **fields,
                "wpResetPass": "1",
                "password": "new-wiki-pw-9",
                "retype": "new-wiki-pw-9",
            },
        )
        assert done.status_code == 302
        me = client.get(
            "/w/api.php", params={"action": "query", "meta": "userinfo", "format": "json"}
        )
        assert me.json()["query"]["userinfo"]["name"] == WIKI_USER


def test_a_missed_message_arrives_and_its_unsubscribe_link_works_signed_out(site: Site) -> None:
    with site.client() as client:
        auth = (OWNER, _api_key(client, OWNER, OWNER_PASSWORD))
        sent = client.post(
            "/api/v1/messages",
            data={"type": "direct", "to": f'["{AWAY}"]', "content": "Are you there?"},
            auth=auth,
        )
        assert sent.status_code == 200, sent.text
        [mail] = site.smtp.inbox.wait_for(AWAY, timeout=30)
        assert mail["Subject"] == "DMs with Olive Owner"
        assert "Are you there?" in text_part(mail)
        assert "/#narrow/dm/" in text_part(mail)
        unsubscribe = _path(mail["List-Unsubscribe"].strip("<>"))
        assert client.get(unsubscribe).status_code == 200
        away = (AWAY, _api_key(client, AWAY, "away-pw-1"))
        state = client.post(
            "/api/v1/register", data={"fetch_event_types": '["user_settings"]'}, auth=away
        )
        assert state.json()["user_settings"]["enable_offline_email_notifications"] is False


def test_a_wiki_confirmation_mail_confirms_and_email_user_arrives(site: Site) -> None:
    with site.client() as client:
        login = client.get("/w/index.php?title=Special:UserLogin")
        token = re.search(r'value="([^"]+)" name="wpLoginToken"', login.text)
        assert token is not None
        signed = client.post(
            "/w/index.php?title=Special:UserLogin",
            data={"wpName": WIKI_USER, "wpPassword": WIKI_PASSWORD, "wpLoginToken": token.group(1)},
        )
        if signed.status_code != 302:  # the password reset test changed it
            signed = client.post(
                "/w/index.php?title=Special:UserLogin",
                data={
                    "wpName": WIKI_USER,
                    "wpPassword": "new-wiki-pw-9",
                    "wpLoginToken": token.group(1),
                },
            )
        assert signed.status_code == 302
        page = client.get("/wiki/Special:ConfirmEmail")
        edit_token = re.search(r'name="wpEditToken" value="([^"]+)"', page.text)
        assert edit_token is not None
        before = len(site.smtp.inbox.to("mailer@mail.test"))
        client.post(
            "/w/index.php?title=Special:ConfirmEmail", data={"wpEditToken": edit_token.group(1)}
        )
        mail = site.smtp.inbox.wait_for("mailer@mail.test", before + 1)[-1]
        assert mail["Subject"] == "Atrium Wiki email address confirmation"
        link = _path(link_in(mail, r"https?://\S+/wiki/Special:ConfirmEmail/\w+"))
        assert "has now been confirmed" in client.get(link).text
        info = client.get(
            "/w/api.php",
            params={"action": "query", "meta": "userinfo", "uiprop": "email", "format": "json"},
        ).json()["query"]["userinfo"]
        assert "emailauthenticated" in info
        # Confirmed, the user may write to another confirmed user: to themselves, with a copy.
        tokens = client.get(
            "/w/api.php", params={"action": "query", "meta": "tokens", "format": "json"}
        ).json()
        result = client.post(
            "/w/api.php",
            data={
                "action": "emailuser",
                "target": WIKI_USER,
                "subject": "Note to self",
                "text": "Remember the milk",
                "token": tokens["query"]["tokens"]["csrftoken"],
                "format": "json",
            },
        ).json()
        assert result == {"emailuser": {"result": "Success"}}
        arrived = site.smtp.inbox.wait_for("mailer@mail.test", before + 2)[-1]
        assert arrived["Subject"] == "Note to self"
        assert arrived["Reply-To"] == "mailer@mail.test"


def test_a_mail_server_that_goes_away_loses_nothing(site: Site) -> None:
    addresses = [f"burst{i}@mail.test" for i in range(12)]
    site.smtp.stop()
    try:
        _invite(site, addresses[:6])
        _invite(site, addresses[6:])
        _wait_tried(site.env, addresses)  # the sender tries, fails, and waits to try again
        assert not any(site.smtp.inbox.to(a) for a in addresses)
    finally:
        site.smtp.start()
    for address in addresses:
        arrived = site.smtp.inbox.wait_for(address, timeout=40)
        assert len({m["Message-ID"] for m in arrived}) == 1


# --- PostgreSQL: `atrium serve --workers 2`, each worker with its sender ---------------------

REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture(scope="module")
def scale_out_site(
    tmp_path_factory: pytest.TempPathFactory, smtp: SmtpServer, postgres_server: PostgresServer
) -> Iterator[Site]:
    """The scale-out deployment: two workers drain the one outbox, claiming with SKIP LOCKED."""
    require_redis(REDIS_URL)
    url = postgres_server.new_database("chat")
    data_dir = tmp_path_factory.mktemp("mail-pg") / "atrium-data"
    data_dir.mkdir()
    _seed_chat(prepare_data_dir(data_dir, url, None))
    env = _env(
        data_dir, smtp, ATRIUM_SERVICES="chat", ATRIUM_DATABASE_URL=url, ATRIUM_REDIS_URL=REDIS_URL
    )
    try:
        with running_server(
            env, "/api/v1/server_settings", serve_args=("--workers", "2")
        ) as server:
            yield Site(server, smtp, env)
    finally:
        postgres_server.drop(url)


@pytest.mark.postgres
def test_two_workers_on_postgres_deliver_each_mail_once(scale_out_site: Site) -> None:
    addresses = [f"pg-drain{i}@mail.test" for i in range(10)]
    _invite(scale_out_site, addresses[:5])
    _invite(scale_out_site, addresses[5:])
    smtp = scale_out_site.smtp
    for address in addresses:
        smtp.inbox.wait_for(address, timeout=40)
    time.sleep(1.5)  # time enough for a second copy, were both workers to claim one row
    for address in addresses:
        assert len(smtp.inbox.to(address)) == 1, address
    # A missed-message mail, written by whichever worker's mailer, arrives once too. (The
    # module's other site mails the same address.)
    before = len(smtp.inbox.to(AWAY))
    with scale_out_site.client() as client:
        auth = (OWNER, _api_key(client, OWNER, OWNER_PASSWORD))
        sent = client.post(
            "/api/v1/messages",
            data={"type": "direct", "to": f'["{AWAY}"]', "content": "On PostgreSQL?"},
            auth=auth,
        )
        assert sent.status_code == 200, sent.text
    mail = smtp.inbox.wait_for(AWAY, before + 1, timeout=30)[-1]
    assert "On PostgreSQL?" in text_part(mail)
    time.sleep(1.5)
    assert len(smtp.inbox.to(AWAY)) == before + 1


@pytest.mark.postgres
def test_on_postgres_a_mail_server_that_goes_away_loses_nothing(scale_out_site: Site) -> None:
    addresses = [f"pg-burst{i}@mail.test" for i in range(8)]
    smtp = scale_out_site.smtp
    smtp.stop()
    try:
        _invite(scale_out_site, addresses[:4])
        _invite(scale_out_site, addresses[4:])
        _wait_tried(scale_out_site.env, addresses)  # tried, failed: each waits to try again
        assert not any(smtp.inbox.to(a) for a in addresses)
    finally:
        smtp.start()
    for address in addresses:
        arrived = smtp.inbox.wait_for(address, timeout=40)
        assert len({m["Message-ID"] for m in arrived}) == 1


@pytest.fixture(scope="module")
def browser(site: Site, browser_server: BrowserServer) -> Iterator[Any]:
    with connected_browser(browser_server) as connected:
        yield connected


def test_forgot_your_password_in_the_chat_browser(site: Site, browser: Any) -> None:
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(site.server.url + "/login")
        page.click("#forgot-password")
        page.fill("#reset-email", BROWSER_CHAT_USER)
        page.click("#reset-submit")
        page.wait_for_selector("text=Check your email")
        [mail] = site.smtp.inbox.wait_for(BROWSER_CHAT_USER)
        page.goto(
            site.server.url + _path(link_in(mail, r"https?://\S+/accounts/password/reset/\S+/"))
        )
        page.fill("#new-password", "browser-new-pw")
        page.fill("#new-password-again", "browser-new-pw")
        page.click("#set-password-submit")
        page.wait_for_selector("text=Password reset complete")
        page.click("#reset-sign-in")
        page.fill("#login-email", BROWSER_CHAT_USER)
        page.fill("#login-password", "browser-new-pw")
        page.click("#login-submit")
        page.wait_for_load_state()
        assert page.locator("#login-submit").count() == 0  # past the sign-in page
        assert any(c["name"].endswith("atrium_session") for c in context.cookies())
    finally:
        context.close()


def test_an_emailed_invitation_accepted_in_the_browser(site: Site, browser: Any) -> None:
    _invite(site, ["browser-invitee@mail.test"])
    [mail] = site.smtp.inbox.wait_for("browser-invitee@mail.test")
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(site.server.url + _path(link_in(mail, r"https?://\S+/join/\S+/")))
        assert page.input_value("#email") == "browser-invitee@mail.test"
        page.fill("#full_name", "Ivy Invitee")
        page.fill("#password", "ivy-password")
        page.click("button[type=submit]")
        page.wait_for_selector("text=Welcome to Mail Test, Ivy Invitee!")
    finally:
        context.close()
    with site.client() as client:
        assert _api_key(client, "browser-invitee@mail.test", "ivy-password")


def test_forgot_your_password_in_the_wiki_browser(site: Site, browser: Any) -> None:
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(site.server.url + "/wiki/Special:UserLogin")
        page.click("#mw-userlogin-resetpassword")
        page.fill("#mw-input-wpUsername", BROWSER_WIKI_USER)
        page.click("#mw-passwordreset-submit")
        page.wait_for_selector("text=You have requested a password reset.")
        [mail] = site.smtp.inbox.wait_for("browsy@mail.test")
        temporary = re.search(r"Temporary password:\n(\S+)", text_part(mail))
        assert temporary is not None
        page.goto(site.server.url + "/wiki/Special:UserLogin")
        page.fill("#wpName1", BROWSER_WIKI_USER)
        page.fill("#wpPassword1", temporary.group(1))
        page.click("#wpLoginAttempt")
        page.wait_for_selector("text=You logged in with a temporary emailed code.")
        page.fill("#mw-input-password", "browsy-new-password")
        page.fill("#mw-input-retype", "browsy-new-password")
        page.click("#mw-resetpass-submit")
        page.wait_for_selector("#pt-userpage")
        assert BROWSER_WIKI_USER in page.inner_text("#pt-userpage")
    finally:
        context.close()


# kill -9 of the server at each step of a send. Each test starts its own server twice (about
# 25 s on a busy machine): the normal suite runs the kill after the 250, `make fuzz` all three.
EVERY_KILL = int(os.environ.get("ATRIUM_CRASH_CYCLES") or 2) > 2
under_fuzz = pytest.mark.skipif(not EVERY_KILL, reason="run by make fuzz")


@pytest.fixture(
    params=["sqlite", pytest.param("postgres", marks=[under_fuzz, pytest.mark.postgres])]
)
def crash_env(
    request: pytest.FixtureRequest, tmp_path: Path, smtp: SmtpServer, sqlite_templates: Path
) -> Iterator[dict[str, str]]:
    """A chat server's environment on SQLite, or (under `make fuzz`) on a PostgreSQL database
    of its own, where the sender claims with SKIP LOCKED."""
    data_dir = tmp_path / "atrium-data"
    data_dir.mkdir()
    if request.param == "sqlite":
        _seed(data_dir, sqlite_templates)
        yield _env(data_dir, smtp, ATRIUM_SERVICES="chat")
        return
    postgres: PostgresServer = request.getfixturevalue("postgres_server")
    url = postgres.new_database("chat")
    try:
        _seed_chat(prepare_data_dir(data_dir, url, None))
        yield _env(data_dir, smtp, ATRIUM_SERVICES="chat", ATRIUM_DATABASE_URL=url)
    finally:
        postgres.drop(url)


def _backend(env: dict[str, str]) -> str:
    """A part for the crash tests' addresses: the module's one mail server serves both backends'
    runs, and each run counts the mails of its own addresses."""
    return "postgres" if "ATRIUM_DATABASE_URL" in env else "sqlite"


def _wait(event_happened: Callable[[], bool], what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not event_happened():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _all_arrive_after_restart(
    env: dict[str, str], smtp: SmtpServer, addresses: list[str], twice: str | None = None
) -> dict[str, list[str]]:
    """Start the server again and wait for every address's mail (two for `twice`, whose first
    arrived before the kill); their Message-IDs."""
    with running_server(env, "/api/v1/server_settings") as server:
        arrived = {
            a: smtp.inbox.wait_for(a, count=2 if a == twice else 1, timeout=40) for a in addresses
        }
        server.kill()
    ids = {a: [str(m["Message-ID"]) for m in mails] for a, mails in arrived.items()}
    for address, found in ids.items():
        assert len(set(found)) == 1, (address, found)  # a repeat is the same message
    return ids


@pytest.mark.crash
@under_fuzz
def test_kill_before_the_claim_loses_nothing(crash_env: dict[str, str], smtp: SmtpServer) -> None:
    addresses = [f"before{i}-{_backend(crash_env)}@mail.test" for i in range(4)]
    with running_server(crash_env, "/api/v1/server_settings") as server:
        smtp.stop()
        try:
            _invite(Site(server, smtp, crash_env), addresses)
            # Tried, failed: the rows wait, unclaimed, for their next try.
            _wait_tried(crash_env, addresses)
            server.kill()
        finally:
            smtp.start()
    assert not any(smtp.inbox.to(a) for a in addresses)
    _all_arrive_after_restart(crash_env, smtp, addresses)


@pytest.mark.crash
@under_fuzz
def test_kill_after_the_claim_loses_nothing(crash_env: dict[str, str], smtp: SmtpServer) -> None:
    addresses = [f"claimed{i}-{_backend(crash_env)}@mail.test" for i in range(4)]
    smtp.inbox.held.clear()
    smtp.inbox.hold.set()
    try:
        with running_server(crash_env, "/api/v1/server_settings") as server:
            _invite(Site(server, smtp, crash_env), addresses)
            _wait(smtp.inbox.held.is_set, "the sender to claim and start sending")
            server.kill()
    finally:
        smtp.inbox.hold.clear()
    assert not any(smtp.inbox.to(a) for a in addresses)
    _all_arrive_after_restart(crash_env, smtp, addresses)


@pytest.mark.crash
def test_kill_after_250_before_the_mark_sends_again(
    crash_env: dict[str, str], smtp: SmtpServer
) -> None:
    addresses = [f"accepted{i}-{_backend(crash_env)}@mail.test" for i in range(4)]
    killed: list[bool] = []
    with running_server(crash_env, "/api/v1/server_settings") as server:

        def kill() -> None:
            server.kill()
            killed.append(True)

        smtp.inbox.before_next = kill
        _invite(Site(server, smtp, crash_env), addresses)
        _wait(lambda: bool(killed), "the kill after the first 250")
    first = [a for a in addresses if smtp.inbox.to(a)]
    assert len(first) == 1  # accepted once before the kill, never marked sent
    ids = _all_arrive_after_restart(crash_env, smtp, addresses, twice=first[0])
    assert len(ids[first[0]]) == 2  # sent again after the restart, as the same message

"""Password guessing on the wiki: every path that checks a password (action=login with main and
bot passwords, action=clientlogin, Special:UserLogin, the forms that ask the current password)
shares MediaWiki's
`$wgPasswordAttemptThrottle`, counts failures only, hashes in the worker pool, and spends the
same argon2 verification on an unknown name as on a known one."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from atrium.core import secrets, workers
from atrium.wiki.reads import password_check
from atrium.wiki.reads.users import account_by_name, password_hash
from tests.wiki.conftest import PASSWORDS, WikiHarness
from tests.wiki.web_forms import hidden, sign_in

pytestmark = pytest.mark.anyio


@pytest.fixture
def service_under_test() -> str:
    return "wiki"


async def _login(wiki: WikiHarness, client: httpx.AsyncClient, name: str, password: str) -> Any:
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    data = await wiki.post(client, action="login", lgname=name, lgpassword=password, lgtoken=token)
    return data["login"]


async def _clientlogin(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str, password: str
) -> Any:
    token = (await wiki.api(client, action="query", meta="tokens", type="login"))["query"][
        "tokens"
    ]["logintoken"]
    data = await wiki.post(
        client,
        action="clientlogin",
        username=name,
        password=password,
        logintoken=token,
        loginreturnurl="http://127.0.0.1:8080/",
    )
    return data["clientlogin"]


async def test_action_login_guessing_is_throttled_even_for_the_right_password(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    reasons = [(await _login(wiki, client, "Admin", f"wrong{i}"))["reason"] for i in range(30)]
    assert all(r.startswith("Incorrect username or password") for r in reasons[:5]), reasons[:5]
    assert all("too many recent login attempts" in r for r in reasons[5:]), reasons[5:]
    right = await _login(wiki, client, "Admin", PASSWORDS["Admin"])
    assert right["result"] == "Failed"
    assert right["reason"] == (
        "You have made too many recent login attempts. Please wait 5 minutes before trying again."
    )
    # The form shares the count: the same name from the same address is throttled there too.
    form = await sign_in(client, "Admin")
    # AuthManager's refusal on the form, at 200 as MediaWiki 1.39 (no session either).
    assert form.status_code == 200 and "too many recent login attempts" in form.text
    assert "atrium_session" not in client.cookies


async def test_clientlogin_guessing_is_throttled(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    for i in range(12):
        answer = await _clientlogin(wiki, client, "Alice", f"wrong{i}")
        assert answer["status"] == "FAIL"
    right = await _clientlogin(wiki, client, "Alice", PASSWORDS["Alice"])
    assert right["status"] == "FAIL" and right["messagecode"] == "login-throttled", right
    assert "Please wait 5 minutes" in right["message"]


async def test_bot_password_guessing_is_throttled_apart_from_the_main_password(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    for i in range(5):
        assert (await _login(wiki, client, "Robot@tests", f"guess{i}"))["result"] == "Failed"
    right = await _login(wiki, client, "Robot@tests", wiki.bot_password)
    assert right["result"] == "Failed" and "too many recent login attempts" in right["reason"]
    # Keyed by `name@app`: the account's own password still works.
    assert (await _login(wiki, client, "Robot", PASSWORDS["Robot"]))["result"] == "Success"


async def test_successful_sign_ins_are_not_counted(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    for _ in range(6):
        assert (await _login(wiki, client, "Alice", PASSWORDS["Alice"]))["result"] == "Success"
    for _ in range(6):
        assert (await sign_in(client, "Alice")).status_code == 302
    wrong = await _login(wiki, client, "Alice", "wrong")
    assert wrong["reason"].startswith("Incorrect username or password")


async def test_unknown_names_cost_the_same_verification(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    dummy: list[str] = []

    def spy(password: str) -> bool:
        dummy.append(password)
        return secrets.verify_dummy_password(password)

    monkeypatch.setattr(password_check, "verify_dummy_password", spy)
    assert (await _login(wiki, client, "Nobody here", "guess-1"))["result"] == "Failed"
    assert (await _clientlogin(wiki, client, "Nobody here", "guess-2"))["status"] == "FAIL"
    refused = await sign_in(client, "Nobody here", "guess-3")
    assert refused.status_code == 200 and "Incorrect username or password" in refused.text
    assert dummy == ["guess-1", "guess-2", "guess-3"]


async def test_passwords_are_verified_in_the_worker_pool(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[str] = []
    real_run = workers.run

    async def spy(fn: Any, *args: object) -> Any:
        ran.append(fn.__name__)
        return await real_run(fn, *args)

    monkeypatch.setattr(workers, "run", spy)
    assert (await _login(wiki, client, "Alice", PASSWORDS["Alice"]))["result"] == "Success"
    assert (await _login(wiki, client, "Robot@tests", wiki.bot_password))["result"] == "Success"
    assert (await sign_in(client, "Alice")).status_code == 302
    assert ran == ["verify_password"] * 3


async def test_new_passwords_are_hashed_in_the_worker_pool(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[str] = []
    real_run = workers.run

    async def spy(fn: Any, *args: object) -> Any:
        ran.append(fn.__name__)
        return await real_run(fn, *args)

    monkeypatch.setattr(workers, "run", spy)
    token = (await wiki.api(client, action="query", meta="tokens", type="createaccount"))["query"][
        "tokens"
    ]["createaccounttoken"]
    created = await wiki.post(
        client,
        action="createaccount",
        username="Newcomer",
        password="a-long-password-1",
        retype="a-long-password-1",
        createtoken=token,
        createreturnurl="http://127.0.0.1:8080/",
    )
    assert created["createaccount"]["status"] == "PASS", created
    assert ran == ["hash_password"]
    assert (await _login(wiki, client, "Newcomer", "a-long-password-1"))["result"] == "Success"


async def test_the_forms_that_ask_the_current_password_share_the_throttle(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """Special:ChangePassword and Special:ChangeEmail ask the current password: guessing it
    there counts as at the login, and past the limit even the right one changes nothing. The
    refusal is the form again with the throttle's words, at 200, as MediaWiki 1.39's forms."""
    assert (await sign_in(client, "Alice")).status_code == 302
    page = await client.get("/wiki/Special:ChangePassword")
    token = hidden(page.text, "wpEditToken")
    url = "/w/index.php?title=Special:ChangePassword"
    fields = {"password": "brand-new-pass-77", "retype": "brand-new-pass-77", "wpEditToken": token}
    for i in range(5):
        wrong = await client.post(url, data={**fields, "currentpassword": f"guess-{i}"})
        assert wrong.status_code == 200 and "Incorrect username or password" in wrong.text
    right = await client.post(url, data={**fields, "currentpassword": PASSWORDS["Alice"]})
    assert right.status_code == 200 and "too many recent login attempts" in right.text
    email = await client.post(
        "/w/index.php?title=Special:ChangeEmail",
        data={"wpNewEmail": "alice@new.example", "wpPassword": PASSWORDS["Alice"],
              "wpEditToken": token},
    )  # fmt: skip
    assert email.status_code == 200 and "too many login attempts" in email.text
    alice = await wiki.db.read(account_by_name, "Alice")
    assert alice is not None and alice.email != "alice@new.example"
    stored = await wiki.db.read(password_hash, alice.id)
    assert await password_check.password_ok(stored, PASSWORDS["Alice"])

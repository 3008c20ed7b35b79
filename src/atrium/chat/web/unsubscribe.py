"""`/accounts/unsubscribe/<type>/<token>`: the link in a mail that turns that kind of mail off,
without signing in (the token is signed for one user and one kind). A GET unsubscribes, as
Zulip's does; a POST does too (RFC 8058 one-click, from `List-Unsubscribe-Post`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from atrium.chat.actions.user_settings import change_settings
from atrium.chat.models import User
from atrium.chat.queries.realm import default_realm
from atrium.chat.queries.users import fake_email_domain, user_row
from atrium.chat.runtime import ChatRuntime
from atrium.chat.web.assets import Assets
from atrium.chat.web.pages import TEMPLATES
from atrium.core.db import Conn
from atrium.core.page_headers import PAGE_HEADERS
from atrium.core.signing import unsign

# Zulip's email types and the setting each link turns off.
KINDS = {
    "missed_messages": ("enable_offline_email_notifications", "missed-message mails"),
    "digest": ("enable_digest_emails", "digest mails"),
    "login": ("enable_login_emails", "new-login mails"),
    "marketing": ("enable_marketing_emails", "news mails"),
}


def _subscriber(conn: Conn, user_id: int) -> tuple[User | None, str]:
    realm = default_realm(conn)
    if realm is None:
        return None, "Atrium"
    row = user_row(conn, realm.id, user_id)
    if row is None or not row["is_active"]:
        return None, realm.name
    return User.from_row(row), realm.name


def unsubscribe_routes(runtime: ChatRuntime, assets: Assets) -> list[BaseRoute]:

    async def unsubscribe(request: Request) -> Response:
        kind, token = request.path_params["kind"], request.path_params["token"]
        value = unsign(runtime.secret, token)
        user: User | None = None
        realm_name = "Atrium"
        if kind in KINDS and value is not None:
            prefix, _, user_id = value.rpartition(":")
            if prefix == f"unsubscribe:{kind}" and user_id.isdigit():
                user, realm_name = await runtime.db.read(_subscriber, int(user_id))
        if user is None:
            html = TEMPLATES.get_template("unsubscribe.html").render(
                assets=assets, realm_name=realm_name, done=False, what=""
            )
            return HTMLResponse(html, status_code=404, headers=PAGE_HEADERS)
        setting, what = KINDS[kind]
        domain = fake_email_domain(runtime.settings.base_url)
        await runtime.write(change_settings, user, {setting: False}, domain)
        html = TEMPLATES.get_template("unsubscribe.html").render(
            assets=assets, realm_name=realm_name, done=True, what=what
        )
        return HTMLResponse(html, headers={**PAGE_HEADERS, "Cache-Control": "no-store"})

    return [Route("/accounts/unsubscribe/{kind}/{token}", unsubscribe, methods=["GET", "POST"])]

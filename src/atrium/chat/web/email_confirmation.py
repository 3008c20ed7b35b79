"""`/accounts/confirm_new_email/<token>/`: the link mailed to a new address, which makes the
change (actions/email_change.py). It works without signing in: the token is the proof."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from atrium.chat.actions.email_change import CONFIRM_PATH, confirm_email_change
from atrium.chat.queries.realm import default_realm
from atrium.chat.queries.users import fake_email_domain
from atrium.chat.runtime import ChatRuntime
from atrium.chat.web.assets import Assets
from atrium.chat.web.pages import TEMPLATES
from atrium.core.db import Conn
from atrium.core.page_headers import PAGE_HEADERS


def _realm_name(conn: Conn) -> str:
    realm = default_realm(conn)
    return realm.name if realm is not None else "Atrium"


def email_confirmation_routes(runtime: ChatRuntime, assets: Assets) -> list[BaseRoute]:

    async def confirm(request: Request) -> Response:
        domain = fake_email_domain(runtime.settings.base_url)
        new_email = await runtime.write(
            confirm_email_change, runtime.secret, request.path_params["token"], domain
        )
        html = TEMPLATES.get_template("confirm_email.html").render(
            assets=assets, realm_name=await runtime.db.read(_realm_name), new_email=new_email
        )
        headers = {**PAGE_HEADERS, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
        return HTMLResponse(html, status_code=200 if new_email else 404, headers=headers)

    return [Route(CONFIRM_PATH + "{token}/", confirm, methods=["GET"])]

"""GET/POST /realm/domains, PATCH/DELETE /realm/domains/{domain}."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.domains import add_domain, change_domain, remove_domain
from atrium.chat.guards import guarded, realm_admin
from atrium.chat.http import ApiRequest, api
from atrium.chat.params import REQUIRED, Endpoint, Param
from atrium.chat.queries.domains import realm_domain_dicts


@api(Endpoint())
async def get_domains(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    return {"domains": await req.runtime.db.read(realm_domain_dicts, req.me.realm_id)}


@guarded(
    realm_admin,
    Endpoint((Param("domain", default=REQUIRED), Param("allow_subdomains", bool, REQUIRED))),
)
async def create(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    domain_id, domain = await req.runtime.write(
        add_domain, req.me, args["domain"], args["allow_subdomains"]
    )
    return {"new_domain": [domain_id, domain]}


@guarded(
    realm_admin,
    Endpoint((Param("domain", path=True), Param("allow_subdomains", bool, REQUIRED))),
)
async def update(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(change_domain, req.me, args["domain"], args["allow_subdomains"])
    return {}


@guarded(realm_admin, Endpoint((Param("domain", path=True),)))
async def delete(req: ApiRequest, args: dict[str, Any]) -> dict[str, Any]:
    await req.runtime.write(remove_domain, req.me, args["domain"])
    return {}

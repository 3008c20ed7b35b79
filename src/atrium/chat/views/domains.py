"""GET/POST /realm/domains, PATCH/DELETE /realm/domains/{domain}."""

from __future__ import annotations

from typing import Any

from atrium.chat.actions.domains import add_domain, change_domain, remove_domain
from atrium.chat.guards import realm_admin
from atrium.chat.http import ApiRequest
from atrium.chat.queries.domains import realm_domain_dicts
from atrium.chat.typed_endpoint import Json, PathOnly, typed_endpoint


@typed_endpoint
async def get_domains(req: ApiRequest) -> dict[str, Any]:
    return {"domains": await req.runtime.db.read(realm_domain_dicts, req.me.realm_id)}


@typed_endpoint(guard=realm_admin)
async def create(req: ApiRequest, *, domain: str, allow_subdomains: Json[bool]) -> dict[str, Any]:
    domain_id, new_domain = await req.runtime.write(add_domain, req.me, domain, allow_subdomains)
    return {"new_domain": [domain_id, new_domain]}


@typed_endpoint(guard=realm_admin)
async def update(
    req: ApiRequest, *, domain: PathOnly[str], allow_subdomains: Json[bool]
) -> dict[str, Any]:
    await req.runtime.write(change_domain, req.me, domain, allow_subdomains)
    return {}


@typed_endpoint(guard=realm_admin)
async def delete(req: ApiRequest, *, domain: PathOnly[str]) -> dict[str, Any]:
    await req.runtime.write(remove_domain, req.me, domain)
    return {}

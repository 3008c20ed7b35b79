"""`Special:PasswordPolicies`: the password policy of each user group, as account creation
applies it here (the same for every group, see `accounts.password_policy`), with the names of
the checks."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.accounts.password_policy import POLICY
from atrium.wiki.accounts.rights import GROUP_RIGHTS, IMPLICIT_GROUPS
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.listgrouprights import GROUP_NAMES
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

HEADING = "Password policies"
# passwordpolicies-policy-<name>, with `{n}` for the policy's value.
TEXTS = {
    "MinimalPasswordLength": "Password must be at least {n} character{s} long",
    "MinimumPasswordLengthToLogin":
        "Password must be at least {n} character{s} long to be able to login",
    "PasswordCannotBeSubstringInUsername": "Password cannot be a substring within the username",
    "PasswordCannotMatchDefaults": "Password cannot match a specific list of default passwords",
    "MaximalPasswordLength": "Password must be less than {n} character{s} long",
    "PasswordNotInCommonList":
        "Password cannot be in the list of 100,000 most commonly used passwords.",
}  # fmt: skip


def _text(name: str, value: int | bool) -> str:
    number = int(value)
    return TEXTS[name].format(n=f"{number:,}", s="" if number == 1 else "s")


async def handle(ctx: SpecialContext) -> Response:
    policies = [(_text(name, value), name) for name, value in POLICY if value]
    groups = [
        {
            "key": key,
            "name": GROUP_NAMES.get(key, key),
            "members": key == "user" or key not in IMPLICIT_GROUPS,
        }
        for key in sorted(k for k in GROUP_RIGHTS if k != "*")
    ]
    return await render(ctx, "passwordpolicies.html", HEADING, groups=groups, policies=policies)


PAGE = SpecialPage("PasswordPolicies", HEADING, "users", handle)

"""MediaWiki 1.39's password policy for a new account (`$wgPasswordPolicy`, group `default`).

The checks of PasswordPolicyChecks in the order the policy lists them, each refusal a message:
MinimalPasswordLength 1 (an empty password never gets here: AuthManager drops the request first),
PasswordCannotBeSubstringInUsername, PasswordCannotMatchDefaults, MaximalPasswordLength 4096
(bytes) and PasswordNotInCommonList (the Bloom filter of wikimedia/common-passwords, see
common_passwords.py).

Only account creation refuses by them. MediaWiki checks them at login too, but each is only
`suggestChangeOnLogin` there: a right password that breaks them leads to a password-change form
that may be skipped (`clientlogin` answers UI, `action=login` Aborted); Atrium logs such an
account straight in. Bot passwords are generated and never checked.
"""

from __future__ import annotations

from atrium.wiki.accounts.common_passwords import is_common
from atrium.wiki.messages.messages import Message

MAX_PASSWORD_BYTES = 4096
# The policy as Special:PasswordPolicies lists it: each check's name and value, in order. It is
# every group's: no group has a stricter one here.
POLICY: tuple[tuple[str, int | bool], ...] = (
    ("MinimalPasswordLength", 1),
    ("PasswordCannotBeSubstringInUsername", True),
    ("PasswordCannotMatchDefaults", True),
    ("MaximalPasswordLength", MAX_PASSWORD_BYTES),
    ("PasswordNotInCommonList", True),
)

# checkPasswordCannotMatchDefaults: names with the passwords they may not use.
_BLOCKED_LOGINS = {
    "Useruser": "Passpass",
    "Useruser1": "Passpass1",
    "Apitestsysop": "testpass",
    "Apitestuser": "testpass",
}
_EXAMPLE_PASSWORD = "ExamplePassword"  # ApiChangeAuthenticationRequest's example


def password_problems(name: str, password: str) -> list[Message]:
    """The refusals of `password` for the account `name` (canonical), in the policy's order."""
    problems: list[Message] = []
    if _ascii_lower(password) in _ascii_lower(name):  # stripos
        problems.append(Message("password-substring-username-match"))
    if _BLOCKED_LOGINS.get(name) == password or password == _EXAMPLE_PASSWORD:
        problems.append(Message("password-login-forbidden"))
    if len(password.encode()) > MAX_PASSWORD_BYTES:
        problems.append(Message("passwordtoolong", (MAX_PASSWORD_BYTES,)))
    if is_common(password):
        problems.append(Message("passwordincommonlist"))
    return problems


def _ascii_lower(text: str) -> str:
    """PHP's case folding in `stripos`: ASCII letters only."""
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)

"""One throttle for every password check of both services: failed attempts are counted per
account, per address, or per account and address, and past a rule's count no password is
checked at all (not even the right one) until its window ends.

Only failures count, so a user who signs in often never locks themself out; the check comes
before the password is verified, so a throttled guess costs no hashing. The counts live in the
service's rate limiter: in memory in the embedded mode, in Redis when workers share them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from atrium.core.ratelimit import RateLimiter


class Scope(Enum):
    ACCOUNT = "account"
    ADDRESS = "address"
    ACCOUNT_AND_ADDRESS = "account+address"


@dataclass(frozen=True)
class Rule:
    """At most `count` failures in `window` seconds for one key of `scope`."""

    count: int
    window: int
    scope: Scope


@dataclass(frozen=True)
class Throttled:
    """A refusal: the rule that refused, and the seconds until its window ends."""

    rule: Rule
    retry_after: float


class PasswordThrottle:
    def __init__(
        self, limiter: RateLimiter, service: str, rules: Sequence[Rule], enabled: bool = True
    ) -> None:
        self.limiter = limiter
        self.service = service
        self.rules = tuple(rules)
        self.enabled = enabled

    def _keys(self, account: str, address: str) -> list[tuple[Rule, str]]:
        keys = []
        for rule in self.rules:
            if rule.scope is Scope.ACCOUNT:
                subject = f"account:{account}"
            elif rule.scope is Scope.ADDRESS:
                subject = f"address:{address}"
            else:
                subject = f"account:{account}:address:{address}"
            keys.append((rule, f"password:{self.service}:{rule.window}:{subject}"))
        return keys

    async def refusal(self, account: str, address: str) -> Throttled | None:
        """Why a password for `account` from `address` may not be checked now, or None."""
        if not self.enabled:
            return None
        for rule, key in self._keys(account, address):
            verdict = await self.limiter.peek(key, rule.count, rule.window)
            if not verdict.allowed:
                return Throttled(rule, verdict.retry_after)
        return None

    async def failed(self, account: str, address: str) -> None:
        """Count one wrong password for `account` from `address`."""
        if not self.enabled:
            return
        for rule, key in self._keys(account, address):
            await self.limiter.hit(key, rule.count, rule.window)

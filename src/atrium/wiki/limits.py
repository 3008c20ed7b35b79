"""The wiki's throttles, with MediaWiki 1.39's defaults: `$wgPasswordAttemptThrottle` for every
password check, `$wgRateLimits` for edits, moves and uploads (`User::pingLimiter`), and
`$wgAccountCreationThrottle` for new accounts. `ATRIUM_RATE_LIMITS=0` lifts them all.

One set of counters per app, in memory in the embedded mode and in Redis when workers share them.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request

from atrium.core.password_throttle import PasswordThrottle, Rule, Scope
from atrium.core.ratelimit import RateLimiter, rate_limiter
from atrium.settings import Settings
from atrium.wiki.reads.users import Account

# $wgPasswordAttemptThrottle: 5 failures in 5 minutes for a name from one address, and 150 in
# 48 hours for a name from anywhere.
PASSWORD_RULES = (
    Rule(5, 300, Scope.ACCOUNT_AND_ADDRESS),
    Rule(150, 48 * 3600, Scope.ACCOUNT),
)

# $wgRateLimits (the actions the wiki has): per action, per kind of caller, (count, seconds).
# `ip` counts per address for anonymous and new users, `newbie` per new account (instead of
# `user`), `user` per registered account, `anon` all anonymous callers together.
RATE_LIMITS: dict[str, dict[str, tuple[int, int]]] = {
    "edit": {"ip": (8, 60), "newbie": (8, 60), "user": (90, 60)},
    "move": {"newbie": (2, 120), "user": (8, 60)},
    "editcontentmodel": {"newbie": (2, 120), "user": (8, 60)},
    "upload": {"ip": (8, 60), "newbie": (8, 60)},
    # Password reset requests, and mails sent with Special:EmailUser.
    "mailpassword": {"ip": (5, 3600)},
    "emailuser": {"ip": (5, 86400), "newbie": (5, 86400), "user": (20, 86400)},
}

# $wgAccountCreationThrottle: 6 accounts a day from one address.
ACCOUNT_CREATION = (6, 86400)


@dataclass
class WikiLimits:
    limiter: RateLimiter
    enabled: bool

    @property
    def passwords(self) -> PasswordThrottle:
        return PasswordThrottle(self.limiter, "wiki", PASSWORD_RULES, self.enabled)

    async def ping(self, caller: Account, action: str, address: str) -> bool:
        """User::pingLimiter: count one `action` by `caller` and say whether it is one too
        many. Accounts with `noratelimit` (sysops, bots) are never limited."""
        limits = RATE_LIMITS.get(action)
        if not self.enabled or not limits or caller.allowed("noratelimit"):
            return False
        newbie = not caller.allowed("autoconfirmed")
        keys: dict[str, tuple[int, int]] = {}
        if newbie and "ip" in limits:
            keys[f"wiki:limiter:{action}:ip:{address}"] = limits["ip"]
        if not caller.registered:
            if "anon" in limits:
                keys[f"wiki:limiter:{action}:anon"] = limits["anon"]
        else:
            user_limit = limits.get("newbie") if newbie else None
            user_limit = user_limit or limits.get("user")
            if user_limit is not None:
                keys[f"wiki:limiter:{action}:user:{caller.id}"] = user_limit
        refused = False
        for key, (count, window) in keys.items():
            verdict = await self.limiter.hit(key, count, window)
            refused = refused or not verdict.allowed
        return refused

    async def account_creation_refused(self, creator: Account, address: str) -> bool:
        """Count one account created from `address`; True past `$wgAccountCreationThrottle`."""
        if not self.enabled or creator.allowed("noratelimit"):
            return False
        count, window = ACCOUNT_CREATION
        verdict = await self.limiter.hit(f"wiki:acctcreate:ip:{address}", count, window)
        return not verdict.allowed


def wiki_limits(request: Request) -> WikiLimits:
    """The app's counters, made on first use (Redis in scale-out mode, so that every worker
    counts the same attempts)."""
    state = request.app.state
    limits = getattr(state, "wiki_limits", None)
    if not isinstance(limits, WikiLimits):
        settings = getattr(state, "settings", None)
        if not isinstance(settings, Settings):
            settings = Settings()
        limiter = rate_limiter(settings.redis_url, settings.redis_namespace)
        limits = WikiLimits(limiter, settings.rate_limits.enabled)
        state.wiki_limits = limits
    return limits


def duration(seconds: int) -> str:
    """Language::formatDuration for the whole windows the throttles use ("5 minutes")."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"

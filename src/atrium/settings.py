"""One Settings object for the whole process, read from environment variables.

Every knob a deployment may turn lives here, so that `atrium --help`, the README and the code agree
on one list. Nothing else in the package reads `os.environ`.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise SystemExit(f"{name} must be an integer, got {raw!r}") from exc


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise SystemExit(f"{name} must be a number, got {raw!r}") from exc


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def _env_list(name: str) -> tuple[str, ...]:
    """A comma-separated list; blanks around the items and empty items are dropped."""
    raw = os.environ.get(name) or ""
    return tuple(item.strip() for item in raw.split(",") if item.strip())


# Where Debian's fonts-noto-color-emoji puts its font.
DEBIAN_EMOJI_FONT = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")


def _env_path(name: str, default: Path) -> Path | None:
    """A file path; set but empty means none."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return Path(raw) if raw.strip() else None


KNOWN_SERVICES = ("chat", "wiki")

# Who may use the wiki without signing in, as MediaWiki's `$wgGroupPermissions['*']`: nobody
# (`private`), readers only (`read`), or readers and editors (`edit`, MediaWiki's default).
WIKI_AUDIENCES = ("private", "read", "edit")


def _env_wiki_audience() -> str | None:
    raw = (os.environ.get("ATRIUM_WIKI_AUDIENCE") or "").strip().lower()
    if not raw:
        return None
    if raw not in WIKI_AUDIENCES:
        raise SystemExit(
            f"ATRIUM_WIKI_AUDIENCE must be one of {', '.join(WIKI_AUDIENCES)}; "
            f"got {os.environ.get('ATRIUM_WIKI_AUDIENCE')!r}"
        )
    return raw


LOG_FORMATS = ("text", "json")


def _env_log_format() -> str:
    raw = (os.environ.get("ATRIUM_LOG_FORMAT") or "text").strip().lower()
    if raw not in LOG_FORMATS:
        raise SystemExit(f"ATRIUM_LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}; got {raw!r}")
    return raw


def _env_services() -> tuple[str, ...]:
    raw = os.environ.get("ATRIUM_SERVICES") or ",".join(KNOWN_SERVICES)
    services = tuple(s.strip() for s in raw.split(",") if s.strip())
    unknown = set(services) - set(KNOWN_SERVICES)
    if unknown or not services:
        raise SystemExit(
            f"ATRIUM_SERVICES must name some of {', '.join(KNOWN_SERVICES)}; got {raw!r}"
        )
    return services


@dataclass(frozen=True)
class RateLimits:
    """Zulip's default rules; `enabled=False` lifts them (benchmarks, trusted bots)."""

    enabled: bool = True
    api_requests: int = 200
    api_window_seconds: int = 60
    password_attempts: int = 5
    password_window_seconds: int = 30 * 60
    # Failed passwords from one address, whatever the account, in the same window.
    password_attempts_per_address: int = 50


MB = 1024 * 1024


@dataclass(frozen=True)
class CacheLimits:
    """Upper bounds, in bytes (estimated), of what a process keeps in memory between requests;
    past its bound a cache drops its least recently used entries."""

    # Serialised message objects (the GET /messages hot path), HTML and raw content together.
    messages: int = 64 * MB
    # What message objects show from outside the message: senders' fields, topic links.
    display: int = 8 * MB
    # Undelivered events of one queue; a queue whose client falls further behind is dropped
    # (its next poll gets BAD_EVENT_QUEUE_ID and the client registers again).
    event_queue: int = 4 * MB
    # Undelivered events of all queues of the process together (embedded mode).
    event_queues: int = 64 * MB
    # Event queues one user holds at once (a count); one more drops their least recently polled.
    event_queues_per_user: int = 50


SMTP_SECURITY = ("starttls", "tls", "none")


def _env_smtp_security() -> str:
    raw = (os.environ.get("ATRIUM_SMTP_SECURITY") or "starttls").strip().lower()
    if raw not in SMTP_SECURITY:
        raise SystemExit(
            f"ATRIUM_SMTP_SECURITY must be one of {', '.join(SMTP_SECURITY)}; got {raw!r}"
        )
    return raw


def _env_ca_file() -> Path | None:
    raw = os.environ.get("ATRIUM_SMTP_CA_FILE") or None
    if raw is None:
        return None
    path = Path(raw)
    if not path.is_file():
        raise SystemExit(f"ATRIUM_SMTP_CA_FILE names no readable file: {raw!r}")
    return path


@dataclass(frozen=True)
class MailSettings:
    """The outgoing mail server. No host: every mail is written to `DATA_DIR/mail-sink/`."""

    smtp_host: str | None = None
    smtp_port: int = 587
    # `starttls` upgrades a plain connection, `tls` connects over TLS (port 465), `none` neither.
    smtp_security: str = "starttls"
    smtp_user: str | None = None
    smtp_password: str | None = None
    # A PEM file of CA certificates trusted for the server's certificate besides the system's
    # (an organization's own CA); the certificate and its host name are always checked.
    smtp_ca_file: Path | None = None
    # The From address; None: the noreply address of the external URL's host.
    email_from: str | None = None
    # A sender that claimed a mail and died leaves it to another after this many seconds.
    claim_seconds: float = 60.0


@dataclass(frozen=True)
class Settings:
    data_dir: Path = field(default_factory=lambda: Path("atrium-data"))
    # None means the embedded mode: one SQLite file per service inside data_dir.
    database_url: str | None = None
    redis_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8080
    # The public base URL clients use; derived from host and port when not set.
    external_url: str | None = None
    rate_limits: RateLimits = field(default_factory=RateLimits)
    web_public_streams_enabled: bool = True
    # The largest request body read when it carries no upload (a chat view may declare its own
    # limit; the wiki allows at least what a whole page needs).
    max_body_bytes: int = 4 * 1024 * 1024
    # Which services this process serves; either can run alone.
    services: tuple[str, ...] = ("chat", "wiki")
    # The wiki's $wgSecretKey: tools that sign Special:RunJobs requests need to know it. None: a
    # key generated once into the data directory (see `wiki_secret_key_path`).
    wiki_secret_key: str | None = None
    # A new wiki gets a Main Page on its first start, as MediaWiki's installer writes one.
    wiki_main_page: bool = True
    # Who may use the wiki without signing in (one of WIKI_AUDIENCES). None: the audience recorded
    # in the wiki's database, and `private` for a new wiki.
    wiki_audience: str | None = None
    # Seconds between two reads of the wiki's recent changes by the wiki feed (changes posted to
    # chat by its rules), when both services run; 0 runs no feed.
    wiki_feed_seconds: float = 2.0
    # Whether the chat's guests may edit the wiki (as registered users); otherwise they only read.
    wiki_guest_edits: bool = False
    # The largest file POST /user_uploads accepts (Zulip's MAX_FILE_UPLOAD_SIZE).
    max_file_upload_size_mib: int = 25
    # Apply pending migrations when a service starts. `atrium serve` applies them itself before
    # starting its workers and turns this off for them, so that no worker loads Alembic (about
    # 10 MB of memory for the life of the process).
    migrate_on_start: bool = True
    caches: CacheLimits = field(default_factory=lambda: CacheLimits())
    # Threads for CPU-heavy steps (password hashing, image scaling): see core/workers.py.
    worker_threads: int = 2
    # A separate origin (no cookies of ours) the wiki's file URLs point to; the operator points it
    # at this server, which serves `/images/` on every name it answers to. None: the wiki's own.
    user_content_url: str | None = None
    # The most the wiki's store of scaled images (`images/thumb/`) holds; oldest removed first.
    wiki_thumb_cache_mb: int = 512
    # Seconds one wiki expansion or chat message rendering may take before it is cut short.
    render_timeout: float = 10.0
    # Origins (scheme://host[:port]) besides the site's own whose api.php requests may carry
    # credentials ($wgCrossSiteAJAXdomains).
    wiki_cors_origins: tuple[str, ...] = ()
    # Zulip's CAMO_URI and CAMO_KEY: external images and videos in messages are shown through
    # this image proxy, or not inline at all when none is set.
    camo_url: str | None = None
    camo_key: str | None = None
    # Outgoing requests to destinations users choose (outgoing webhooks): hosts and networks
    # allowed although not public, and a proxy to send them through instead (core/egress.py).
    egress_allow: tuple[str, ...] = ()
    egress_proxy: str | None = None
    mail: MailSettings = field(default_factory=MailSettings)
    # Scheduled backups (ops/schedule.py) go into this folder, one every interval, the newest
    # `backup_keep` kept; the automatic backup before migrations goes there too (else into
    # DATA_DIR/backups). None, or an interval of 0: no scheduled backups.
    backup_dir: Path | None = None
    backup_interval_hours: float = 24.0
    backup_keep: int = 7
    # `/ready` and `/metrics` answer loopback clients, and others with this bearer token.
    metrics_token: str | None = None
    # `json`: one JSON access-log line per request on standard error, with its request id.
    log_format: str = "text"
    # The emoji font the chat client is given (Debian's fonts-noto-color-emoji); None: none.
    chat_emoji_font: Path | None = DEBIAN_EMOJI_FONT

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            data_dir=Path(os.environ.get("ATRIUM_DATA_DIR") or "atrium-data"),
            database_url=os.environ.get("ATRIUM_DATABASE_URL") or None,
            redis_url=os.environ.get("ATRIUM_REDIS_URL") or None,
            host=os.environ.get("ATRIUM_HOST") or "127.0.0.1",
            port=_env_int("ATRIUM_PORT", 8080),
            external_url=os.environ.get("ATRIUM_EXTERNAL_URL") or None,
            rate_limits=RateLimits(
                enabled=_env_bool("ATRIUM_RATE_LIMITS", True),
                api_requests=_env_int("ATRIUM_RATE_LIMIT_API", 200),
                password_attempts=_env_int("ATRIUM_RATE_LIMIT_PASSWORD", 5),
            ),
            web_public_streams_enabled=_env_bool("ATRIUM_WEB_PUBLIC_STREAMS_ENABLED", True),
            # The chat's own name of the setting, from before it covered the wiki, still counts.
            max_body_bytes=_env_int(
                "ATRIUM_MAX_BODY_BYTES", _env_int("ATRIUM_CHAT_MAX_BODY_BYTES", 4 * 1024 * 1024)
            ),
            services=_env_services(),
            wiki_secret_key=os.environ.get("ATRIUM_WIKI_SECRET_KEY") or None,
            wiki_main_page=_env_bool("ATRIUM_WIKI_MAIN_PAGE", True),
            wiki_audience=_env_wiki_audience(),
            wiki_feed_seconds=_env_float("ATRIUM_WIKI_FEED_SECONDS", 2.0),
            wiki_guest_edits=_env_bool("ATRIUM_WIKI_GUEST_EDITS", False),
            max_file_upload_size_mib=_env_int("ATRIUM_MAX_FILE_UPLOAD_SIZE_MIB", 25),
            migrate_on_start=_env_bool("ATRIUM_MIGRATE_ON_START", True),
            caches=CacheLimits(
                messages=_env_int("ATRIUM_CACHE_MESSAGES_MB", 64) * MB,
                display=_env_int("ATRIUM_CACHE_DISPLAY_MB", 8) * MB,
                event_queue=_env_int("ATRIUM_EVENT_QUEUE_MB", 4) * MB,
                event_queues=_env_int("ATRIUM_EVENT_QUEUES_MB", 64) * MB,
                event_queues_per_user=_env_int("ATRIUM_EVENT_QUEUES_PER_USER", 50),
            ),
            worker_threads=_env_int("ATRIUM_WORKER_THREADS", 2),
            user_content_url=os.environ.get("ATRIUM_USER_CONTENT_URL") or None,
            wiki_thumb_cache_mb=_env_int("ATRIUM_WIKI_THUMB_CACHE_MB", 512),
            render_timeout=_env_float("ATRIUM_RENDER_TIMEOUT", 10.0),
            wiki_cors_origins=_env_list("ATRIUM_WIKI_CORS_ORIGINS"),
            camo_url=os.environ.get("ATRIUM_CAMO_URL") or None,
            camo_key=os.environ.get("ATRIUM_CAMO_KEY") or None,
            egress_allow=_env_list("ATRIUM_EGRESS_ALLOW"),
            egress_proxy=os.environ.get("ATRIUM_EGRESS_PROXY") or None,
            mail=MailSettings(
                smtp_host=os.environ.get("ATRIUM_SMTP_HOST") or None,
                smtp_port=_env_int("ATRIUM_SMTP_PORT", 587),
                smtp_security=_env_smtp_security(),
                smtp_user=os.environ.get("ATRIUM_SMTP_USER") or None,
                smtp_password=os.environ.get("ATRIUM_SMTP_PASSWORD") or None,
                smtp_ca_file=_env_ca_file(),
                email_from=os.environ.get("ATRIUM_EMAIL_FROM") or None,
                claim_seconds=_env_float("ATRIUM_MAIL_CLAIM_SECONDS", 60.0),
            ),
            backup_dir=Path(os.environ["ATRIUM_BACKUP_DIR"])
            if os.environ.get("ATRIUM_BACKUP_DIR")
            else None,
            backup_interval_hours=_env_float("ATRIUM_BACKUP_INTERVAL_HOURS", 24.0),
            backup_keep=max(1, _env_int("ATRIUM_BACKUP_KEEP", 7)),
            metrics_token=os.environ.get("ATRIUM_METRICS_TOKEN") or None,
            log_format=_env_log_format(),
            chat_emoji_font=_env_path("ATRIUM_CHAT_EMOJI_FONT", DEBIAN_EMOJI_FONT),
        )

    def with_(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def base_url(self) -> str:
        if self.external_url:
            return self.external_url.rstrip("/")
        return f"http://{self.host}:{self.port}"

    @property
    def redis_namespace(self) -> str:
        """The prefix of this deployment's Redis keys: workers sharing a database share it, and
        two deployments sharing a Redis server do not collide."""
        source = self.database_url or str(self.data_dir.resolve())
        return "atrium:" + hashlib.sha1(source.encode()).hexdigest()[:10]

    @property
    def wiki_secret_key_path(self) -> Path:
        """Where the generated wiki secret key is kept when ATRIUM_WIKI_SECRET_KEY is unset."""
        return self.data_dir / "wiki-secret-key"

    @property
    def mail_sink_dir(self) -> Path:
        """Where mail goes when no SMTP server is configured."""
        return self.data_dir / "mail-sink"

    @property
    def pre_upgrade_backup_dir(self) -> Path:
        """Where `atrium serve` puts the backup it takes before applying migrations."""
        return self.backup_dir or self.data_dir / "backups"

    def sqlite_path(self, service: str) -> Path:
        return self.data_dir / f"{service}.sqlite3"

    @property
    def is_postgres(self) -> bool:
        return bool(self.database_url) and self.database_url.startswith(  # type: ignore[union-attr]
            ("postgresql://", "postgres://", "postgresql+psycopg://")
        )

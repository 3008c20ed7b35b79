"""The `atrium` command: serve, demo, and the chat and wiki administration commands.

Every command reads the same settings as the server (ATRIUM_DATA_DIR, ATRIUM_DATABASE_URL, …) and
works while the server runs: SQLite in WAL mode lets a second process write, and PostgreSQL is
PostgreSQL.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import ClassVar, TypeVar

import click

from atrium.core.data_dir import secure_data_dir
from atrium.settings import Settings

T = TypeVar("T")


def fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


class ServiceCommands(click.Group):
    """The `chat` and `wiki` command groups, imported when named: a chat command does not load the
    wiki (about 0.5 s per process) and `serve` loads neither before its workers do."""

    services: ClassVar[dict[str, str]] = {
        "chat": "atrium.chat.cli",
        "wiki": "atrium.wiki.cli",
        "bridge": "atrium.workspace.bridge.cli",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.services, "link-accounts"})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.services and cmd_name not in self.commands:
            import importlib

            module = importlib.import_module(self.services[cmd_name])
            group = getattr(module, cmd_name)
            if cmd_name == "chat":
                # A user made from the command line is a member of the workspace.
                from atrium.workspace.cli import with_members

                with_members(group)
            if cmd_name == "wiki":
                # A rename reaches the member's identity too.
                from atrium.workspace.cli import with_renames

                with_renames(group)
            self.add_command(group)
        if cmd_name == "link-accounts" and cmd_name not in self.commands:
            from atrium.workspace.cli import link_accounts_command

            self.add_command(link_accounts_command)
        return super().get_command(ctx, cmd_name)


@click.group(cls=ServiceCommands)
def main() -> None:
    """Atrium: a Zulip-compatible team chat and a MediaWiki-compatible wiki."""
    # Before any command writes: the data holds API keys, uploads and secrets (umask 077 is
    # inherited by the server's workers).
    notice = secure_data_dir(Settings.from_env().data_dir)
    if notice is not None:
        click.echo(f"warning: {notice}", err=True)


@main.command()
@click.option(
    "--host", default=None, help="Address to listen on (default: ATRIUM_HOST or 127.0.0.1)."
)
@click.option("--port", type=int, default=None, help="Port (default: ATRIUM_PORT or 8080).")
@click.option(
    "--workers",
    type=int,
    default=1,
    show_default=True,
    help="Worker processes; more than one needs PostgreSQL and Redis (scale-out mode).",
)
@click.option(
    "--no-upgrade-backup",
    is_flag=True,
    help="Apply pending migrations without the backup taken before them (you have your own).",
)
def serve(host: str | None, port: int | None, workers: int, no_upgrade_backup: bool) -> None:
    """Apply pending migrations and serve chat (/api/v1) and wiki (/w/api.php)."""
    if host:
        os.environ["ATRIUM_HOST"] = host
    if port:
        os.environ["ATRIUM_PORT"] = str(port)
    settings = Settings.from_env()
    if workers > 1 and not (settings.is_postgres and settings.redis_url):
        fail(
            "--workers > 1 needs the scale-out mode: set ATRIUM_DATABASE_URL=postgresql://… "
            "and ATRIUM_REDIS_URL=redis://… (embedded SQLite is one process)."
        )
    lock_fd = None
    if not settings.is_postgres:
        from atrium.core import data_lock

        try:
            # Held through the exec below by the supervisor (and the workers it forks).
            lock_fd = data_lock.acquire(settings.data_dir)
        except data_lock.DataDirLocked as locked:
            fail(f"{locked}; stop it first, or give this one another ATRIUM_DATA_DIR")
        assert lock_fd is not None
        os.set_inheritable(lock_fd, True)
    # After the lock: a second server on the same data directory (and so, likely, the same
    # port) is told about the server, not about "another program".
    from atrium.core.listen import listen_problem

    problem = listen_problem(settings.host, settings.port)
    if problem:
        fail(problem)
    bridged = ("bridge",) if set(settings.services) == {"chat", "wiki"} else ()
    services = ("core", *settings.services, *bridged)
    from atrium.ops.migration_heads import up_to_date

    # Most starts find every schema current: a look at the version tables then spares loading
    # Alembic and its environment; anything else (new, stale or newer data) goes through it.
    if not all(up_to_date(s, settings.database_url, settings.sqlite_path(s)) for s in services):
        _migrate(settings, services, no_upgrade_backup)
    sys.stdout.flush()
    sys.stderr.flush()
    # The supervisor starts from a fresh interpreter (see atrium.supervisor); the settings reach
    # the workers through the environment, which exec keeps. The migrations are applied.
    os.environ["ATRIUM_MIGRATE_ON_START"] = "0"
    argv = [sys.executable, "-m", "atrium.supervisor", settings.host, str(settings.port)]
    os.execv(sys.executable, [*argv, str(workers), str(-1 if lock_fd is None else lock_fd)])


def _migrate(settings: Settings, services: tuple[str, ...], no_upgrade_backup: bool) -> None:
    """Back up existing data with migrations pending (unless told not to), then migrate."""
    from atrium.core import migrations  # Alembic: only the commands that migrate load it

    try:
        pending = [
            s
            for s in services
            if migrations.pending(s, settings.database_url, settings.sqlite_path(s))
        ]
    except migrations.NewerData as exc:
        fail(str(exc))
        return
    if pending and not no_upgrade_backup:
        from atrium.ops.manifest import BackupError
        from atrium.ops.schedule import pre_upgrade_backup

        click.echo(f"Migrations to apply ({', '.join(pending)}): backing up first.", err=True)
        try:
            where = pre_upgrade_backup(settings, _progress)
        except BackupError as exc:
            fail(f"the backup before the upgrade failed, nothing was migrated: {exc}")
            return
        click.echo(f"Backup before the upgrade: {where}", err=True)
    for service in services:
        migrations.upgrade(service, settings.database_url, settings.sqlite_path(service))


@main.command()
@click.option("--organization", help="The organization's name.")
@click.option("--email", help="The owner's email address (their sign-in on both services).")
@click.option("--name", "full_name", help="The owner's full name (also their wiki user name).")
@click.option(
    "--password",
    envvar="ATRIUM_INIT_PASSWORD",
    help="The owner's password (better: the ATRIUM_INIT_PASSWORD variable, which `ps` does not "
    "show); asked for when omitted.",
)
@click.option(
    "--link",
    is_flag=True,
    help="Print a one-time link where the owner sets their email, name and password instead.",
)
def init(
    organization: str | None,
    email: str | None,
    full_name: str | None,
    password: str | None,
    link: bool,
) -> None:
    """Create your team's organization and its owner, with no demo data.

    On an empty data directory (or database). The owner is the chat's owner and the wiki's
    bureaucrat, both signed in with the same email and password.
    """
    from atrium.ops.init import InitError, Owner, create_owner

    interactive = sys.stdin.isatty()
    if link:
        from atrium.ops.owner_setup import LIFETIME_SECONDS, issue_link

        if not organization:
            fail("--link needs --organization")
            return
        try:
            url = issue_link(Settings.from_env(), organization)
        except InitError as exc:
            fail(str(exc))
            return
        days = LIFETIME_SECONDS // 86400
        click.echo(f"Once the server runs, the owner opens this link (once, within {days} days):")
        click.echo(f"  {url}")
        return

    def ask(value: str | None, prompt: str, option: str, secret: bool = False) -> str:
        if value:
            return value
        if not interactive:
            fail(f"{option} is required when the input is not a terminal")
        answer: str = click.prompt(prompt, hide_input=secret, confirmation_prompt=secret)
        return answer.strip() if not secret else answer

    settings = Settings.from_env()
    organization = ask(organization, "Organization name", "--organization")
    email = ask(email, "Owner's email", "--email")
    full_name = ask(full_name, "Owner's full name", "--name")
    password = ask(password, "Owner's password", "--password", secret=True)
    try:
        created = create_owner(settings, organization, Owner(email, full_name, password))
    except InitError as exc:
        fail(str(exc))
        return
    base = settings.base_url
    click.echo(f"Created the organization {organization!r}.")
    click.echo(f"  chat: {base}/  sign in as {email} (owner)")
    click.echo(f"  wiki: {base}/wiki/Main_Page  sign in as {created.wiki_name} (bureaucrat, sysop)")
    click.echo("Start the server with `atrium serve`.")


def _progress(line: str) -> None:
    click.echo(line, err=True)


@main.command()
@click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
def backup(dest: Path) -> None:
    """Write a backup of the databases, uploads and secret keys into DEST (a new folder).

    Consistent while the server runs and takes writes; DEST is 0700 and its files 0600.
    """
    from atrium.ops.backup import backup as take_backup
    from atrium.ops.manifest import BackupError

    try:
        take_backup(Settings.from_env(), dest, _progress)
    except BackupError as exc:
        fail(str(exc))


@main.command()
@click.argument("src", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace the data the target already has.")
@click.option(
    "--verify",
    is_flag=True,
    help="Only check the backup (checksums, the databases' integrity); restore nothing.",
)
def restore(src: Path, force: bool, verify: bool) -> None:
    """Restore the backup in SRC into an empty data directory or database, then migrate it.

    Refused while a server runs on the data directory, and on data unless --force.
    """
    from atrium.ops.manifest import BackupError
    from atrium.ops.restore import restore as restore_backup
    from atrium.ops.restore import verify_backup

    try:
        if verify:
            verify_backup(src, _progress)
            click.echo(f"The backup at {src} is sound.")
        else:
            restore_backup(Settings.from_env(), src, force, _progress)
            click.echo(f"Restored {src}. Start the server with `atrium serve`.")
    except BackupError as exc:
        fail(str(exc))


@main.command()
@click.option("--if-empty", is_flag=True, help="Do nothing when an organization already exists.")
def demo(if_empty: bool) -> None:
    """Create a demo organization (users, streams, messages) and demo wiki pages."""
    from atrium.chat.cli import chat_database
    from atrium.chat.demo import DEMO_PASSWORD, DEMO_USERS, create_demo
    from atrium.workspace.cli import link_people, reserve_identities

    settings = Settings.from_env()
    # Each demo person is a member: identity first, then the chat user, then the wiki user.
    reserve_identities(settings, [email for email, _name, _role in DEMO_USERS])
    with chat_database(settings) as db:
        accounts = db.write_sync(create_demo, if_empty)
    link_people(settings)
    if accounts is None:
        click.echo("The demo organization already exists; leaving it as it is.")
        with chat_database(settings) as db:
            from atrium.chat.demo import demo_accounts

            accounts = db.read_sync(demo_accounts)
    click.echo(
        f"\nChat: {settings.base_url}/  (API: /api/v1; password for every demo user: "
        f"{DEMO_PASSWORD})"
    )
    for email, role, api_key in accounts:
        click.echo(f"  {role:<13} {email:<28} API key {api_key}")
    from atrium.wiki.cli import seed_demo

    seed_demo(settings)


if __name__ == "__main__":
    main()

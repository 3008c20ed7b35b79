"""Mail over TLS to a real server (aiosmtpd on 127.0.0.1 with a certificate made here by the
openssl command): STARTTLS and implicit TLS deliver when the server's certificate is signed by a
trusted CA (`ATRIUM_SMTP_CA_FILE`), and nothing is sent to a server whose certificate no trusted
CA signed or names another host."""

from __future__ import annotations

import email
import email.policy
import shutil
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from atrium.core.mail.message import Composer
from atrium.core.mail.outbox import Claimed
from atrium.core.mail.transport import SmtpTransport
from atrium.settings import MailSettings, Settings
from tests.conftest import free_port
from tests.mail_server import Inbox

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")


@dataclass(frozen=True)
class Certificates:
    ca: Path  # the CA the operator trusts
    server: tuple[Path, Path]  # certificate and key for 127.0.0.1, signed by `ca`
    other_host: tuple[Path, Path]  # signed by `ca`, but for mail.example.org only
    stranger_ca: Path  # a CA nobody configured


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _ca(directory: Path, name: str) -> None:
    _openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN={name}",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=directory,
    )  # fmt: skip


def _leaf(directory: Path, name: str, ca: str, san: str) -> tuple[Path, Path]:
    _openssl(
        "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}",
        cwd=directory,
    )  # fmt: skip
    (directory / f"{name}.ext").write_text(
        f"subjectAltName={san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\n"
        "extendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\n"
        "authorityKeyIdentifier=keyid,issuer\n"
    )
    _openssl(
        "x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
        "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext",
        cwd=directory,
    )  # fmt: skip
    return directory / f"{name}.pem", directory / f"{name}.key"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    directory = tmp_path_factory.mktemp("tls")
    _ca(directory, "operator-ca")
    _ca(directory, "stranger-ca")
    server = _leaf(directory, "mail", "operator-ca", "IP:127.0.0.1")
    other = _leaf(directory, "elsewhere", "operator-ca", "DNS:mail.example.org")
    return Certificates(directory / "operator-ca.pem", server, other, directory / "stranger-ca.pem")


def _server_context(chain: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(chain[0]), str(chain[1]))
    return context


class TlsServer:
    def __init__(self, chain: tuple[Path, Path], implicit: bool) -> None:
        self.inbox = Inbox()
        self.port = free_port()
        context = _server_context(chain)
        if implicit:
            self.controller = Controller(
                self.inbox, hostname="127.0.0.1", port=self.port, ssl_context=context
            )
        else:
            # Mail only after STARTTLS: a client that skipped it would be refused.
            self.controller = Controller(
                self.inbox,
                hostname="127.0.0.1",
                port=self.port,
                tls_context=context,
                require_starttls=True,
            )
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()


@pytest.fixture(scope="module")
def starttls_server(certificates: Certificates) -> Iterator[TlsServer]:
    server = TlsServer(certificates.server, implicit=False)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def tls_server(certificates: Certificates) -> Iterator[TlsServer]:
    server = TlsServer(certificates.server, implicit=True)
    yield server
    server.stop()


_ids = iter(range(1, 1_000_000))


def _claimed(to: str) -> Claimed:
    composer = Composer("https://chat.example.org", "atrium@example.org", "noreply@example.org")
    mail = composer.compose(to, "Over TLS", "Plain text", "<p>HTML</p>")
    raw = mail.as_bytes(policy=email.policy.SMTP)
    return Claimed(next(_ids), str(mail["Message-ID"]), "atrium@example.org", to, raw, 0)


def _send(port: int, security: str, ca_file: Path | None, to: str) -> dict[int, str]:
    settings = MailSettings(
        smtp_host="127.0.0.1", smtp_port=port, smtp_security=security, smtp_ca_file=ca_file
    )
    row = _claimed(to)
    transport = SmtpTransport(settings)
    try:
        return transport.send_batch([row])
    finally:
        transport.close()


def _arrived(inbox: Inbox, to: str, timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not inbox.to(to):
        time.sleep(0.05)
    return len(inbox.to(to))


def test_starttls_delivers_to_a_server_the_operators_ca_signed(
    certificates: Certificates, starttls_server: TlsServer
) -> None:
    assert _send(starttls_server.port, "starttls", certificates.ca, "ann@example.org") == {}
    assert _arrived(starttls_server.inbox, "ann@example.org") == 1


def test_implicit_tls_delivers_to_a_server_the_operators_ca_signed(
    certificates: Certificates, tls_server: TlsServer
) -> None:
    assert _send(tls_server.port, "tls", certificates.ca, "bea@example.org") == {}
    assert _arrived(tls_server.inbox, "bea@example.org") == 1


@pytest.mark.parametrize("security", ["starttls", "tls"])
@pytest.mark.parametrize("trust", ["system", "stranger"])
def test_an_untrusted_certificate_gets_no_mail(
    certificates: Certificates,
    starttls_server: TlsServer,
    tls_server: TlsServer,
    security: str,
    trust: str,
) -> None:
    server = starttls_server if security == "starttls" else tls_server
    ca_file = None if trust == "system" else certificates.stranger_ca
    to = f"{security}-{trust}@example.org"
    errors = _send(server.port, security, ca_file, to)
    [error] = errors.values()
    assert error.startswith("connect:") and "CERTIFICATE_VERIFY_FAILED" in error
    assert _arrived(server.inbox, to, timeout=0.2) == 0


def test_a_certificate_for_another_host_gets_no_mail(certificates: Certificates) -> None:
    server = TlsServer(certificates.other_host, implicit=False)
    try:
        [error] = _send(server.port, "starttls", certificates.ca, "cy@example.org").values()
        assert "CERTIFICATE_VERIFY_FAILED" in error and "127.0.0.1" in error
        assert _arrived(server.inbox, "cy@example.org", timeout=0.2) == 0
    finally:
        server.stop()


def test_skipping_starttls_is_refused_by_a_server_that_requires_it(
    starttls_server: TlsServer,
) -> None:
    [error] = _send(starttls_server.port, "none", None, "dan@example.org").values()
    assert "530" in error or "STARTTLS" in error.upper()
    assert _arrived(starttls_server.inbox, "dan@example.org", timeout=0.2) == 0


def test_the_settings_read_the_ca_file_and_refuse_a_missing_one(
    certificates: Certificates, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATRIUM_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("ATRIUM_SMTP_SECURITY", "starttls")
    monkeypatch.setenv("ATRIUM_SMTP_CA_FILE", str(certificates.ca))
    mail = Settings.from_env().mail
    assert (mail.smtp_security, mail.smtp_ca_file) == ("starttls", certificates.ca)
    monkeypatch.setenv("ATRIUM_SMTP_CA_FILE", str(certificates.ca.parent / "missing.pem"))
    with pytest.raises(SystemExit, match="ATRIUM_SMTP_CA_FILE"):
        Settings.from_env()
    monkeypatch.setenv("ATRIUM_SMTP_CA_FILE", str(certificates.ca))
    monkeypatch.setenv("ATRIUM_SMTP_SECURITY", "ssl\r\n")
    with pytest.raises(SystemExit, match="ATRIUM_SMTP_SECURITY"):
        Settings.from_env()

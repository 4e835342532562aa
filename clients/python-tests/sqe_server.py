"""Runs an SQE server (bin/sqe-server, built by `mvn package`) on a free loopback port, for tests."""

import os
import re
import socket
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Server:
    host: str
    port: int
    user: str
    password: str
    data_dir: Optional[Path] = None
    scheme: str = "grpc"
    pid: Optional[int] = None

    @property
    def uri(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}"

    def connect(self):
        """An ADBC Flight SQL connection as this user, each statement committing on its own."""
        import adbc_driver_flightsql.dbapi as flightsql

        return flightsql.connect(self.uri, db_kwargs={"username": self.user, "password": self.password}, autocommit=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(
    data: Path, executable: Optional[str] = None, settings: Optional[dict] = None, admin_password: Optional[str] = None
) -> Iterator[Server]:
    """A server over a fresh data directory, as the generated admin; stopped on exit.

    settings are more SQE_* variables; admin_password is admin's when the data directory already
    has users (the server then generates none).
    """
    port = free_port()
    env = dict(os.environ)
    env.update(
        SQE_PORT=str(port),
        SQE_DATA__DIR=str(data),
        SQE_AUTH_PASSWORD__HASH__ITERATIONS="10000",
        SQE_JAVA_OPTS=os.environ.get("SQE_JAVA_OPTS", "-Xmx1g"),
    )
    env.update(settings or {})
    process = subprocess.Popen(
        [executable or str(REPO / "bin" / "sqe-server")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
    )
    lines: list[str] = []
    ready = threading.Event()

    def drain():
        for line in process.stdout:
            lines.append(line)
            if "SQE is listening" in line:
                ready.set()

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + 180
    while not ready.wait(0.2):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("SQE did not start:\n" + "".join(lines))
    password = next((m.group(1) for m in (re.search(r"password: (\S+)", line) for line in lines) if m), admin_password)
    scheme = "grpc+tls" if "SQE_TLS_CERTIFICATE__CHAIN" in env else "grpc"
    try:
        # bin/sqe-server execs java: the process is the server's JVM.
        yield Server("127.0.0.1", port, "admin", password, data, scheme, process.pid)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()


@dataclass(frozen=True)
class TrinoEndpoint:
    """The Trino endpoint of a running server, over HTTPS with a certificate that `ca` signed."""

    host: str
    port: int
    user: str
    password: str
    ca: Path

    def connect(self, **kwargs):
        """A DB-API connection of Trino's client (`trino` from PyPI) as this user, over HTTPS."""
        import trino

        kwargs.setdefault("catalog", "iceberg")
        return trino.dbapi.connect(
            host=self.host,
            port=self.port,
            user=self.user,
            auth=trino.auth.BasicAuthentication(self.user, self.password),
            http_scheme="https",
            verify=str(self.ca),
            **kwargs,
        )

    def engine(self):
        """An SQLAlchemy engine of Trino's dialect as this user, over HTTPS."""
        import sqlalchemy
        import trino

        return sqlalchemy.create_engine(
            f"trino://{self.user}@{self.host}:{self.port}/iceberg",
            connect_args={
                "auth": trino.auth.BasicAuthentication(self.user, self.password),
                "http_scheme": "https",
                "verify": str(self.ca),
            },
        )


def tls_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A throw-away CA, and a certificate it signs for 127.0.0.1 with its PKCS#8 key: (ca, certificate, key)."""
    ca_key, ca = directory / "ca.key", directory / "ca.pem"
    key, request, certificate = directory / "server.key", directory / "server.csr", directory / "server.pem"
    extensions = directory / "server.ext"
    extensions.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n")

    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca), "-days", "2",
            "-subj", "/CN=SQE test CA")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(request), "-subj", "/CN=127.0.0.1")
    openssl("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
            "-out", str(certificate), "-days", "2", "-extfile", str(extensions))
    return ca, certificate, key


@contextmanager
def running_trino_server(data: Path, certificates: Path, settings: Optional[dict] = None) -> Iterator[tuple[Server, TrinoEndpoint]]:
    """A server with TLS and its Trino endpoint on: Trino's clients send credentials only over HTTPS.

    requests lets REQUESTS_CA_BUNDLE and CURL_CA_BUNDLE win over a client's own CA (verify=), so
    they are unset for this process.
    """
    for variable in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        os.environ.pop(variable, None)
    ca, certificate, key = tls_certificates(certificates)
    port = free_port()
    all_settings = {
        "SQE_TLS_CERTIFICATE__CHAIN": str(certificate),
        "SQE_TLS_PRIVATE__KEY": str(key),
        "SQE_TRINO_PORT": str(port),
    }
    all_settings.update(settings or {})
    with running_server(data, settings=all_settings) as server:
        yield server, TrinoEndpoint("127.0.0.1", port, server.user, server.password, ca)

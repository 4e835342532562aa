"""Starts one SQE server with its Trino endpoint on HTTPS (bin/sqe-server, built by `mvn package`).

Trino's Python client sends credentials only over HTTPS, so the server gets a certificate from a
throw-away CA made here with openssl.
"""

import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python-tests"))

from sqe_server import running_server  # noqa: E402


@dataclass(frozen=True)
class TrinoEndpoint:
    host: str
    port: int
    user: str
    password: str
    ca: Path

    def connect(self, **kwargs):
        """A DB-API connection of Trino's client as this user, over HTTPS."""
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

    def engine(self, schema=None):
        """An SQLAlchemy engine of Trino's dialect as this user, over HTTPS."""
        import sqlalchemy
        import trino

        url = f"trino://{self.user}@{self.host}:{self.port}/iceberg" + (f"/{schema}" if schema else "")
        return sqlalchemy.create_engine(
            url,
            connect_args={
                "auth": trino.auth.BasicAuthentication(self.user, self.password),
                "http_scheme": "https",
                "verify": str(self.ca),
            },
        )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A CA, and a certificate it signs for 127.0.0.1 with its PKCS#8 key: (ca, certificate, key)."""
    ca_key, ca = directory / "ca.key", directory / "ca.pem"
    key, request, certificate = directory / "server.key", directory / "server.csr", directory / "server.pem"
    extensions = directory / "server.ext"
    extensions.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n")

    def run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca), "-days", "2",
        "-subj", "/CN=SQE Trino test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(request), "-subj", "/CN=127.0.0.1")
    run("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial", "-out", str(certificate),
        "-days", "2", "-extfile", str(extensions))
    return ca, certificate, key


@pytest.fixture(scope="session")
def trino_endpoint(tmp_path_factory) -> TrinoEndpoint:
    # requests lets these variables win over a session's own CA bundle (the client's verify=).
    for variable in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        os.environ.pop(variable, None)
    certificates = tmp_path_factory.mktemp("tls")
    ca, certificate, key = _certificates(certificates)
    port = _free_port()
    settings = {
        "SQE_TLS_CERTIFICATE__CHAIN": str(certificate),
        "SQE_TLS_PRIVATE__KEY": str(key),
        "SQE_TRINO_PORT": str(port),
    }
    with running_server(tmp_path_factory.mktemp("sqe-data"), settings=settings) as server:
        yield TrinoEndpoint("127.0.0.1", port, server.user, server.password, ca)

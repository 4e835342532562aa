"""How dbt-sqe connects: timeouts and refused logins fail fast and say why; TLS and tokens reach
the driver."""

import socket
import time

import pytest
from dbt.adapters.contracts.connection import Connection
from dbt.adapters.exceptions.connection import FailedToConnectError

from dbt.adapters.sqe import SqeConnectionManager, SqeCredentials


def credentials(**fields) -> SqeCredentials:
    profile = {"schema": "s", **fields}
    return SqeCredentials.from_dict(SqeCredentials.translate_aliases(profile))


def open_connection(creds: SqeCredentials) -> Connection:
    return SqeConnectionManager.open(Connection(type="sqe", name="test", credentials=creds))


@pytest.fixture
def silent_port():
    """A port that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


def test_a_silent_server_times_out(silent_port):
    started = time.monotonic()
    creds = credentials(host="127.0.0.1", port=silent_port, user="admin", password="x", connect_timeout=2, connect_retries=0)
    with pytest.raises(FailedToConnectError, match="No answer from SQE at grpc://127.0.0.1:.* within 2.0 s"):
        open_connection(creds)
    assert time.monotonic() - started < 10


def test_a_wrong_password_is_refused(sqe_server):
    creds = credentials(host=sqe_server.host, port=sqe_server.port, user=sqe_server.user, password="wrong", connect_retries=0)
    with pytest.raises(FailedToConnectError, match="(?i)unauthenticated"):
        open_connection(creds)


def test_the_catalog_defaults_to_iceberg_and_the_profile_reaches_the_driver(tmp_path):
    pem = tmp_path / "ca.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n")
    creds = credentials(host="sqe.example", port=443, token="t0k", use_tls=True, tls_root_cert=str(pem), query_timeout=30)
    assert creds.database == "iceberg"
    assert creds.uri == "grpc+tls://sqe.example:443"
    options = creds.database_options()
    assert options["adbc.flight.sql.authorization_header"] == "Bearer t0k"
    assert options["adbc.flight.sql.client_option.tls_root_certs"] == pem.read_text()
    assert options["adbc.flight.sql.rpc.timeout_seconds.query"] == "30.0"
    assert "username" not in options

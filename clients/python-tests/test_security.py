"""Access control and TLS through the Python ADBC Flight SQL driver.

One server of this module's own, with an access policy (Trino rules.json format), local users
alice (role hr) and bob (role analyst), and TLS with a certificate made here with openssl.
"""

import base64
import hashlib
import json
import os
import subprocess

import adbc_driver_flightsql.dbapi as flightsql
import pytest

from sqe_server import running_server

ITERATIONS = 10_000
ADMIN_PASSWORD = "admin-pw-for-tests"
USERS = {"admin": (ADMIN_PASSWORD, ["admin"]), "alice": ("alice-pw", ["hr"]), "bob": ("bob-pw", ["analyst"])}

POLICY = {
    "schemas": [{"role": "admin", "owner": True}],
    "tables": [
        {"role": "admin", "privileges": ["OWNERSHIP"]},
        {"role": "hr", "schema": "hr", "privileges": ["SELECT"]},
        {
            "role": "analyst",
            "schema": "hr",
            "table": "employees",
            "privileges": ["SELECT"],
            "filter": "region = 'EU'",
            "columns": [{"name": "salary", "allow": False}, {"name": "ssn", "mask": "'XXX-' || substring(ssn, 8)"}],
        },
    ],
}

EMPLOYEES = [
    (1, "ann", "123-45-6789", "EU", 100),
    (2, "ben", "987-65-4321", "US", 200),
    (3, "cid", "555-12-3456", "EU", 300),
]


def write_users(security_dir):
    """The user store the server reads at start: PBKDF2-HMAC-SHA256 hashes, as UserStore writes them."""
    os.makedirs(security_dir, mode=0o700, exist_ok=True)
    users = []
    for name, (password, roles) in USERS.items():
        salt = os.urandom(16)
        digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, ITERATIONS, dklen=32)
        users.append(
            {
                "name": name,
                "roles": roles,
                "algorithm": "PBKDF2WithHmacSHA256",
                "iterations": ITERATIONS,
                "salt": base64.b64encode(salt).decode(),
                "hash": base64.b64encode(digest).decode(),
            }
        )
    path = security_dir / "users.json"
    path.write_text(json.dumps({"version": 1, "users": users}))
    path.chmod(0o600)


def make_certificate(directory):
    """A self-signed server certificate for 127.0.0.1 and its PKCS#8 key, as PEM files."""
    cert, key = directory / "server.crt", directory / "server.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    assert key.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    return cert, key


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    base = tmp_path_factory.mktemp("sqe-secured")
    data = base / "data"
    write_users(data / "security")
    policy = base / "rules.json"
    policy.write_text(json.dumps(POLICY))
    cert, key = make_certificate(base)
    settings = {
        "SQE_SECURITY_POLICY__FILE": str(policy),
        "SQE_TLS_CERTIFICATE__CHAIN": str(cert),
        "SQE_TLS_PRIVATE__KEY": str(key),
    }
    with running_server(data, settings=settings, admin_password=ADMIN_PASSWORD) as server:
        assert server.uri.startswith("grpc+tls://")
        with connect(server, "admin", cert) as conn, conn.cursor() as cur:
            cur.execute("CREATE SCHEMA hr")
            cur.execute("CREATE TABLE hr.employees (id INT, name VARCHAR, ssn VARCHAR, region VARCHAR, salary INT)")
            values = ", ".join(f"({i}, '{n}', '{s}', '{r}', {p})" for i, n, s, r, p in EMPLOYEES)
            cur.execute(f"INSERT INTO hr.employees VALUES {values}")
        yield server, cert


def connect(server, user, root_cert):
    kwargs = {"username": user, "password": USERS[user][0]}
    if root_cert is not None:
        kwargs["adbc.flight.sql.client_option.tls_root_certs"] = root_cert.read_text()
    return flightsql.connect(server.uri, db_kwargs=kwargs, autocommit=True)


def rows(server, user, cert, sql):
    with connect(server, user, cert) as conn, conn.cursor() as cur:
        cur.execute(sql)
        table = cur.fetch_arrow_table()
    return table.column_names, [tuple(r.values()) for r in table.to_pylist()]


def test_two_roles_see_different_results_from_the_same_query_over_tls(secured):
    server, cert = secured
    sql = "SELECT * FROM hr.employees ORDER BY id"
    alice_columns, alice_rows = rows(server, "alice", cert, sql)
    bob_columns, bob_rows = rows(server, "bob", cert, sql)
    assert alice_columns == ["id", "name", "ssn", "region", "salary"]
    assert alice_rows == EMPLOYEES
    # bob's policy: EU rows only, salary hidden, ssn masked to its last four characters.
    assert bob_columns == ["id", "name", "ssn", "region"]
    assert bob_rows == [(i, n, "XXX-" + s[7:], r) for i, n, s, r, _ in EMPLOYEES if r == "EU"]
    assert rows(server, "bob", cert, "SELECT current_user")[1] == [("bob",)]


def test_denied_statement_is_permission_denied_through_adbc(secured):
    server, cert = secured
    with connect(server, "bob", cert) as conn, conn.cursor() as cur:
        with pytest.raises(flightsql.ProgrammingError, match="Access denied") as error:
            cur.execute("INSERT INTO hr.employees VALUES (9, 'x', 'y', 'EU', 1)")
    assert "UNAUTHORIZED" in str(error.value) or "Unauthorized" in str(error.value)


def test_clients_that_do_not_trust_the_certificate_or_skip_tls_cannot_connect(secured):
    server, _ = secured
    # The system's roots do not include the test certificate.
    with pytest.raises(flightsql.Error):
        rows(server, "alice", None, "SELECT 1")
    plain = server.uri.replace("grpc+tls://", "grpc://")
    with pytest.raises(flightsql.Error):
        with flightsql.connect(plain, db_kwargs={"username": "alice", "password": "alice-pw"}, autocommit=True) as conn:
            with conn.cursor() as cur:
                cur.execute("SELECT 1")
                cur.fetchall()

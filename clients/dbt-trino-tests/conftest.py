"""Starts one SQE server with TLS, its Flight SQL port for dbt-sqe and its Trino endpoint for dbt-trino."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python-tests"))

from sqe_server import TrinoEndpoint, running_trino_server  # noqa: E402


@pytest.fixture(scope="session")
def sqe_with_trino(tmp_path_factory):
    """(server, endpoint): the server's Flight SQL address and its Trino endpoint, one CA for both."""
    with running_trino_server(tmp_path_factory.mktemp("sqe-data"), tmp_path_factory.mktemp("tls")) as pair:
        yield pair


@pytest.fixture(scope="session")
def trino_endpoint(sqe_with_trino) -> TrinoEndpoint:
    return sqe_with_trino[1]


# dbt's test fixtures (the `project` fixture the dbt-tests-adapter classes use), pointed at the
# Trino endpoint through dbt-trino.
pytest_plugins = ["dbt.tests.fixtures.project"]


@pytest.fixture(scope="class")
def dbt_profile_target(trino_endpoint):
    return {
        "type": "trino",
        "method": "ldap",
        "host": trino_endpoint.host,
        "port": trino_endpoint.port,
        "user": trino_endpoint.user,
        "password": trino_endpoint.password,
        "cert": str(trino_endpoint.ca),
        "database": "iceberg",
        "threads": 2,
    }

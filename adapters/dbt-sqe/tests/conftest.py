"""Starts one SQE server for the test session and points dbt's test fixtures at it.

The server is the build in flight-server/target (bin/sqe-server, or SQE_SERVER_BIN), on a free
loopback port with a fresh data directory. SQE_TEST_URI (grpc://host:port) with SQE_TEST_USER and SQE_TEST_PASSWORD
use a running server instead, and SQE_TEST_DATA_DIR names its data directory (tests that read
Iceberg metadata files skip without it).
"""

import os
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

REPO = Path(__file__).resolve().parents[3]
# The client tests' server launcher, shared by both test suites.
sys.path.insert(0, str(REPO / "clients" / "python-tests"))
from sqe_server import Server, running_server  # noqa: E402

pytest_plugins = ["dbt.tests.fixtures.project"]


@pytest.fixture(scope="session")
def sqe_server(tmp_path_factory):
    if os.environ.get("SQE_TEST_URI"):
        uri = urlparse(os.environ["SQE_TEST_URI"])
        data_dir = Path(os.environ["SQE_TEST_DATA_DIR"]) if os.environ.get("SQE_TEST_DATA_DIR") else None
        yield Server(uri.hostname, uri.port, os.environ["SQE_TEST_USER"], os.environ["SQE_TEST_PASSWORD"], data_dir)
        return
    with running_server(tmp_path_factory.mktemp("sqe-data"), os.environ.get("SQE_SERVER_BIN")) as server:
        yield server


@pytest.fixture(scope="class")
def dbt_profile_target(sqe_server):
    return {
        "type": "sqe",
        "host": sqe_server.host,
        "port": sqe_server.port,
        "user": sqe_server.user,
        "password": sqe_server.password,
        "database": "iceberg",
        "threads": 4,
    }


@pytest.fixture(scope="session")
def has_information_schema(sqe_server):
    with sqe_server.connect() as conn, conn.cursor() as cursor:
        try:
            cursor.execute("select count(*) from iceberg.information_schema.schemata")
            cursor.fetchall()
            return True
        except Exception:
            return False


@pytest.fixture(autouse=True)
def _skip_without_information_schema(request):
    if request.node.get_closest_marker("information_schema") and not request.getfixturevalue("has_information_schema"):
        pytest.skip("this SQE server has no information_schema yet")

"""Starts one SQE server for the test session and points dbt's test fixtures at it.

The server is the build in flight-server/target (bin/sqe-server), on a free loopback port with a
fresh data directory. SQE_TEST_URI (grpc://host:port) with SQE_TEST_USER and SQE_TEST_PASSWORD
use a running server instead, and SQE_TEST_DATA_DIR names its data directory (tests that read
Iceberg metadata files skip without it).
"""

import os
import re
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional
from urllib.parse import urlparse

import pytest

pytest_plugins = ["dbt.tests.fixtures.project"]

REPO = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Server:
    host: str
    port: int
    user: str
    password: str
    data_dir: Optional[Path] = None

    @property
    def uri(self) -> str:
        return f"grpc://{self.host}:{self.port}"

    def connect(self):
        """An ADBC connection as admin, outside dbt, each statement committing on its own."""
        import adbc_driver_flightsql.dbapi as flightsql

        return flightsql.connect(self.uri, db_kwargs={"username": self.user, "password": self.password}, autocommit=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(data: Path):
    port = _free_port()
    env = dict(os.environ)
    env.update(
        SQE_PORT=str(port),
        SQE_DATA__DIR=str(data),
        SQE_AUTH_PASSWORD__HASH__ITERATIONS="10000",
        SQE_JAVA_OPTS=os.environ.get("SQE_JAVA_OPTS", "-Xmx1g"),
    )
    server = os.environ.get("SQE_SERVER_BIN", str(REPO / "bin" / "sqe-server"))
    process = subprocess.Popen([server], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    lines = []
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
    password = next(m.group(1) for m in (re.search(r"password: (\S+)", line) for line in lines) if m)
    return process, Server("127.0.0.1", port, "admin", password, data)


@pytest.fixture(scope="session")
def sqe_server(tmp_path_factory):
    if os.environ.get("SQE_TEST_URI"):
        uri = urlparse(os.environ["SQE_TEST_URI"])
        data_dir = Path(os.environ["SQE_TEST_DATA_DIR"]) if os.environ.get("SQE_TEST_DATA_DIR") else None
        yield Server(uri.hostname, uri.port, os.environ["SQE_TEST_USER"], os.environ["SQE_TEST_PASSWORD"], data_dir)
        return
    process, server = _start(tmp_path_factory.mktemp("sqe-data"))
    yield server
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()


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

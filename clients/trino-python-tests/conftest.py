"""Starts one SQE server with its Trino endpoint on HTTPS (bin/sqe-server, built by `mvn package`)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python-tests"))

from sqe_server import TrinoEndpoint, running_trino_server  # noqa: E402


@pytest.fixture(scope="session")
def trino_endpoint(tmp_path_factory) -> TrinoEndpoint:
    with running_trino_server(tmp_path_factory.mktemp("sqe-data"), tmp_path_factory.mktemp("tls")) as (_, endpoint):
        yield endpoint

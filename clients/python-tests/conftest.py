"""Starts one SQE server (bin/sqe-server, built by `mvn package`) on a free loopback port for the session."""

import pytest

from sqe_server import Server, running_server


@pytest.fixture(scope="session")
def sqe(tmp_path_factory) -> Server:
    with running_server(tmp_path_factory.mktemp("sqe-data")) as server:
        yield server

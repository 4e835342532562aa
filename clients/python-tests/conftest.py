"""Starts one SQE server (bin/sqe-server, built by `mvn package`) on a free loopback port for the session."""

import os
import re
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Server:
    host: str
    port: int
    user: str
    password: str

    @property
    def uri(self) -> str:
        return f"grpc://{self.host}:{self.port}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def sqe(tmp_path_factory) -> Server:
    data = tmp_path_factory.mktemp("sqe-data")
    port = _free_port()
    env = dict(os.environ)
    env.update(
        SQE_PORT=str(port),
        SQE_DATA__DIR=str(data),
        SQE_AUTH_PASSWORD__HASH__ITERATIONS="10000",
        SQE_JAVA_OPTS="-Xmx1g",
    )
    process = subprocess.Popen(
        [str(REPO / "bin" / "sqe-server")],
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
    password = next(
        m.group(1) for m in (re.search(r"password: (\S+)", line) for line in lines) if m
    )
    yield Server("127.0.0.1", port, "admin", password)
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()

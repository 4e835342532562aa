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

    @property
    def uri(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}"

    def connect(self):
        """An ADBC Flight SQL connection as this user, each statement committing on its own."""
        import adbc_driver_flightsql.dbapi as flightsql

        return flightsql.connect(self.uri, db_kwargs={"username": self.user, "password": self.password}, autocommit=True)


def _free_port() -> int:
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
    port = _free_port()
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
        yield Server("127.0.0.1", port, "admin", password, data, scheme)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()

"""Three SQE servers over one Iceberg REST catalog behind HAProxy, as deploy/haproxy/haproxy.cfg
sets them up, for the ADBC and dbt clients (JDBC's are flight-server's LoadBalancedServersTest).

The servers are three processes of bin/sqe-server (built by `mvn verify` or `mvn package`) with
one `security/` directory's files, so a token, ticket or handle one issues works on all. The
catalog is Apache Iceberg's REST servlet over SQLite, run as a process from flight-server's test
classes (io.sqe.flight.testing.RestCatalogFixture, with the classpath Maven writes to
flight-server/target/test-classpath.txt). HAProxy is Debian's `haproxy` (.ci/run installs it);
without it the tests fail, since a load balancer is what they test.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "clients" / "python-tests"))
from sqe_server import Server, free_port, running_server  # noqa: E402

RECIPE = REPO / "deploy" / "haproxy" / "haproxy.cfg"
SERVERS = 3


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    return str(Path(home) / "bin" / "java") if home else "java"


@contextmanager
def rest_catalog(directory: Path) -> Iterator[str]:
    """Iceberg's REST catalog as a process on a loopback port; yields its URI."""
    target = REPO / "flight-server" / "target"
    classpath_file = target / "test-classpath.txt"
    if not classpath_file.exists() or not (target / "test-classes").is_dir():
        raise RuntimeError("flight-server's test classes are not built: run `mvn verify` (or `mvn package`) first")
    classpath = os.pathsep.join([str(target / "test-classes"), str(target / "classes"), classpath_file.read_text().strip()])
    process = subprocess.Popen(
        [_java(), "-Xmx256m", "-cp", classpath, "io.sqe.flight.testing.RestCatalogFixture", str(directory)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines: list[str] = []
    uri = None
    deadline = time.monotonic() + 120
    for line in process.stdout:
        lines.append(line)
        match = re.match(r"REST catalog at (\S+)", line)
        if match:
            uri = match.group(1)
            break
        if time.monotonic() > deadline:
            break
    if uri is None:
        process.kill()
        raise RuntimeError("The REST catalog did not start:\n" + "".join(lines))
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    try:
        yield uri
    finally:
        process.stdin.close()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()


@dataclass(frozen=True)
class Member:
    """One server behind the proxy: its Flight SQL server and its operations port."""

    server: Server
    http_port: int

    def metric(self, name: str, **labels: str) -> float:
        """The sum of a counter's samples on this server's /metrics whose labels include `labels`."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/metrics", timeout=10) as response:
            text = response.read().decode()
        total = 0.0
        for line in text.splitlines():
            match = re.match(r"(\w+)(\{[^}]*\})? (\S+)$", line)
            if not match or match.group(1) != name:
                continue
            sample = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2) or ""))
            if all(sample.get(key) == value for key, value in labels.items()):
                total += float(match.group(3))
        return total


def haproxy_config(mode: str, port: int, members: list[Member]) -> str:
    """deploy/haproxy/haproxy.cfg for this machine, on 127.0.0.1:`port` in front of `members`:
    "tcp" as the recipe has it; "h2" the HTTP/2 (per call) frontend and backend its comment gives;
    "h2-by-token" those balanced on the client's token, as the comment says for clients with
    session state."""
    recipe = RECIPE.read_text()
    head, _, per_call = recipe.partition("# Per call")
    if mode.startswith("h2"):
        uncommented = []
        started = False
        for line in per_call.splitlines():
            started = started or line.startswith("# frontend flight")
            if started and line.startswith("#"):
                uncommented.append(line[2:] if line.startswith("# ") else line[1:])
        head = head[: head.index("frontend flight")] + "\n".join(uncommented) + "\n"
        if mode == "h2-by-token":
            by_token = re.search(r"(?m)^#   #   (balance hash req\.hdr\(authorization\).*)$", per_call)
            assert by_token, "the recipe's comment gives the by-token balance line"
            head, balanced = re.subn(r"(?m)^  balance roundrobin$", lambda _: "  " + by_token.group(1), head)
            assert balanced == 1, "the recipe's per-call backend balances round-robin once"
    config, binds = re.subn(r"bind :50051", f"bind 127.0.0.1:{port}", head)
    assert binds == 1, "the recipe's frontend binds :50051 once"
    servers = iter(members)

    def server_line(match: re.Match) -> str:
        member = next(servers)
        return f"{match.group(1)}127.0.0.1:{member.server.port}{match.group(2)}port {member.http_port}"

    config, count = re.subn(r"(server sqe\d )10\.0\.0\.\d+:50051(.*?)port 8081", server_line, config)
    assert count == len(members), f"the recipe names {count} servers"
    return config


@contextmanager
def haproxy(directory: Path, mode: str, members: list[Member]) -> Iterator[int]:
    """HAProxy in `mode` (see haproxy_config) in front of the members; yields the port clients use."""
    executable = shutil.which("haproxy") or ("/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None)
    if executable is None:
        raise RuntimeError("HAProxy is not installed (apt-get install -y haproxy; .ci/run does)")
    port = free_port()
    config = directory / f"haproxy-{mode}.cfg"
    config.write_text(haproxy_config(mode, port, members))
    log = open(directory / f"haproxy-{mode}.log", "w")
    process = subprocess.Popen([executable, "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("HAProxy did not start: " + (directory / f"haproxy-{mode}.log").read_text())
                time.sleep(0.1)
        # Let the first health checks (every 2 s) pass.
        time.sleep(2.5)
        yield port
    finally:
        process.terminate()
        process.wait(10)
        log.close()


@dataclass(frozen=True)
class Cluster:
    members: list[Member]
    proxies: dict[str, int]
    user: str
    password: str

    def through(self, mode: str) -> Server:
        """The proxy in `mode` as a server clients connect to."""
        return Server("127.0.0.1", self.proxies[mode], self.user, self.password)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    base = tmp_path_factory.mktemp("load-balanced")
    with ExitStack() as stack:
        uri = stack.enter_context(rest_catalog(base / "rest"))
        members: list[Member] = []
        password = None
        for i in range(1, SERVERS + 1):
            data = base / f"sqe-{i}"
            if members:
                # The servers share their users and signing keys (docs/deploy.md, "Several servers").
                security = data / "security"
                security.mkdir(parents=True)
                for name in ("users.json", "signing-keys.jwks"):
                    shutil.copy2(base / "sqe-1" / "security" / name, security / name)
            http_port = free_port()
            settings = {
                "SQE_CATALOG_TYPE": "rest",
                "SQE_CATALOG_PROPERTIES_URI": uri,
                "SQE_HTTP_PORT": str(http_port),
                # Servers behind one address ask the catalog for every table a statement reads, so
                # that a client sees what it wrote through another server (docs/deploy.md).
                "SQE_CATALOG_CACHE__TTL": "0s",
                "SQE_JAVA_OPTS": os.environ.get("SQE_JAVA_OPTS", "-Xmx768m"),
            }
            server = stack.enter_context(running_server(data, settings=settings, admin_password=password))
            password = server.password
            members.append(Member(server, http_port))
        proxies = {mode: stack.enter_context(haproxy(base, mode, members)) for mode in ("tcp", "h2", "h2-by-token")}
        yield Cluster(members, proxies, members[0].server.user, password)

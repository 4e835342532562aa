"""Times `dbt build` of a generated project against a fresh SQE server: a full build, then an
incremental one after new orders arrive, and SQE's share of each. With --reuse, times `dbt run`
three times instead: a first run, the same run with nothing changed (every table model should be
reused: no data file written), and one after the products seed changed (only the table models
that read its values should be rebuilt), counting from the server's audit log which table models were reused.

Node time is the sum of dbt's per-node execution times (threads run nodes in parallel, so it
exceeds the wall time). SQE's share of it is the time dbt spent waiting for SQE's answers: the
`elapsed` of every SQLQueryStatus event in dbt's JSON log (one per statement dbt sends, timed by
dbt around the call; loopback, so server time plus a round trip), plus the seed nodes, which load
through ADBC bulk ingest that dbt does not log per statement. The rest of the node time is dbt's
own (Jinja, relation cache, connections). dbt start-up is parsing and everything before the
first node. When the server writes an audit log (the `audit.file` setting: JSON lines, one per
statement, with `elapsed_ms`), its sum is reported as well: that is the time measured inside the
server. The script asks for the audit log and falls back to the dbt log alone when the server
does not know the setting.
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from contextlib import ExitStack, contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "clients" / "python-tests"))
sys.path.insert(0, str(HERE))
from generate_project import generate, grow_orders  # noqa: E402
from sqe_server import running_server  # noqa: E402


@contextmanager
def sqe(data: Path, audit: Path):
    """A fresh server, writing its audit log to `audit` when it knows the setting."""
    with ExitStack() as stack:
        os.environ["SQE_AUDIT_FILE"] = str(audit)
        try:
            server, audited = stack.enter_context(running_server(data)), True
        except RuntimeError as e:
            # Until the audit log lands the server refuses the setting: run without it.
            if "Unknown settings" not in str(e):
                raise
            shutil.rmtree(data, ignore_errors=True)
            data.mkdir(parents=True)
            os.environ.pop("SQE_AUDIT_FILE", None)
            server, audited = stack.enter_context(running_server(data)), False
        finally:
            os.environ.pop("SQE_AUDIT_FILE", None)
        yield server, audited


def dbt_build(dbt_bin: str, project: Path, logs: Path, server, threads: int) -> dict:
    return dbt(dbt_bin, ["build"], project, logs, server, threads)


def read_logs(logs: Path, wall: float) -> dict:
    """The numbers of one `dbt build` from its JSON log."""
    statements, waited, node_time, seed_time = 0, 0.0, 0.0, 0.0
    status: dict[str, int] = {}
    first_event = first_node = None
    with open(logs / "dbt.log") as f:
        for line in f:
            event = json.loads(line)
            name = event["info"]["name"]
            first_event = first_event or event["info"]["ts"]
            if name == "NodeStart" and first_node is None:
                first_node = event["info"]["ts"]
            if name == "SQLQueryStatus":
                statements += 1
                waited += float(event["data"]["elapsed"])
            elif name == "NodeFinished":
                result = event["data"]["run_result"]
                node_time += float(result.get("execution_time", 0))
                status[result["status"]] = status.get(result["status"], 0) + 1
                if event["data"]["node_info"]["unique_id"].startswith("seed."):
                    seed_time += float(result.get("execution_time", 0))
    ts = lambda t: datetime.fromisoformat(t.replace("Z", "+00:00"))  # noqa: E731
    return {
        "wall_s": wall,
        "before_first_node_s": (ts(first_node) - ts(first_event)).total_seconds() if first_node else None,
        "nodes": sum(status.values()),
        "status": status,
        "node_s": node_time,
        "statements": statements,
        "sqe_wait_s": waited,
        "seed_node_s": seed_time,
    }


def audit_seconds(audit: Path, since_line: int) -> tuple[float, int, int]:
    """Seconds of `elapsed_ms` of the statements in the audit log after line `since_line` (logins,
    which the log records too, left out), how many, and the new line count."""
    if not audit.exists():
        return 0.0, 0, since_line
    lines = audit.read_text().splitlines()
    events = [json.loads(line) for line in lines[since_line:] if line.strip()]
    statements = [e for e in events if e.get("event") == "statement"]
    total = sum(float(e.get("elapsed_ms") or 0) for e in statements)
    return total / 1000, len(statements), len(lines)


def cpu_seconds(pid: int) -> float:
    """The CPU time the process has used so far, every thread's (planning, execution, JIT, GC)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def audit_materializations(audit: Path, since_line: int) -> dict:
    """Per table written after line `since_line` of the audit log, whether its materialization was reused."""
    out: dict[str, bool] = {}
    for line in audit.read_text().splitlines()[since_line:]:
        event = json.loads(line) if line.strip() else {}
        m = event.get("materialization")
        if event.get("event") == "statement" and m is not None:
            for table in event.get("tables", {}).get("written", []):
                out[str(table).split(".")[-1].strip('"')] = bool(m.get("reused"))
    return out


def parquet_files(data: Path) -> set[str]:
    return {str(p) for p in data.rglob("*.parquet")}


def dbt(dbt_bin: str, command: list[str], project: Path, logs: Path, server, threads: int) -> dict:
    """Runs one dbt command (`run`, `seed ...`) against `server`; its numbers from dbt's JSON log."""
    env = dict(os.environ, SQE_HOST=server.host, SQE_PORT=str(server.port), SQE_USER=server.user,
               SQE_PASSWORD=server.password, SQE_BENCH_THREADS=str(threads), DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    shutil.rmtree(logs, ignore_errors=True)
    start = time.perf_counter()
    result = subprocess.run(
        [dbt_bin, *command, "--project-dir", str(project), "--profiles-dir", str(project), "--log-path", str(logs),
         "--log-format-file", "json", "--log-level-file", "debug", "--target-path", str(project / "target")],
        env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:])
        raise SystemExit(f"dbt {' '.join(command)} failed ({result.returncode}); log in {logs}")
    return read_logs(logs, wall)


def changed_tables(project: Path, seed: str) -> set[str]:
    """The table models whose input changes when `seed` is reloaded with other values (not new
    rows), from dbt's manifest: what reads a changed node changes, except an incremental model,
    which takes only rows newer than its own (and a changed seed brings none)."""
    nodes = json.loads((project / "target" / "manifest.json").read_text())["nodes"]
    nodes = {k: v for k, v in nodes.items() if v["resource_type"] in ("model", "seed")}
    kind = {v["name"]: v["config"].get("materialized") for v in nodes.values()}
    parents = {v["name"]: [nodes[p]["name"] for p in v.get("depends_on", {}).get("nodes", []) if p in nodes]
               for v in nodes.values()}
    changed = {seed}
    grown = True
    while grown:
        more = {n for n, ps in parents.items() if n not in changed and kind[n] != "incremental" and any(p in changed for p in ps)}
        changed |= more
        grown = bool(more)
    return {n for n in changed if kind[n] == "table"}


def change_products(project: Path) -> None:
    """Moves every fifth product to another category in the products seed."""
    path = project / "seeds" / "products.csv"
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    for row in rows[1::5]:
        row[2] = str(int(row[2]) % 10 + 1)
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(rows)


def reuse_runs(args, work: Path, project: Path, data: Path, audit: Path) -> None:
    """The --reuse mode: `dbt run` first, again unchanged, and again after one seed changed."""
    table_models = {p.stem for p in (project / "models").glob("*.sql")
                    if "materialized='table'" in p.read_text()}
    rows = []
    with sqe(data, audit) as (server, audited):
        if not audited:
            raise SystemExit("--reuse needs the server's audit log (audit.file)")
        if args.warm_up:
            # The same project into another schema first, run RUNS times: the measured runs then
            # find more of the server's code compiled, as a server that has run for a while has it.
            # A fresh JVM spends about half its CPU of the unchanged run in its JIT compilers.
            warm = work / "warm-project"
            generate(warm, args.models, args.seed, schema="dbt_bench_warm")
            for command in [["seed"]] + [["run"]] * args.warm_up:
                dbt(args.dbt, command, warm, work / "logs-warm-up", server, args.threads)
        dbt(args.dbt, ["seed"], project, work / "logs-seed", server, args.threads)
        _, _, seen = audit_seconds(audit, 0)
        for run in ("first", "unchanged", "products changed"):
            if run == "products changed":
                change_products(project)
                dbt(args.dbt, ["seed", "--select", "products"], project, work / "logs-seed-products", server, args.threads)
                _, _, seen = audit_seconds(audit, seen)
            files = parquet_files(data)
            cpu = cpu_seconds(server.pid)
            r = dbt(args.dbt, ["run"], project, work / f"logs-{run.replace(' ', '-')}", server, args.threads)
            r["server_cpu_s"] = cpu_seconds(server.pid) - cpu
            written = audit_materializations(audit, seen)
            r["audit_s"], r["audit_statements"], seen = audit_seconds(audit, seen)
            r["run"] = run
            r["new_parquet_files"] = len(parquet_files(data) - files)
            tables = {t: reused for t, reused in written.items() if t in table_models}
            r["tables_reused"] = sorted(t for t, reused in tables.items() if reused)
            r["tables_rebuilt"] = sorted(t for t, reused in tables.items() if not reused)
            rows.append(r)
            print(json.dumps({k: (len(v) if isinstance(v, list) else v) for k, v in r.items()}))
    expected = changed_tables(project, "products")
    print()
    print(f"{len(table_models)} table models; {len(expected)} read the products seed's values: {sorted(expected)}")
    print("| run | models | wall (s) | SQE audit (s) | SQE CPU (s) | statements | dbt's statement time (s) | new Parquet files | table models reused | rebuilt |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['run']} | {r['nodes']} | {r['wall_s']:.1f} | {r['audit_s']:.2f} | {r['server_cpu_s']:.2f} | {r['audit_statements']} | "
              f"{r['sqe_wait_s']:.2f} | {r['new_parquet_files']} | {len(r['tables_reused'])} | {len(r['tables_rebuilt'])} |")
    first, unchanged, changed = rows
    # The audit times a statement's execution (an ad-hoc one's planning included, not the prepare
    # of a prepared one: ADBC prepares what dbt sends); the server's CPU time counts everything it
    # did in the run (prepares, dbt's metadata queries, JIT and GC too); dbt's time of each
    # statement also counts the result's DoGet, the loopback round trips, dbt's own work and its
    # threads' waits for the cores.
    print(f"unchanged run: SQE time {unchanged['audit_s'] / first['audit_s']:.0%} of the first run's (audit), "
          f"{unchanged['server_cpu_s'] / first['server_cpu_s']:.0%} (server CPU), "
          f"{unchanged['sqe_wait_s'] / first['sqe_wait_s']:.0%} (dbt's statement time, round trips and waits included)")
    wrong = set(changed["tables_rebuilt"]) ^ expected
    print(f"rebuilt after the change: {changed['tables_rebuilt']}: "
          + ("exactly those" if not wrong else f"differs from those by {sorted(wrong)}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--new-orders", type=int, default=500)
    parser.add_argument("--dbt", default=str(REPO / ".venv-dbt-test" / "bin" / "dbt"))
    parser.add_argument("--work-dir", type=Path, default=None, help="kept after the run (default: a temporary directory)")
    parser.add_argument("--reuse", action="store_true", help="time dbt run first, unchanged and after one seed changed")
    parser.add_argument("--warm-up", type=int, nargs="?", const=2, default=0, metavar="RUNS",
                        help="with --reuse: run the project RUNS times (2 if not given) into another schema first")
    args = parser.parse_args()

    work = args.work_dir or Path(tempfile.mkdtemp(prefix="sqe-bench-dbt-"))
    shutil.rmtree(work, ignore_errors=True)
    project, data, audit = work / "project", work / "data", work / "audit.jsonl"
    data.mkdir(parents=True)
    generate(project, args.models, args.seed)
    print(f"project: {args.models} models ({(project / 'shape.txt').read_text().strip()}), 3 seeds, in {project}")
    if args.reuse:
        reuse_runs(args, work, project, data, audit)
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
        return
    rows = []
    with sqe(data, audit) as (server, audited):
        seen = 0
        for run in ("full", "incremental"):
            if run == "incremental":
                grow_orders(project, args.new_orders)
            r = dbt_build(args.dbt, project, work / f"logs-{run}", server, args.threads)
            r["run"] = run
            r["audit_s"], r["audit_statements"], seen = audit_seconds(audit, seen) if audited else (None, None, seen)
            rows.append(r)
            print(json.dumps(r))
    print()
    print("| run | nodes | wall (s) | dbt start-up (s) | node time (s) | statements | SQE statement time (s) | seed loads (s) | SQE share of node time | SQE audit (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        audit_text = "n/a" if r["audit_s"] is None else f"{r['audit_s']:.1f} ({r['audit_statements']} statements)"
        share = (r["sqe_wait_s"] + r["seed_node_s"]) / r["node_s"] if r["node_s"] else 0
        print(f"| {r['run']} | {r['nodes']} | {r['wall_s']:.0f} | {r['before_first_node_s']:.0f} | {r['node_s']:.0f} | {r['statements']} | "
              f"{r['sqe_wait_s']:.0f} | {r['seed_node_s']:.0f} | {share:.0%} | {audit_text} |")
    if not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""ADBC and dbt through HAProxy in front of three SQE servers: no call fails, no write is lost or
duplicated, and dbt builds the same tables as a recomputation of its seeds in Python.

In TCP mode HAProxy spreads connections over the servers; in HTTP/2 mode (the recipe's "Per call")
every gRPC call, so a statement's GetFlightInfo, parameter binding and DoGet land on different
servers, which redeem each other's tickets and handles.
"""

import threading
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest

CLIENTS = 4
ROUNDS = 5
INGESTED = 5


def _statements(cluster) -> list[float]:
    return [member.metric("sqe_statements_total") for member in cluster.members]


@pytest.mark.parametrize("mode", ["tcp", "h2"])
def test_adbc_clients_spread_over_three_servers_lose_no_write(cluster, mode):
    schema = f"lb_adbc_{mode}"
    table = f"{schema}.events"
    with cluster.members[0].server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"CREATE SCHEMA {schema}")
        cur.execute(f"CREATE TABLE {table} (id BIGINT, client INT, note VARCHAR)")
    before = _statements(cluster)
    problems: list[str] = []
    expected: dict[int, str] = {}
    lock = threading.Lock()

    def client(c: int):
        mine = 0
        try:
            with cluster.through(mode).connect() as conn, conn.cursor() as cur:
                for r in range(ROUNDS):
                    base = c * 10_000 + r * 100
                    cur.execute(f"INSERT INTO {table} VALUES ({base}, {c}, 'literal')")
                    cur.execute(f"INSERT INTO {table} VALUES (?, ?, ?)", (base + 1, c, "bound"))
                    ids = [base + 10 + i for i in range(INGESTED)]
                    rows = pa.table({
                        "id": pa.array(ids, pa.int64()),
                        "client": pa.array([c] * INGESTED, pa.int32()),
                        "note": pa.array(["ingested"] * INGESTED),
                    })
                    assert cur.adbc_ingest("events", rows, mode="append", db_schema_name=schema) == INGESTED
                    with lock:
                        expected.update({base: "literal", base + 1: "bound"})
                        expected.update({i: "ingested" for i in ids})
                    mine += 2 + INGESTED
                    cur.execute(f"SELECT count(*) FROM {table} WHERE client = ?", (c,))
                    (count,) = cur.fetchone()
                    # Whichever server answers sees every row this client wrote, through whichever servers.
                    assert count == mine, f"client {c} sees {count} of its rows, wrote {mine}"
                    cur.execute(f"SELECT id, note FROM {table} WHERE client = ? AND id >= ? ORDER BY id", (c, base))
                    for row_id, note in cur.fetchall():
                        assert row_id // 10_000 == c and expected.get(row_id) == note, (row_id, note)
        except Exception as e:  # reported together below
            problems.append(f"client {c}: {e!r}")

    threads = [threading.Thread(target=client, args=(c,)) for c in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert problems == []
    assert len(expected) == CLIENTS * ROUNDS * (2 + INGESTED)

    # The statements spread over every server.
    spread = [after - prior for after, prior in zip(_statements(cluster), before)]
    assert all(count > 0 for count in spread), f"statements per server: {spread}"

    # Every server has every write, once.
    for member in cluster.members:
        with member.server.connect() as conn, conn.cursor() as cur:
            cur.execute(f"SELECT id, note FROM {table}")
            rows = cur.fetchall()
        assert len(rows) == len(expected), f"server {member.server.port}: {len(rows)} rows, {len(expected)} written"
        assert dict(rows) == expected


# A small dbt project: a seed, tables and a view on it, an incremental model; four threads, so
# models build on different connections and, through the proxy, on different servers.
PROJECT = {
    "dbt_project.yml": """
name: lb
version: "1.0"
profile: lb
seeds:
  lb:
    orders:
      +column_types: {id: bigint, customer: varchar, amount: "decimal(10,2)"}
""",
    "models/customer_totals.sql": """
{{ config(materialized='table') }}
select customer, count(*) as orders, sum(amount) as total from {{ ref('orders') }} group by customer
""",
    "models/big_customers.sql": """
{{ config(materialized='table') }}
select customer, total from {{ ref('customer_totals') }} where total >= 500
""",
    "models/orders_with_totals.sql": """
{{ config(materialized='view') }}
select o.id, o.customer, o.amount, t.total
from {{ ref('orders') }} o join {{ ref('customer_totals') }} t on o.customer = t.customer
""",
    "models/order_log.sql": """
{{ config(materialized='incremental', unique_key='id') }}
select id, customer, amount from {{ ref('orders') }}
{% if is_incremental() %} where id > (select coalesce(max(id), 0) from {{ this }}) {% endif %}
""",
    "models/summary.sql": """
{{ config(materialized='table') }}
select (select count(*) from {{ ref('orders_with_totals') }}) as joined,
       (select count(*) from {{ ref('order_log') }}) as logged,
       (select count(*) from {{ ref('big_customers') }}) as big
""",
}


def _orders(count: int) -> list[tuple[int, str, Decimal]]:
    return [(i, f"c{i % 7}", Decimal(i * 37 % 200) + Decimal("0.25")) for i in range(1, count + 1)]


def _dbt(project: Path, *args: str):
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke([*args, "--project-dir", str(project), "--profiles-dir", str(project)])
    if not result.success:
        failures = [f"{r.node.name}: {r.message}" for r in result.result or [] if str(r.status) not in ("success", "pass")]
        raise AssertionError(f"dbt {' '.join(args)} failed: {result.exception or failures}")


def _check_models(cluster, schema: str, orders: list[tuple[int, str, Decimal]], logged: int):
    totals: dict[str, list] = defaultdict(lambda: [0, Decimal(0)])
    for _, customer, amount in orders:
        totals[customer][0] += 1
        totals[customer][1] += amount
    big = {customer: total for customer, (_, total) in totals.items() if total >= 500}
    for member in cluster.members:
        with member.server.connect() as conn, conn.cursor() as cur:
            cur.execute(f"SELECT customer, orders, total FROM {schema}.customer_totals")
            assert {c: [n, t] for c, n, t in cur.fetchall()} == dict(totals)
            cur.execute(f"SELECT customer, total FROM {schema}.big_customers")
            assert dict(cur.fetchall()) == big
            cur.execute(f"SELECT count(*), sum(amount), sum(total) FROM {schema}.orders_with_totals")
            assert cur.fetchone() == (
                len(orders), sum(a for _, _, a in orders), sum(totals[c][1] for _, c, _ in orders))
            cur.execute(f"SELECT joined, logged, big FROM {schema}.summary")
            assert cur.fetchone() == (len(orders), logged, len(big))


# dbt-sqe keeps session state on a server (USE; BEGIN and COMMIT around a seed), so it goes
# through the recipe's TCP mode or its HTTP/2 mode balanced on the client's token.
@pytest.mark.parametrize("mode", ["tcp", "h2-by-token"])
def test_dbt_runs_through_the_proxy_build_what_their_seeds_say(cluster, mode, tmp_path):
    schema = "lb_dbt_" + mode.replace("-", "_")
    project = tmp_path / "project"
    for name, text in PROJECT.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    proxy = cluster.through(mode)
    (project / "profiles.yml").write_text(f"""
lb:
  target: proxy
  outputs:
    proxy:
      type: sqe
      host: {proxy.host}
      port: {proxy.port}
      user: {proxy.user}
      password: "{proxy.password}"
      database: iceberg
      schema: {schema}
      threads: 4
""")
    seed = project / "seeds" / "orders.csv"
    seed.parent.mkdir(exist_ok=True)

    def write_seed(orders):
        seed.write_text("id,customer,amount\n" + "".join(f"{i},{c},{a}\n" for i, c, a in orders))

    before = _statements(cluster)
    first = _orders(60)
    write_seed(first)
    _dbt(project, "seed")
    _dbt(project, "run")
    _check_models(cluster, schema, first, logged=60)

    # New and changed seed rows, built again at once: the incremental model adds only ids above
    # its last, and every table is rebuilt from the new seed on whichever server runs it.
    second = [(i, c, a + 100 if i % 5 == 0 else a) for i, c, a in _orders(90)]
    write_seed(second)
    _dbt(project, "seed")
    _dbt(project, "run")
    _check_models(cluster, schema, second, logged=90)

    if mode == "tcp":
        # dbt's threads and its own connections spread round-robin (by token, some may share one).
        spread = [after - prior for after, prior in zip(_statements(cluster), before)]
        assert all(count > 0 for count in spread), f"statements per server: {spread}"


def test_sql_transactions_stay_on_their_server(cluster):
    """Through TCP mode and the by-token variant a SQL transaction commits or rolls back whole; with
    per-call balancing the client's statements after BEGIN are refused on the other servers, saying
    where the transaction lives, and none of them runs outside it."""
    with cluster.members[0].server.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE SCHEMA lb_txn")
        cur.execute("CREATE TABLE lb_txn.t (id BIGINT)")
    for mode, base in (("tcp", 0), ("h2-by-token", 10)):
        with cluster.through(mode).connect() as conn, conn.cursor() as cur:
            for statement in ("BEGIN", f"INSERT INTO lb_txn.t VALUES ({base + 1})", "COMMIT",
                              "BEGIN", f"INSERT INTO lb_txn.t VALUES ({base + 2})", "ROLLBACK"):
                cur.execute(statement)
    refusals = []
    with cluster.through("h2").connect() as conn, conn.cursor() as cur:
        for i in range(3):
            for statement in ("BEGIN", f"INSERT INTO lb_txn.t VALUES ({100 + i})", "ROLLBACK"):
                try:
                    cur.execute(statement)
                except Exception as e:  # each refusal is checked below
                    refusals.append(str(e))
    assert refusals, "per-call balancing spread the transaction's statements over three servers"
    for refusal in refusals:
        assert "FailedPrecondition" in refusal and "not on this one" in refusal, refusal
        assert "has a transaction open on SQE server" in refusal or "belongs to a transaction" in refusal, refusal
    for member in cluster.members:
        with member.server.connect() as conn, conn.cursor() as cur:
            cur.execute("SELECT id FROM lb_txn.t ORDER BY id")
            assert cur.fetchall() == [(1,), (11,)]

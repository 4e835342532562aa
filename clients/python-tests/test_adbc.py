"""SQE through the Python ADBC Flight SQL driver (the driver dbt-sqe uses) and pyarrow.flight."""

import json
import re
import threading
import time

import adbc_driver_flightsql.dbapi as flightsql
from adbc_driver_flightsql import StatementOptions as FlightSqlStatementOptions
import adbc_driver_manager
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.flight as flight
import pytest


def connect(sqe, autocommit=True, **kwargs):
    db_kwargs = {"username": sqe.user, "password": sqe.password}
    db_kwargs.update(kwargs)
    return flightsql.connect(sqe.uri, db_kwargs=db_kwargs, autocommit=autocommit)


def scalar(conn, sql, params=None):
    with conn.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchone()[0]


@pytest.fixture(scope="module")
def schema(sqe):
    with connect(sqe) as conn, conn.cursor() as cur:
        cur.execute("CREATE SCHEMA IF NOT EXISTS py")
    return "py"


def test_query_fetches_arrow(sqe):
    with connect(sqe) as conn, conn.cursor() as cur:
        cur.execute("SELECT 40 + 2 AS answer, CAST('x' AS VARCHAR) AS s, CAST(1.50 AS DECIMAL(10, 2)) AS d")
        table = cur.fetch_arrow_table()
    assert table.column_names == ["answer", "s", "d"]
    assert table.to_pylist() == [{"answer": 42, "s": "x", "d": pytest.approx(1.5)}]
    assert pa.types.is_decimal(table.schema.field("d").type)
    assert table.schema.field("d").type.scale == 2


def test_token_from_a_basic_login_authorizes_a_connection(sqe):
    client = flight.FlightClient(sqe.uri)
    name, value = client.authenticate_basic_token(sqe.user, sqe.password)
    assert name == b"authorization" and value.startswith(b"Bearer ")
    with flightsql.connect(
        sqe.uri, db_kwargs={"adbc.flight.sql.authorization_header": value.decode()}
    ) as conn:
        assert scalar(conn, "SELECT current_user") == sqe.user


def test_a_wrong_password_is_refused(sqe):
    with pytest.raises(adbc_driver_manager.Error) as e:
        with flightsql.connect(sqe.uri, db_kwargs={"username": sqe.user, "password": "wrong"}) as conn:
            scalar(conn, "SELECT 1")
    assert "Unauthenticated" in str(e.value) or "UNAUTHENTICATED" in str(e.value)


def test_dml_as_queries_with_bound_parameters(sqe, schema):
    with connect(sqe) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE py.params (id INT, name VARCHAR)")
        cur.execute("INSERT INTO py.params VALUES (?, ?)", (1, "one"))
        cur.executemany("INSERT INTO py.params VALUES (?, ?)", [(2, "two"), (3, None)])
        cur.execute("UPDATE py.params SET name = ? WHERE id = ?", ("THREE", 3))
        cur.execute("SELECT id, name FROM py.params WHERE id >= ? ORDER BY id", (2,))
        assert cur.fetchall() == [(2, "two"), (3, "THREE")]


def test_get_objects_at_every_depth(sqe, schema):
    with connect(sqe) as conn:
        with conn.cursor() as cur:
            cur.execute("CREATE TABLE IF NOT EXISTS py.objects (k BIGINT NOT NULL, v DOUBLE)")
        catalogs = conn.adbc_get_objects(depth="catalogs").read_all().to_pylist()
        assert "iceberg" in [c["catalog_name"] for c in catalogs]
        schemas = conn.adbc_get_objects(depth="db_schemas", catalog_filter="iceberg").read_all().to_pylist()
        assert "py" in [s["db_schema_name"] for s in schemas[0]["catalog_db_schemas"]]
        tables = conn.adbc_get_objects(depth="tables", db_schema_filter="py", table_name_filter="obj%").read_all().to_pylist()
        names = [t["table_name"] for s in tables[0]["catalog_db_schemas"] for t in s["db_schema_tables"]]
        assert names == ["objects"]
        columns = conn.adbc_get_objects(depth="all", db_schema_filter="py", table_name_filter="objects").read_all().to_pylist()
        table = columns[0]["catalog_db_schemas"][0]["db_schema_tables"][0]
        assert [c["column_name"] for c in table["table_columns"]] == ["k", "v"]
        schema_of = conn.adbc_get_table_schema("objects", db_schema_filter="py")
        assert schema_of.field("k").type == pa.int64() and not schema_of.field("k").nullable
        assert schema_of.field("v").type == pa.float64()


def test_ingest_in_every_mode(sqe, schema):
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": pa.array(["a", "b", None])})
    more = pa.table({"id": pa.array([4], pa.int64()), "name": pa.array(["d"])})
    with connect(sqe) as conn, conn.cursor() as cur:
        assert cur.adbc_ingest("ingested", data, mode="create", db_schema_name="py") == 3
        assert cur.adbc_ingest("ingested", more, mode="append", db_schema_name="py") == 1
        assert scalar(conn, "SELECT count(*) FROM py.ingested") == 4
        with pytest.raises(adbc_driver_manager.Error):
            cur.adbc_ingest("ingested", data, mode="create", db_schema_name="py")
        assert cur.adbc_ingest("ingested", more, mode="replace", db_schema_name="py") == 1
        assert scalar(conn, "SELECT count(*) FROM py.ingested") == 1
        assert cur.adbc_ingest("ingested", data, mode="create_append", db_schema_name="py") == 3
        assert scalar(conn, "SELECT sum(id) FROM py.ingested") == 10


def test_autocommit_off_commits_and_rolls_back(sqe, schema):
    with connect(sqe) as setup, setup.cursor() as cur:
        cur.execute("CREATE TABLE py.txn (id INT)")
    with connect(sqe, autocommit=False) as conn, connect(sqe) as other:
        with conn.cursor() as cur:
            cur.execute("INSERT INTO py.txn VALUES (1)")
            assert scalar(conn, "SELECT count(*) FROM py.txn") == 1  # reads its own write
            assert scalar(other, "SELECT count(*) FROM py.txn") == 0  # others do not see it yet
            conn.rollback()
            assert scalar(conn, "SELECT count(*) FROM py.txn") == 0
            cur.execute("INSERT INTO py.txn VALUES (2)")
            conn.commit()
        assert scalar(other, "SELECT count(*) FROM py.txn") == 1


def test_cancel_stops_a_running_query(sqe, schema):
    rows = pa.table({"x": pa.array(range(3000), pa.int64())})
    with connect(sqe) as conn, conn.cursor() as cur:
        cur.adbc_ingest("big", rows, mode="replace", db_schema_name="py")
        outcome = {}

        def run():
            try:
                cur.execute("SELECT count(*) FROM py.big a, py.big b, py.big c WHERE a.x + b.x + c.x > 0")
                outcome["rows"] = cur.fetchall()
            except Exception as e:  # the cancelled query's error
                outcome["error"] = e

        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(2)
        started = time.monotonic()
        cur.adbc_cancel()
        thread.join(30)
        assert not thread.is_alive(), "the query did not stop within 30 s of the cancel"
        assert "error" in outcome, outcome
        assert "cancel" in str(outcome["error"]).lower()
        assert time.monotonic() - started < 30
        # The server goes on serving.
        assert scalar(conn, "SELECT 1") == 1


# ---- query control: ids, trailers, cancel, timeouts, incremental execution

LONG_QUERY = "SELECT count(*) FROM py.big a, py.big b, py.big c WHERE a.x + b.x + c.x > 0"


def _varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, payload):
    """A length-delimited protobuf field: enough to build Flight SQL commands without protobuf."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def statement_descriptor(sql):
    command = _field(1, sql.encode())
    type_url = b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
    return flight.FlightDescriptor.for_command(_field(1, type_url) + _field(2, command))


class TrailerMiddleware(flight.ClientMiddlewareFactory):
    """Keeps the x-sqe-* metadata the server sends (trailers reach received_headers too)."""

    def __init__(self):
        self.values = {}

    def start_call(self, info):
        factory = self

        class Middleware(flight.ClientMiddleware):
            def received_headers(self, headers):
                for key, values in headers.items():
                    if key.startswith("x-sqe-"):
                        factory.values[key] = values[-1]

        return Middleware()


def read_rows(reader):
    """Every row of a DoGet, chunk by chunk: pyarrow's read_all turns a CANCELLED status into a
    KeyboardInterrupt in the main thread, which a reader on another thread must not cause."""
    rows = 0
    while True:
        try:
            rows += reader.read_chunk().data.num_rows
        except StopIteration:
            return rows


def read_in_background(client, info, options):
    """Starts reading a FlightInfo's result on another thread; the outcome holds rows or error."""
    outcome = {}

    def read():
        try:
            outcome["rows"] = read_rows(client.do_get(info.endpoints[0].ticket, options))
        except flight.FlightError as e:
            outcome["error"] = e

    thread = threading.Thread(target=read)
    thread.start()
    return thread, outcome


def flight_client(sqe, *middleware):
    client = flight.FlightClient(sqe.uri, middleware=list(middleware))
    name, value = client.authenticate_basic_token(sqe.user, sqe.password)
    return client, flight.FlightCallOptions(headers=[(name, value)])


@pytest.fixture(scope="module")
def big(sqe, schema):
    """py.big: 3,000 numbers, whose three-way cross join runs for minutes."""
    with connect(sqe) as conn, conn.cursor() as cur:
        cur.adbc_ingest("big", pa.table({"x": pa.array(range(3000), pa.int64())}), mode="replace", db_schema_name="py")
    return "py.big"


def test_flight_info_names_its_query_and_trailers_carry_its_figures(sqe, big):
    trailers = TrailerMiddleware()
    client, options = flight_client(sqe, trailers)
    info = client.get_flight_info(statement_descriptor("SELECT x FROM py.big WHERE x < 100"), options)
    query_id = json.loads(info.app_metadata)["query_id"]
    assert re.fullmatch(r"[0-9a-f]{12}\.[0-9a-f-]{36}", query_id)  # the issuing server's id, then a UUID
    endpoint = info.endpoints[0]
    assert endpoint.expiration_time is not None  # the ticket can be read again until then
    table = client.do_get(endpoint.ticket, options).read_all()
    assert table.num_rows == 100
    assert trailers.values["x-sqe-query-id"] == query_id
    assert int(trailers.values["x-sqe-rows"]) == table.num_rows
    assert int(trailers.values["x-sqe-files-scanned"]) >= 1
    assert int(trailers.values["x-sqe-bytes"]) > 0
    assert {"x-sqe-planning-ms", "x-sqe-execution-ms", "x-sqe-bytes-scanned", "x-sqe-peak-memory-bytes"} <= set(trailers.values)
    # Read again: the same rows.
    assert client.do_get(endpoint.ticket, options).read_all().equals(table)
    client.close()


def test_cancel_flight_info_from_another_connection_stops_the_query(sqe, big):
    client, options = flight_client(sqe)
    info = client.get_flight_info(statement_descriptor(LONG_QUERY), options)
    thread, outcome = read_in_background(client, info, options)
    time.sleep(2)
    other, other_options = flight_client(sqe)
    started = time.monotonic()
    results = list(other.do_action(flight.Action("CancelFlightInfo", _field(1, info.serialize())), other_options))
    # CancelFlightInfoResult { status = CANCEL_STATUS_CANCELLED (1) }
    assert results[0].body.to_pybytes() == b"\x08\x01"
    thread.join(30)
    assert not thread.is_alive()
    assert time.monotonic() - started < 10
    assert isinstance(outcome.get("error"), flight.FlightCancelledError), outcome
    client.close()
    other.close()


def test_cancel_query_by_id_in_sql_from_another_connection(sqe, big):
    client, options = flight_client(sqe)
    info = client.get_flight_info(statement_descriptor(LONG_QUERY), options)
    query_id = json.loads(info.app_metadata)["query_id"]
    thread, outcome = read_in_background(client, info, options)
    time.sleep(2)
    with connect(sqe) as conn, conn.cursor() as cur:
        cur.execute("SHOW QUERIES")
        assert query_id in [row[0] for row in cur.fetchall()]
        cur.execute(f"CALL system.cancel_query('{query_id}')")
    thread.join(30)
    assert not thread.is_alive()
    assert "cancelled" in str(outcome.get("error")).lower(), outcome
    client.close()


def test_statement_timeout_stops_a_long_query(sqe, big):
    with connect(sqe) as conn, conn.cursor() as cur:
        cur.execute("SET statement_timeout = '1s'")
        started = time.monotonic()
        with pytest.raises(adbc_driver_manager.Error) as e:
            cur.execute(LONG_QUERY)
            cur.fetchall()
        assert "statement timeout of 1s" in str(e.value)
        assert time.monotonic() - started < 15
        cur.execute("RESET statement_timeout")
        assert scalar(conn, "SELECT 1") == 1


def test_incremental_execution_polls_until_the_result_can_stream(sqe, big):
    with connect(sqe) as conn, conn.cursor() as cur:
        cur.adbc_statement.set_options(**{adbc_driver_manager.StatementOptions.INCREMENTAL.value: "true"})
        partitions, _ = cur.adbc_execute_partitions("SELECT count(*) FROM py.big a, py.big b WHERE a.x < b.x")
        assert len(partitions) == 1
        assert cur.adbc_statement.get_option_float(adbc_driver_manager.StatementOptions.PROGRESS.value) == pytest.approx(1.0)
        last = cur.adbc_statement.get_option_bytes(FlightSqlStatementOptions.LAST_FLIGHT_INFO.value)
        assert "query_id" in json.loads(flight.FlightInfo.deserialize(last).app_metadata)
        cur.adbc_read_partition(partitions[0])
        assert cur.fetchall() == [(3000 * 2999 // 2,)]
        # The statement is complete: the next call says so with no partitions.
        partitions, _ = cur.adbc_execute_partitions("SELECT count(*) FROM py.big a, py.big b WHERE a.x < b.x")
        assert partitions == []


# ---- large results

TEN_MILLION = 10_000_000
# The server's record batches hold at most 65,536 rows or about 2 MiB (EngineConfig.DEFAULT).
BATCH_MAX_BYTES = 2 << 20


@pytest.fixture(scope="module")
def ten_million(sqe, schema):
    """py.ten_million: n = 0 .. 9,999,999 as BIGINT, 80 MB of Arrow data."""
    with connect(sqe) as conn, conn.cursor() as cur:
        # In batches of a million rows: the driver sends each batch as one gRPC message (16 MiB at most).
        data = pa.Table.from_batches(pa.table({"n": pa.array(range(TEN_MILLION), pa.int64())}).to_batches(max_chunksize=1_000_000))
        cur.adbc_ingest("ten_million", data, mode="replace", db_schema_name="py")
    return "py.ten_million"


def test_ten_million_rows_stream_while_server_memory_stays_bounded(sqe, ten_million):
    sql = f"SELECT n, n % 1000 AS r FROM {ten_million}"
    rows = total = residues = batches = 0
    with connect(sqe) as conn, conn.cursor() as cur:
        cur.execute(sql)
        for batch in cur.fetch_record_batch():
            batches += 1
            rows += batch.num_rows
            total += pc.sum(batch.column(0)).as_py() or 0
            residues += pc.sum(batch.column(1)).as_py() or 0
    assert rows == TEN_MILLION
    assert total == TEN_MILLION * (TEN_MILLION - 1) // 2
    assert residues == (TEN_MILLION // 1000) * (999 * 1000 // 2)
    assert batches >= TEN_MILLION // 65_536

    # The ADBC driver does not surface gRPC trailers; the same statement read through
    # pyarrow.flight gets the server's figures for it, peak Arrow memory among them.
    trailers = TrailerMiddleware()
    client, options = flight_client(sqe, trailers)
    info = client.get_flight_info(statement_descriptor(sql), options)
    assert read_rows(client.do_get(info.endpoints[0].ticket, options)) == TEN_MILLION
    client.close()
    assert int(trailers.values["x-sqe-rows"]) == TEN_MILLION
    result_bytes = int(trailers.values["x-sqe-bytes"])
    peak = int(trailers.values["x-sqe-peak-memory-bytes"])
    assert result_bytes > 120_000_000  # ten million BIGINT n and INTEGER r
    # A few batches' worth at most: the result never sits in server memory whole.
    assert 0 < peak <= 8 * BATCH_MAX_BYTES, (peak, result_bytes)

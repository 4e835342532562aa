"""SQE through the Python ADBC Flight SQL driver (the driver dbt-sqe uses) and pyarrow.flight."""

import threading
import time

import adbc_driver_flightsql.dbapi as flightsql
import adbc_driver_manager
import pyarrow as pa
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

"""Trino's Python DB-API client (trino.dbapi) against SQE's Trino endpoint."""

import math
from datetime import date, datetime, timezone
from decimal import Decimal

import pytest
import trino
from trino.transaction import IsolationLevel


@pytest.fixture(scope="module")
def cursor(trino_endpoint):
    connection = trino_endpoint.connect()
    cursor = connection.cursor()
    cursor.execute("CREATE SCHEMA IF NOT EXISTS dbapi")
    cursor.fetchall()
    yield cursor
    connection.close()


def run(cursor, sql, params=None):
    cursor.execute(sql, params)
    return cursor.fetchall()


def test_values_of_every_type_arrive_as_python_values(cursor):
    run(cursor, "CREATE TABLE dbapi.types (b BOOLEAN, i INTEGER, l BIGINT, d DOUBLE, num DECIMAL(12, 2), dt DATE,"
        " ts TIMESTAMP, tstz TIMESTAMP WITH TIME ZONE, s VARCHAR, bin VARBINARY, arr ARRAY(BIGINT), m MAP(VARCHAR, BIGINT),"
        " st ROW(x INTEGER, y VARCHAR))")
    assert run(cursor, "INSERT INTO dbapi.types VALUES (true, 42, 9000000000, CAST('NaN' AS DOUBLE), 12345.67, DATE '2024-01-31',"
               " TIMESTAMP '2024-01-31 12:34:56.123456', TIMESTAMP '2024-01-31 12:34:56.123456', 'héllo', X'00ff10',"
               " ARRAY[1, 2], MAP['a', 1], ROW(7, 'seven')),"
               " (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)") == [[2]]
    assert cursor.rowcount == 2
    rows = run(cursor, "SELECT * FROM dbapi.types ORDER BY i NULLS LAST")
    b, i, l, d, num, dt, ts, tstz, s, binary, arr, m, st = rows[0]
    assert (b, i, l) == (True, 42, 9000000000)
    assert math.isnan(d)
    assert num == Decimal("12345.67")
    assert dt == date(2024, 1, 31)
    assert ts == datetime(2024, 1, 31, 12, 34, 56, 123456)
    assert tstz == datetime(2024, 1, 31, 12, 34, 56, 123456, tzinfo=timezone.utc)
    assert (s, binary, arr, m) == ("héllo", b"\x00\xff\x10", [1, 2], {"a": 1})
    assert (st.x, st.y) == (7, "seven")
    assert rows[1] == [None] * 13
    assert [column.type_code for column in cursor.description] == [
        "boolean", "integer", "bigint", "double", "decimal(12,2)", "date", "timestamp(6)", "timestamp(6) with time zone", "varchar",
        "varbinary", "array(bigint)", "map(varchar, bigint)", "row(x integer, y varchar)"]


def test_parameters_are_bound(cursor):
    run(cursor, "CREATE TABLE dbapi.params (id BIGINT, name VARCHAR, amount DECIMAL(10, 2), day DATE, happened TIMESTAMP, ok BOOLEAN,"
        " ratio DOUBLE, raw VARBINARY)")
    values = (1, "it's", Decimal("-3.25"), date(2023, 12, 31), datetime(2023, 12, 31, 23, 59, 58, 123000), True, 0.5, b"\x01\x02")
    cursor.execute("INSERT INTO dbapi.params VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)
    assert cursor.fetchall() == [[1]]
    cursor.execute("INSERT INTO dbapi.params VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (2, None, None, None, None, None, None, None))
    cursor.fetchall()
    assert run(cursor, "SELECT * FROM dbapi.params WHERE id = ? AND name = ?", (1, "it's")) == [list(values)]
    assert run(cursor, "SELECT count(*) FROM dbapi.params WHERE name IS NULL AND id = ?", (2,)) == [[1]]


def test_results_of_many_pages_arrive_whole(cursor):
    digits = "(VALUES 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)"
    rows = run(cursor, f"SELECT a.x * 10000 + b.x * 1000 + c.x * 100 + d.x * 10 + e.x AS n, 'row ' || CAST(e.x AS VARCHAR) AS label"
               f" FROM {digits} a(x), {digits} b(x), {digits} c(x), {digits} d(x), {digits} e(x)")
    assert len(rows) == 100_000
    assert sorted(row[0] for row in rows) == list(range(100_000))


def test_errors_carry_trinos_names_and_positions(cursor):
    with pytest.raises(trino.exceptions.TrinoUserError) as syntax:
        cursor.execute("SELECT 1,\n  FROM")
        cursor.fetchall()
    assert syntax.value.error_name == "SYNTAX_ERROR"
    assert syntax.value.error_location == (2, 3)
    with pytest.raises(trino.exceptions.TrinoUserError) as missing:
        cursor.execute("SELECT * FROM dbapi.no_such_table")
        cursor.fetchall()
    assert missing.value.error_name == "TABLE_NOT_FOUND"


def test_transactions_commit_together_and_roll_back(trino_endpoint, cursor):
    run(cursor, "CREATE TABLE dbapi.txn (id INTEGER)")
    connection = trino_endpoint.connect(isolation_level=IsolationLevel.READ_COMMITTED)
    writer = connection.cursor()
    run(writer, "INSERT INTO dbapi.txn VALUES (1)")
    run(writer, "INSERT INTO dbapi.txn VALUES (2)")
    assert run(writer, "SELECT count(*) FROM dbapi.txn") == [[2]]
    assert run(cursor, "SELECT count(*) FROM dbapi.txn") == [[0]]
    connection.commit()
    assert run(cursor, "SELECT count(*) FROM dbapi.txn") == [[2]]
    # The client begins a transaction with each cursor after one has ended.
    writer = connection.cursor()
    run(writer, "INSERT INTO dbapi.txn VALUES (3)")
    connection.rollback()
    assert run(cursor, "SELECT count(*) FROM dbapi.txn") == [[2]]
    connection.close()


def test_a_wrong_password_is_refused(trino_endpoint):
    connection = trino.dbapi.connect(
        host=trino_endpoint.host, port=trino_endpoint.port, user=trino_endpoint.user,
        auth=trino.auth.BasicAuthentication(trino_endpoint.user, "wrong"), http_scheme="https", verify=str(trino_endpoint.ca))
    with pytest.raises(trino.exceptions.HttpError, match="401"):
        connection.cursor().execute("SELECT 1")

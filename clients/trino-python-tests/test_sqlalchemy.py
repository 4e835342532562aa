"""Trino's SQLAlchemy dialect (trino.sqlalchemy) and pandas against SQE's Trino endpoint."""

from decimal import Decimal

import pandas
import pytest
import sqlalchemy
from sqlalchemy import text


@pytest.fixture(scope="module")
def engine(trino_endpoint):
    engine = trino_endpoint.engine()
    with engine.connect() as connection:
        connection.execute(text("CREATE SCHEMA IF NOT EXISTS alchemy"))
        connection.execute(text("CREATE TABLE alchemy.orders (id BIGINT NOT NULL, amount DECIMAL(12, 2), note VARCHAR,"
                                " placed TIMESTAMP) COMMENT 'all orders'"))
        connection.execute(text("INSERT INTO alchemy.orders VALUES (1, 10.50, 'a', TIMESTAMP '2024-01-01 00:00:00'),"
                                " (2, 99.99, NULL, TIMESTAMP '2024-02-01 12:00:00')"))
        connection.execute(text("CREATE VIEW alchemy.big_orders AS SELECT id, amount FROM alchemy.orders WHERE amount > 50"))
    yield engine
    engine.dispose()


def test_reflection(engine):
    inspector = sqlalchemy.inspect(engine)
    assert "alchemy" in inspector.get_schema_names()
    assert inspector.get_table_names(schema="alchemy") == ["orders"]
    assert inspector.get_view_names(schema="alchemy") == ["big_orders"]
    assert inspector.has_table("orders", schema="alchemy")
    assert not inspector.has_table("nothing", schema="alchemy")
    columns = {column["name"]: column for column in inspector.get_columns("orders", schema="alchemy")}
    assert list(columns) == ["id", "amount", "note", "placed"]
    assert isinstance(columns["id"]["type"], sqlalchemy.BIGINT)
    assert isinstance(columns["amount"]["type"], sqlalchemy.DECIMAL)
    assert (columns["amount"]["type"].precision, columns["amount"]["type"].scale) == (12, 2)
    assert isinstance(columns["placed"]["type"], sqlalchemy.TIMESTAMP)
    assert columns["id"]["nullable"] is False
    assert inspector.get_table_comment("orders", schema="alchemy") == {"text": "all orders"}
    assert inspector.get_pk_constraint("orders", schema="alchemy")["constrained_columns"] == []


def test_table_objects_query_through_the_dialect(engine):
    orders = sqlalchemy.Table("orders", sqlalchemy.MetaData(), autoload_with=engine, schema="alchemy")
    query = sqlalchemy.select(orders.c.id, orders.c.amount).where(orders.c.amount > Decimal("50")).order_by(orders.c.id)
    with engine.connect() as connection:
        assert connection.execute(query).fetchall() == [(2, Decimal("99.99"))]


def test_pandas_reads_and_writes(engine):
    frame = pandas.read_sql("SELECT id, amount, note FROM alchemy.orders ORDER BY id", engine, coerce_float=False)
    assert frame["id"].tolist() == [1, 2]
    assert frame["amount"].tolist() == [Decimal("10.50"), Decimal("99.99")]
    assert frame["note"].tolist()[0] == "a"

    written = pandas.DataFrame({"k": [1, 2, 3], "v": ["x", "y", "z"], "f": [0.5, 1.5, 2.5]})
    written.to_sql("frame", engine, schema="alchemy", index=False, if_exists="replace")
    back = pandas.read_sql("SELECT k, v, f FROM alchemy.frame ORDER BY k", engine)
    pandas.testing.assert_frame_equal(back, written)

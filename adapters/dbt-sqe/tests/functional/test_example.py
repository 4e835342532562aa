"""The example project (a small shop) builds end to end, twice, and its marts agree with the seeds."""

import csv
import os
import shutil
import subprocess
import sys
import uuid
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "example"


def read_seed(name):
    with open(EXAMPLE / "seeds" / f"{name}.csv") as f:
        return list(csv.DictReader(f))


def expected_revenue():
    """Revenue per day of the orders that were not returned, computed from the seeds."""
    prices = {p["product_id"]: Decimal(p["price"]) for p in read_seed("products")}
    amounts = defaultdict(Decimal)
    for item in read_seed("order_items"):
        amounts[item["order_id"]] += int(item["quantity"]) * prices[item["product_id"]]
    revenue = defaultdict(Decimal)
    for order in read_seed("orders"):
        if order["status"] != "returned":
            revenue[order["ordered_at"][:10]] += amounts[order["order_id"]]
    return sorted((day, total) for day, total in revenue.items())


@pytest.fixture
def shop(tmp_path, sqe_server):
    project = tmp_path / "shop"
    shutil.copytree(EXAMPLE, project)
    schema = f"shop_{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "SQE_HOST": sqe_server.host,
        "SQE_PORT": str(sqe_server.port),
        "SQE_USER": sqe_server.user,
        "SQE_PASSWORD": sqe_server.password,
        "SQE_SCHEMA": schema,
        "DBT_PROFILES_DIR": str(project),
    }
    yield project, env, schema
    with sqe_server.connect() as conn:
        with conn.cursor() as cursor:
            for name in (schema, f"{schema}_raw"):
                cursor.execute(f'drop schema if exists "{name}" cascade')


def dbt(project, env, *args):
    result = subprocess.run(
        [str(Path(sys.executable).parent / "dbt"), *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_dbt_build_twice(shop, sqe_server):
    project, env, schema = shop
    dbt(project, env, "build")
    output = dbt(project, env, "build")
    assert "PASS=23" in output
    with sqe_server.connect() as conn:
        with conn.cursor() as cursor:
            cursor.execute(f"select cast(order_date as varchar), revenue from {schema}.daily_revenue order by order_date")
            assert [(day, Decimal(str(total))) for day, total in cursor.fetchall()] == expected_revenue()
            cursor.execute(f"select count(*), count(distinct order_id) from {schema}.fct_orders")
            assert cursor.fetchone() == (len(read_seed("orders")), len(read_seed("orders")))
            cursor.execute(f"select count(*) from {schema}.customers_snapshot where dbt_valid_to is null")
            assert cursor.fetchone()[0] == len(read_seed("customers"))

"""A dbt project run through dbt-trino (SQE's Trino endpoint) builds the same tables as through dbt-sqe.

The project (project/) has seeds, a view, a table, incremental models with the append, merge and
delete+insert strategies, a snapshot, generic and singular tests and docs. Each adapter builds it
into its own schema, then again after the seeds change (changed_seeds/), and every relation of the
two schemas must hold the same rows.
"""

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
TABLES = ["accounts", "payments", "stg_payments", "account_balances", "payments_appended", "payments_merged",
          "daily_totals"]
SNAPSHOT = "accounts_snapshot"


def dbt(project: Path, env: dict, *args) -> str:
    result = subprocess.run([str(Path(sys.executable).parent / "dbt"), *args], cwd=project, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def build_twice(tmp_path: Path, server, endpoint, target: str) -> str:
    """Builds the project with one adapter, changes the seeds and builds again; returns the schema."""
    project = tmp_path / target
    shutil.copytree(HERE / "project", project)
    schema = f"ledger_{target}_{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "SQE_HOST": endpoint.host, "SQE_PORT": str(server.port), "SQE_TRINO_PORT": str(endpoint.port),
           "SQE_USER": endpoint.user, "SQE_PASSWORD": endpoint.password, "SQE_CA": str(endpoint.ca),
           "LEDGER_SCHEMA": schema, "DBT_PROFILES_DIR": str(project), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    selection = ["--target", target]
    first = dbt(project, env, "build", *selection)
    assert "PASS=17 " in first, first
    for seed in (HERE / "changed_seeds").iterdir():
        shutil.copy(seed, project / "seeds" / seed.name)
    dbt(project, env, "build", *selection)
    dbt(project, env, "docs", "generate", *selection)
    catalog = json.loads((project / "target" / "catalog.json").read_text())
    documented = {node["metadata"]["name"] for node in catalog["nodes"].values() if node["columns"]}
    assert documented >= {*TABLES, SNAPSHOT}, documented
    return schema


def rows(cursor, schema: str, relation: str):
    cursor.execute(f'select * from "{schema}"."{relation}"')
    names = [d[0] for d in cursor.description]
    # The snapshot's surrogate key is each adapter's own hash of the key and time.
    keep = [i for i, name in enumerate(names) if name != "dbt_scd_id"]
    return [names[i] for i in keep], sorted((tuple(row[i] for i in keep) for row in cursor.fetchall()), key=repr)


@pytest.fixture(scope="module")
def schemas(tmp_path_factory, sqe_with_trino):
    """(through dbt-trino, through dbt-sqe): the schemas the two adapters built the project in."""
    server, endpoint = sqe_with_trino
    built = [build_twice(tmp_path_factory.mktemp("dbt"), server, endpoint, target)
             for target in ("trino", "sqe")]
    yield tuple(built)
    cursor = endpoint.connect().cursor()
    for schema in built:
        cursor.execute(f'drop schema if exists "{schema}" cascade')
        cursor.fetchall()


def test_dbt_trino_builds_the_tables_dbt_sqe_builds(schemas, trino_endpoint):
    through_trino, through_sqe = schemas
    cursor = trino_endpoint.connect().cursor()
    for relation in TABLES:
        assert rows(cursor, through_trino, relation) == rows(cursor, through_sqe, relation), relation
    # The second run changed what each strategy keeps.
    _, merged = rows(cursor, through_trino, "payments_merged")
    assert [(row[0], row[3]) for row in merged if row[0] in (11, 12)] == [(11, "settled"), (12, "refunded")]
    _, appended = rows(cursor, through_trino, "payments_appended")
    assert [row[0] for row in appended] == [10, 11, 12, 13, 14, 15]
    _, days = rows(cursor, through_trino, "daily_totals")
    assert [row[1] for row in days] == [2, 2, 1, 1]


def test_dbt_trino_snapshots_what_dbt_sqe_snapshots(schemas, trino_endpoint):
    through_trino, through_sqe = schemas
    cursor = trino_endpoint.connect().cursor()
    assert rows(cursor, through_trino, SNAPSHOT) == rows(cursor, through_sqe, SNAPSHOT)
    _, versions = rows(cursor, through_trino, SNAPSHOT)
    assert len(versions) == 5

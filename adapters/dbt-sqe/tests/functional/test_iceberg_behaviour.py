"""What dbt-sqe promises beyond dbt's suite, checked in the tables' Iceberg metadata: every model
run is one commit that keeps the table's history, model configs become the table's layout, and
relations made for one run never outlive it or collide with another run's."""

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dbt.tests.util import run_dbt, run_dbt_and_capture

TABLE_MODEL = """
{{ config(
    materialized='table',
    partitioned_by=['bucket(4, id)', 'day(ts)'],
    sorted_by=['id desc'],
    table_properties={'write.target-file-size-bytes': 1048576, 'owner.team': 'shop'},
    persist_docs={'relation': true, 'columns': true},
) }}
select cast(id as integer) as id, name, ts
from (values (1, 'a', timestamp '2024-01-01 10:00:00'), (2, 'b', timestamp '2024-01-02 11:00:00')) as t(id, name, ts)
"""

TABLE_MODEL_YML = """
version: 2
models:
  - name: layout
    description: "Rows with a layout"
    config:
      contract: {enforced: true}
    columns:
      - name: id
        description: "The key"
        data_type: integer
        constraints: [{type: not_null}]
      - name: name
        data_type: varchar
      - name: ts
        data_type: timestamp
"""

INCREMENTAL_MODEL = """
{{ config(materialized='incremental', unique_key='id', incremental_strategy=var('strategy', 'merge')) }}
select id, v from {{ ref('source_rows') }}
{% if is_incremental() %} where id >= (select max(id) - 1 from {{ this }}) {% endif %}
"""

SCRATCH_STRATEGY = """
{% macro get_incremental_scratchy_sql(arg_dict) %}
  insert into {{ arg_dict['target_relation'] }} (id, v)
  select id, v from {{ arg_dict['temp_relation'] }}
  {% if var('fail', false) %} where cast('not a number' as integer) = 1 {% endif %}
{% endmacro %}
"""

SCRATCH_MODEL = """
{{ config(materialized='incremental', incremental_strategy='scratchy') }}
select id, v from {{ ref('source_rows') }}
"""


def metadata(server, schema: str, table: str) -> dict:
    """The table's current Iceberg metadata, read from the server's warehouse directory."""
    if server.data_dir is None:
        pytest.skip("needs the server's data directory (SQE_TEST_DATA_DIR)")
    folder = server.data_dir / "warehouse" / schema / table / "metadata"
    files = sorted(folder.glob("*.metadata.json"), key=lambda p: int(p.name.split("-")[0]))
    latest = files[-1]
    opener = gzip.open if latest.name.endswith(".gz.metadata.json") else open
    with opener(latest, "rt") as f:
        return json.load(f)


def snapshot_count(server, schema: str, table: str) -> int:
    return len(metadata(server, schema, table).get("snapshots", []))


def all_table_names(server, schema: str) -> list:
    """Every table and view in a schema, including the ones dbt-sqe hides from dbt."""
    with server.connect() as conn:
        objects = conn.adbc_get_objects(depth="tables", db_schema_filter=schema).read_all().to_pylist()
    return [t["table_name"] for c in objects for s in c["catalog_db_schemas"] or [] for t in s["db_schema_tables"] or []]


class TestTableLayoutAndHistory:
    @pytest.fixture(scope="class")
    def models(self):
        return {"layout.sql": TABLE_MODEL, "layout.yml": TABLE_MODEL_YML}

    def test_configs_become_the_tables_layout_in_one_commit(self, project, sqe_server):
        run_dbt(["run"])
        first = metadata(sqe_server, project.test_schema, "layout")
        run_dbt(["run"])
        second = metadata(sqe_server, project.test_schema, "layout")

        # CREATE OR REPLACE keeps the table; with nothing changed, the second run commits nothing.
        assert second["table-uuid"] == first["table-uuid"]
        assert len(second["snapshots"]) == len(first["snapshots"]) == 1

        spec = next(s for s in second["partition-specs"] if s["spec-id"] == second["default-spec-id"])
        assert [f["transform"] for f in spec["fields"]] == ["bucket[4]", "day"]
        order = next(o for o in second["sort-orders"] if o["order-id"] == second["default-sort-order-id"])
        assert [f["direction"] for f in order["fields"]] == ["desc"]
        assert second["properties"]["write.target-file-size-bytes"] == "1048576"
        assert second["properties"]["owner.team"] == "shop"
        assert second["properties"]["comment"] == "Rows with a layout"

        schema = next(s for s in second["schemas"] if s["schema-id"] == second["current-schema-id"])
        fields = {f["name"]: f for f in schema["fields"]}
        assert fields["id"]["required"] is True and fields["id"]["type"] == "int"
        assert fields["id"].get("doc") == "The key"
        assert fields["name"]["required"] is False and fields["ts"]["type"] == "timestamp"


READS_SEED_MODEL = """
{{ config(materialized='table') }}
select id, count(*) as n from {{ ref('source_rows') }} group by id
"""


class TestTableModelsAreReused:
    @pytest.fixture(scope="class")
    def seeds(self):
        return {"source_rows.csv": "id,v\n1,a\n2,b\n2,c\n"}

    @pytest.fixture(scope="class")
    def models(self):
        return {"counted.sql": READS_SEED_MODEL}

    def test_a_second_run_with_nothing_changed_rewrites_nothing(self, project, sqe_server):
        run_dbt(["seed"])
        run_dbt(["run"])
        built = metadata(sqe_server, project.test_schema, "counted")
        run_dbt(["run"])
        again = metadata(sqe_server, project.test_schema, "counted")
        # The same snapshot: no data file written, no commit.
        assert again["current-snapshot-id"] == built["current-snapshot-id"]
        assert len(again["snapshots"]) == len(built["snapshots"])

        project.run_sql(f"insert into {project.test_schema}.source_rows values (3, 'd')")
        run_dbt(["run"])
        changed = metadata(sqe_server, project.test_schema, "counted")
        assert len(changed["snapshots"]) == len(built["snapshots"]) + 1
        rows = project.run_sql(f"select id, n from {project.test_schema}.counted order by id", fetch="all")
        assert [tuple(r) for r in rows] == [(1, 1), (2, 2), (3, 1)]


class TestIncrementalRunsAreOneCommit:
    @pytest.fixture(scope="class")
    def seeds(self):
        return {"source_rows.csv": "id,v\n1,a\n2,b\n3,c\n"}

    @pytest.fixture(scope="class")
    def models(self):
        return {"increments.sql": INCREMENTAL_MODEL}

    @pytest.mark.parametrize("strategy", ["merge", "delete+insert", "append"])
    def test_each_run_adds_one_snapshot(self, project, sqe_server, strategy):
        seeded = len(all_table_names(sqe_server, project.test_schema)) and snapshot_count(sqe_server, project.test_schema, "source_rows")
        run_dbt(["seed"])
        # A seed run is one commit: CREATE OR REPLACE TABLE and the bulk ingest in one transaction.
        assert snapshot_count(sqe_server, project.test_schema, "source_rows") == seeded + 1
        run_dbt(["run", "--full-refresh", "--vars", f"strategy: {strategy}"])
        before = snapshot_count(sqe_server, project.test_schema, "increments")
        project.run_sql(f"insert into {project.test_schema}.source_rows values (4, 'd')")
        run_dbt(["run", "--vars", f"strategy: {strategy}"])
        assert snapshot_count(sqe_server, project.test_schema, "increments") == before + 1
        rows = project.run_sql(f"select id, v from {project.test_schema}.increments order by id, v", fetch="all")
        expected = [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
        if strategy == "append":
            # The model's increment is every id from the last one but one: 2, 3 and 4.
            expected = sorted(expected + [(2, "b"), (3, "c")])
        assert [tuple(r) for r in rows] == expected
        project.run_sql(f"delete from {project.test_schema}.source_rows where id = 4")


class TestScratchRelations:
    @pytest.fixture(scope="class")
    def seeds(self):
        return {"source_rows.csv": "id,v\n1,a\n2,b\n"}

    @pytest.fixture(scope="class")
    def macros(self):
        return {"scratchy.sql": SCRATCH_STRATEGY}

    @pytest.fixture(scope="class")
    def models(self):
        return {"scratched.sql": SCRATCH_MODEL}

    def test_dropped_after_success_and_after_failure(self, project, sqe_server, logs_dir):
        run_dbt(["seed"])
        run_dbt(["run"])
        run_dbt(["run"])
        assert project.run_sql(f"select count(*) from {project.test_schema}.scratched", fetch="one")[0] == 4
        log_file = Path(logs_dir) / "dbt.log"
        logged = log_file.stat().st_size
        run_dbt(["run", "--vars", "fail: true"], expect_pass=False)
        with open(log_file) as f:
            f.seek(logged)
            assert "__dbt_tmp_" in f.read()  # the failed run did make its scratch table
        assert not [n for n in all_table_names(sqe_server, project.test_schema) if "__dbt_tmp" in n]
        assert project.run_sql(f"select count(*) from {project.test_schema}.scratched", fetch="one")[0] == 4
        if sqe_server.data_dir is not None:
            # Dropped with PURGE: no data or metadata file of a scratch table is left.
            warehouse = sqe_server.data_dir / "warehouse" / project.test_schema
            assert not [f for f in warehouse.glob("*__dbt_tmp*/**/*") if f.is_file()]

    def test_concurrent_runs_of_one_model_do_not_collide(self, project, sqe_server):
        run_dbt(["seed"])
        run_dbt(["run"])
        before = project.run_sql(f"select count(*) from {project.test_schema}.scratched", fetch="one")[0]
        dbt = str(Path(sys.executable).parent / "dbt")
        runs = [
            subprocess.Popen(
                [dbt, "run", "--target-path", f"target_{i}", "--log-path", f"logs_{i}"],
                cwd=project.project_root,
                env={**os.environ, "DBT_PROFILES_DIR": str(project.profiles_dir)},
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for i in range(3)
        ]
        outputs = [run.communicate(timeout=300)[0] for run in runs]
        assert all(run.returncode == 0 for run in runs), "\n".join(outputs)
        after = project.run_sql(f"select count(*) from {project.test_schema}.scratched", fetch="one")[0]
        assert after == before + 3 * 2
        assert not [n for n in all_table_names(sqe_server, project.test_schema) if "__dbt_tmp" in n]


class TestDebug:
    def test_debug_reports_the_server(self, project, sqe_server):
        _, log = run_dbt_and_capture(["debug"])
        assert "server SQE " in log
        assert f"grpc://{sqe_server.host}:{sqe_server.port}" in log


class TestTokenProfile:
    @pytest.fixture(scope="class")
    def dbt_profile_target(self, sqe_server):
        import pyarrow.flight as flight

        client = flight.FlightClient(sqe_server.uri)
        _, value = client.authenticate_basic_token(sqe_server.user, sqe_server.password)
        client.close()
        token = value.decode().removeprefix("Bearer ")
        return {
            "type": "sqe",
            "host": sqe_server.host,
            "port": sqe_server.port,
            "token": token,
            "database": "iceberg",
            "threads": 1,
            "query_timeout": 60,
        }

    @pytest.fixture(scope="class")
    def models(self):
        return {"single.sql": "select 1 as id"}

    def test_a_bearer_token_connects(self, project):
        run_dbt(["run"])
        assert project.run_sql(f"select id from {project.test_schema}.single", fetch="one")[0] == 1


SOURCES_YML = """
version: 2
sources:
  - name: lake
    schema: "{{ target.schema }}"
    freshness:
      warn_after: {count: 1, period: day}
    tables:
      - name: source_rows
"""


@pytest.mark.information_schema
class TestSourceFreshnessFromMetadata:
    """Without a loaded_at_field, freshness is the time of the table's current snapshot."""

    @pytest.fixture(scope="class")
    def seeds(self):
        return {"source_rows.csv": "id,v\n1,a\n"}

    @pytest.fixture(scope="class")
    def models(self):
        return {"sources.yml": SOURCES_YML}

    def test_a_fresh_table_passes(self, project):
        run_dbt(["seed"])
        results = run_dbt(["source", "freshness"])
        assert [r.status for r in results] == ["pass"]
        assert results[0].age < 600

"""dbt's materialized view suites against SQE, and what SQE adds: a run with no source moved
commits nothing, and the view's rows follow its sources."""

from typing import Optional, Tuple

import pytest
from dbt.adapters.base.relation import BaseRelation
from dbt.tests.adapter.materialized_view.basic import MaterializedViewBasic
from dbt.tests.adapter.materialized_view.changes import (
    MaterializedViewChanges,
    MaterializedViewChangesApplyMixin,
    MaterializedViewChangesContinueMixin,
    MaterializedViewChangesFailMixin,
)
from dbt.tests.adapter.materialized_view.files import MY_SEED, MY_TABLE, MY_VIEW
from dbt.tests.util import get_model_file, run_dbt, run_dbt_and_capture, set_model_file

# SQE reads a materialized view's storage table only while no source moved, unless max_staleness
# allows older rows: with one, dbt's suite sees the view unchanged until the refresh, as it expects.
MY_MATERIALIZED_VIEW = """
{{ config(
    materialized='materialized_view',
    max_staleness='1h',
) }}
select * from {{ ref('my_seed') }}
"""


def query_relation_type(project, relation: BaseRelation) -> Optional[str]:
    """'materialized_view', 'table' or 'view', from system.metadata and information_schema."""
    rows = project.run_sql(
        f"""
        select case when mv.name is not null then 'materialized_view'
                    when t.table_type = 'BASE TABLE' then 'table'
                    else lower(t.table_type) end
        from {relation.database}.information_schema.tables t
        left join system.metadata.materialized_views mv
          on mv.catalog_name = t.table_catalog and mv.schema_name = t.table_schema and mv.name = t.table_name
        where t.table_schema = '{relation.schema}' and t.table_name = '{relation.identifier}'
        """,
        fetch="all",
    )
    assert len(rows) <= 1, rows
    return rows[0][0] if rows else None


def describe(project, relation: BaseRelation) -> dict:
    """The materialized view's max_staleness, query and storage table, as SQE reports them."""
    ddl = project.run_sql(f"show create materialized view {relation}", fetch="one")[0]
    storage, freshness = project.run_sql(
        "select storage_table, freshness from system.metadata.materialized_views"
        f" where catalog_name = '{relation.database}' and schema_name = '{relation.schema}'"
        f" and name = '{relation.identifier}'",
        fetch="one",
    )
    staleness = None
    if "max_staleness = '" in ddl:
        staleness = ddl.split("max_staleness = '", 1)[1].split("'", 1)[0]
    return {"ddl": ddl, "max_staleness": staleness, "storage_table": storage, "freshness": freshness}


def snapshot_ids(project, relation: BaseRelation, table: str) -> list:
    rows = project.run_sql(
        f'select snapshot_id from {relation.database}.{relation.schema}."{table}$snapshots" order by committed_at',
        fetch="all",
    )
    return [row[0] for row in rows]


class TestMaterializedViewBasic(MaterializedViewBasic):
    @pytest.fixture(scope="class", autouse=True)
    def models(self):
        yield {
            "my_table.sql": MY_TABLE,
            "my_view.sql": MY_VIEW,
            "my_materialized_view.sql": MY_MATERIALIZED_VIEW,
        }

    @staticmethod
    def insert_record(project, table: BaseRelation, record: Tuple[int, int]):
        my_id, value = record
        project.run_sql(f"insert into {table} (id, value) values ({my_id}, {value})")

    @staticmethod
    def refresh_materialized_view(project, materialized_view: BaseRelation):
        project.run_sql(f"refresh materialized view {materialized_view}")

    @staticmethod
    def query_row_count(project, relation: BaseRelation) -> int:
        return project.run_sql(f"select count(*) from {relation}", fetch="one")[0]

    @staticmethod
    def query_relation_type(project, relation: BaseRelation) -> Optional[str]:
        return query_relation_type(project, relation)


class SqeMaterializedViewChanges(MaterializedViewChanges):
    """The change applied in place is max_staleness; the one that replaces the view is its query."""

    @pytest.fixture(scope="class", autouse=True)
    def models(self):
        yield {"my_materialized_view.sql": MY_MATERIALIZED_VIEW}

    @staticmethod
    def query_relation_type(project, relation: BaseRelation) -> Optional[str]:
        return query_relation_type(project, relation)

    @staticmethod
    def check_start_state(project, materialized_view):
        state = describe(project, materialized_view)
        assert state["max_staleness"] == "1h"
        assert "WHERE" not in state["ddl"]

    @staticmethod
    def change_config_via_alter(project, materialized_view):
        model = get_model_file(project, materialized_view)
        set_model_file(project, materialized_view, model.replace("max_staleness='1h'", "max_staleness='10m'"))

    @staticmethod
    def check_state_alter_change_is_applied(project, materialized_view):
        assert describe(project, materialized_view)["max_staleness"] == "10m"

    @staticmethod
    def change_config_via_replace(project, materialized_view):
        model = get_model_file(project, materialized_view)
        set_model_file(project, materialized_view, model.replace("from {{ ref('my_seed') }}", "from {{ ref('my_seed') }} where id > 1"))

    @staticmethod
    def check_state_replace_change_is_applied(project, materialized_view):
        assert 'WHERE "id" > 1' in describe(project, materialized_view)["ddl"]
        assert project.run_sql(f"select count(*) from {materialized_view}", fetch="one")[0] == 2


class TestMaterializedViewChangesApply(SqeMaterializedViewChanges, MaterializedViewChangesApplyMixin):
    def test_altered_view_keeps_its_storage_table(self, project, my_materialized_view):
        before = describe(project, my_materialized_view)
        snapshots = snapshot_ids(project, my_materialized_view, before["storage_table"])
        self.change_config_via_alter(project, my_materialized_view)
        run_dbt(["run", "--models", my_materialized_view.name])
        after = describe(project, my_materialized_view)
        # A new max_staleness with the same query: no rebuild, no commit to the storage table.
        assert after["max_staleness"] == "10m"
        assert after["storage_table"] == before["storage_table"]
        assert snapshot_ids(project, my_materialized_view, after["storage_table"]) == snapshots
        assert after["freshness"] == "FRESH"

    def test_query_change_with_the_same_plan_is_no_change(self, project, my_materialized_view):
        model = get_model_file(project, my_materialized_view)
        set_model_file(project, my_materialized_view, model.replace("select *", "-- the columns\nSELECT  id,\n  value"))
        _, logs = run_dbt_and_capture(["--debug", "run", "--models", my_materialized_view.name])
        assert f"Applying REFRESH to: {my_materialized_view}" in logs
        assert f"Applying REPLACE to: {my_materialized_view}" not in logs


class TestMaterializedViewChangesContinue(SqeMaterializedViewChanges, MaterializedViewChangesContinueMixin):
    pass


class TestMaterializedViewChangesFail(SqeMaterializedViewChanges, MaterializedViewChangesFailMixin):
    pass


class TestMaterializedViewRuns:
    """A second `dbt run` with no source moved refreshes without rewriting the storage table; one
    after a source changed rewrites it, and the view's rows are the new ones."""

    @pytest.fixture(scope="class")
    def seeds(self):
        return {"my_seed.csv": MY_SEED}

    @pytest.fixture(scope="class")
    def models(self):
        return {
            "totals.sql": """
{{ config(materialized='materialized_view') }}
select count(*) as n, sum(value) as total from {{ ref('my_seed') }}
"""
        }

    def test_unchanged_run_commits_nothing_and_a_source_change_shows(self, project):
        totals = project.adapter.Relation.create(
            database=project.database, schema=project.test_schema, identifier="totals", type="materialized_view"
        )
        seed = project.adapter.Relation.create(database=project.database, schema=project.test_schema, identifier="my_seed")
        run_dbt(["seed"])
        run_dbt(["run"])
        built = describe(project, totals)
        snapshots = snapshot_ids(project, totals, built["storage_table"])
        assert project.run_sql(f"select n, total from {totals}", fetch="one") == (3, 600)

        _, logs = run_dbt_and_capture(["--debug", "run"])
        assert f"Applying REFRESH to: {totals}" in logs
        again = describe(project, totals)
        assert again["storage_table"] == built["storage_table"]
        assert snapshot_ids(project, totals, again["storage_table"]) == snapshots
        assert again["freshness"] == "FRESH"

        # The listing dbt caches says what each relation is; the storage table is not one of them.
        relations = project.adapter.list_relations(project.database, project.test_schema)
        assert {r.identifier: r.type for r in relations} == {"totals": "materialized_view", "my_seed": "table"}

        project.run_sql(f"insert into {seed} (id, value) values (4, 400)")
        # Never stale: without max_staleness the moved source answers before any refresh.
        assert project.run_sql(f"select n, total from {totals}", fetch="one") == (4, 1000)
        assert describe(project, totals)["freshness"] == "STALE"
        run_dbt(["run"])
        refreshed = describe(project, totals)
        assert refreshed["freshness"] == "FRESH"
        assert len(snapshot_ids(project, totals, refreshed["storage_table"])) == len(snapshots) + 1
        assert project.run_sql(f"select n, total from {totals}", fetch="one") == (4, 1000)

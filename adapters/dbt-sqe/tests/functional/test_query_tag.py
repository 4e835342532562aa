"""A model's `query_tag` config tags the statements that build it, in SQE's system.runtime.queries
(and audit log), as dbt-snowflake's query_tag does; statements after the model are untagged again."""

import pytest
from dbt.tests.util import run_dbt

TAGGED_TABLE = """
{{ config(materialized='table', query_tag="nightly 'orders'") }}
select 1 as id, 'a' as v
"""

UNTAGGED_VIEW = """
select id, v from {{ ref('tagged_orders') }}
"""


class TestModelQueryTag:
    @pytest.fixture(scope="class")
    def models(self):
        return {"tagged_orders.sql": TAGGED_TABLE, "plain_view.sql": UNTAGGED_VIEW}

    def test_the_models_statements_carry_its_tag_and_the_next_ones_do_not(self, project):
        run_dbt(["run", "--threads", "1"])
        rows = [
            (tag, query)
            for tag, query in project.run_sql("select query_tag, query from system.runtime.queries", fetch="all")
            if project.test_schema in query
        ]
        tagged = [query for tag, query in rows if tag == "nightly 'orders'"]
        assert any("create or replace table" in q.lower() and "tagged_orders" in q for q in tagged)
        # The view model and this query come after the table model reset the session's tag.
        assert not any("plain_view" in q for q in tagged)
        view_statements = [tag for tag, query in rows if "create or replace view" in query.lower() and "plain_view" in query]
        assert view_statements and all(tag is None for tag in view_statements)


class TestProfileQueryTag:
    @pytest.fixture(scope="class")
    def dbt_profile_target(self, sqe_server):
        return {
            "type": "sqe",
            "host": sqe_server.host,
            "port": sqe_server.port,
            "user": sqe_server.user,
            "password": sqe_server.password,
            "database": "iceberg",
            "threads": 1,
            "query_tag": "team-finance",
        }

    @pytest.fixture(scope="class")
    def models(self):
        return {"tagged_orders.sql": TAGGED_TABLE, "plain_view.sql": UNTAGGED_VIEW}

    def test_the_profiles_tag_covers_every_statement_but_a_models_own(self, project):
        run_dbt(["run"])
        rows = [
            (tag, query)
            for tag, query in project.run_sql("select query_tag, query from system.runtime.queries", fetch="all")
            if project.test_schema in query
        ]
        views = [tag for tag, query in rows if "create or replace view" in query.lower() and "plain_view" in query]
        tables = [tag for tag, query in rows if "create or replace table" in query.lower() and "tagged_orders" in query]
        assert views and all(tag == "team-finance" for tag in views)
        assert tables and all(tag == "nightly 'orders'" for tag in tables)

"""Columns named by words that Calcite reserves and Trino does not (method, date, count, ...) work
unquoted in a project's own SQL: a seed, a view over it and a table over the view, incrementally too."""

import pytest
from dbt.tests.util import run_dbt

SEED = """id,method,date,count,position,user
1,GET,2024-01-01,3,1,ann
2,POST,2024-01-02,5,2,bob
3,GET,2024-01-03,7,3,ann
"""

VIEW = """
select id, method, date, count, position, user
from {{ ref('requests') }}
where method = 'GET' or count > 4
"""

TABLE = """
{{ config(materialized='table') }}
select method, sum(count) as count, max(date) as date, count(distinct user) as users
from {{ ref('recent_requests') }}
group by method
"""

INCREMENTAL = """
{{ config(materialized='incremental', unique_key='id') }}
select id, method, count from {{ ref('requests') }}
{% if is_incremental() %} where id > (select max(id) - 1 from {{ this }}) {% endif %}
"""


class TestKeywordColumns:
    @pytest.fixture(scope="class")
    def seeds(self):
        return {"requests.csv": SEED}

    @pytest.fixture(scope="class")
    def models(self):
        return {"recent_requests.sql": VIEW, "by_method.sql": TABLE, "request_log.sql": INCREMENTAL}

    def test_models_with_keyword_columns_build(self, project):
        assert len(run_dbt(["seed"])) == 1
        assert len(run_dbt(["run"])) == 3
        assert len(run_dbt(["run"])) == 3
        schema = project.test_schema
        rows = project.run_sql(f"select method, count, users from {schema}.by_method order by method", fetch="all")
        assert [tuple(r) for r in rows] == [("GET", 10, 1), ("POST", 5, 1)]
        rows = project.run_sql(f"select id, method, count from {schema}.request_log order by id", fetch="all")
        assert [tuple(r) for r in rows] == [(1, "GET", 3), (2, "POST", 5), (3, "GET", 7)]

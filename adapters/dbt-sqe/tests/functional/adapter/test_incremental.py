"""dbt's incremental suite against SQE."""

import pytest
from dbt.tests.adapter.incremental.test_incremental_merge_exclude_columns import BaseMergeExcludeColumns
from dbt.tests.adapter.incremental.test_incremental_microbatch import BaseMicrobatch
from dbt.tests.adapter.incremental.test_incremental_on_schema_change import BaseIncrementalOnSchemaChange
from dbt.tests.adapter.incremental.test_incremental_predicates import BaseIncrementalPredicates
from dbt.tests.adapter.incremental.test_incremental_unique_id import BaseIncrementalUniqueKey


class TestIncrementalUniqueKey(BaseIncrementalUniqueKey):
    pass


class TestIncrementalOnSchemaChange(BaseIncrementalOnSchemaChange):
    pass


class TestMergeExcludeColumns(BaseMergeExcludeColumns):
    pass


class TestIncrementalPredicates(BaseIncrementalPredicates):
    pass


# SQE's TIMESTAMP literals take no UTC offset (the fixture writes '2020-01-01 00:00:00-0').
_input_model_sql = """
{{ config(materialized='table', event_time='event_time') }}
select 1 as id, TIMESTAMP '2020-01-01 00:00:00' as event_time
union all
select 2 as id, TIMESTAMP '2020-01-02 00:00:00' as event_time
union all
select 3 as id, TIMESTAMP '2020-01-03 00:00:00' as event_time
"""


class TestMicrobatch(BaseMicrobatch):
    @pytest.fixture(scope="class")
    def input_model_sql(self):
        return _input_model_sql

    @pytest.fixture(scope="class")
    def insert_two_rows_sql(self, project):
        relation = project.adapter.Relation.create(database=project.database, schema=project.test_schema)
        return (
            f"insert into {relation}.input_model (id, event_time) values "
            "(4, TIMESTAMP '2020-01-04 00:00:00'), (5, TIMESTAMP '2020-01-05 00:00:00')"
        )

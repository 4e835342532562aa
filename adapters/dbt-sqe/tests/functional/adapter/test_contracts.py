"""Model contracts (column names, types, NOT NULL) against SQE."""

import pytest
from dbt.tests.adapter.constraints.test_constraints import (
    BaseConstraintsRuntimeDdlEnforcement,
    BaseConstraintsRollback,
    BaseIncrementalConstraintsColumnsEqual,
    BaseIncrementalConstraintsRollback,
    BaseTableConstraintsColumnsEqual,
    BaseViewConstraintsColumnsEqual,
)


class SqeTypes:
    """The suite's values with SQE's type names: [value, declared type, type in the error]."""

    @pytest.fixture
    def string_type(self):
        return "varchar"

    @pytest.fixture
    def int_type(self):
        return "integer"

    @pytest.fixture
    def data_types(self, int_type, string_type):
        return [
            ["1", int_type, int_type],
            ["'1'", string_type, string_type],
            ["true", "boolean", "boolean"],
            # SQE stores TIMESTAMP WITH LOCAL TIME ZONE (Iceberg's timestamptz), not Calcite's TIMESTAMP WITH TIME ZONE.
            [
                "cast(timestamp '2013-11-03 00:00:00' as timestamp with local time zone)",
                "timestamp with local time zone",
                "timestamp(6) with time zone",
            ],
            ["timestamp '2013-11-03 00:00:00'", "timestamp", "timestamp(6)"],
            ["array['a','b','c']", "array(varchar)", "array(varchar)"],
            ["array[1,2,3]", "array(integer)", "array(integer)"],
            ["cast(1 as decimal(10, 2))", "decimal(10, 2)", "decimal(10,2)"],
        ]


class TestTableConstraintsColumnsEqual(SqeTypes, BaseTableConstraintsColumnsEqual):
    pass


class TestViewConstraintsColumnsEqual(SqeTypes, BaseViewConstraintsColumnsEqual):
    pass


class TestIncrementalConstraintsColumnsEqual(SqeTypes, BaseIncrementalConstraintsColumnsEqual):
    pass


# A NULL in a NOT NULL column fails the CREATE OR REPLACE TABLE, and the table keeps its rows.
class TestConstraintsRollback(BaseConstraintsRollback):
    @pytest.fixture(scope="class")
    def expected_error_messages(self):
        return ["NULL value for NOT NULL column id"]


class TestIncrementalConstraintsRollback(BaseIncrementalConstraintsRollback):
    @pytest.fixture(scope="class")
    def expected_error_messages(self):
        return ["NULL value for NOT NULL column id"]


class TestConstraintsRuntimeDdlEnforcement(BaseConstraintsRuntimeDdlEnforcement):
    # SQE's DDL for the suite's model: one CREATE OR REPLACE TABLE ... AS with the contract's
    # types as casts and NOT NULL on the column; Iceberg has no primary key, check, foreign key or
    # unique constraints, so those are left out (dbt warns that they are not enforced).
    @pytest.fixture(scope="class")
    def expected_sql(self):
        return """
create or replace table <model_identifier>
  (id not null, color, date_day)
as
select
  cast(id as integer) as id,
  cast(color as VARCHAR) as color,
  cast(date_day as VARCHAR) as date_day
from (
  -- depends_on: <foreign_key_model_identifier>
  select
    'blue' as color,
    1 as id,
    '2019-01-01' as date_day
) as model_subq
"""

"""dbt's relation, caching, alias, concurrency, ephemeral and empty suites against SQE."""

import re

import pytest
from dbt.tests.adapter.aliases.test_aliases import BaseAliasErrors, BaseAliases, BaseSameAliasDifferentSchemas
from dbt.tests.adapter.concurrency.test_concurrency import BaseConcurrency
from dbt.tests.adapter.caching.test_caching import (
    BaseCachingLowercaseModel,
    BaseCachingSelectedSchemaOnly,
    BaseCachingUppercaseModel,
    BaseNoPopulateCache,
)
from dbt.tests.adapter.empty.test_empty import BaseTestEmpty, BaseTestEmptyInlineSourceRef
from dbt.tests.adapter.ephemeral.test_ephemeral import (
    BaseEphemeralErrorHandling,
    BaseEphemeralMulti,
    BaseEphemeralNested,
)
from dbt.tests.adapter.relations.test_changing_relation_type import BaseChangeRelationTypeValidator
from dbt.tests.adapter.relations.test_dropping_schema_named import BaseDropSchemaNamed
from dbt.tests.util import check_relations_equal, run_dbt

def compiled_sql(path: str) -> str:
    """A compiled statement with digits and whitespace removed, as the ephemeral suite compares them."""
    with open(path) as f:
        return "".join(re.sub(r"\d+", "", f.read()).split())


class TestChangeRelationTypes(BaseChangeRelationTypeValidator):
    pass


class TestConcurrency(BaseConcurrency):
    pass


class TestDropSchemaNamed(BaseDropSchemaNamed):
    pass


class TestCachingLowercaseModel(BaseCachingLowercaseModel):
    pass


class TestCachingUppercaseModel(BaseCachingUppercaseModel):
    pass


class TestCachingSelectedSchemaOnly(BaseCachingSelectedSchemaOnly):
    pass


class TestNoPopulateCache(BaseNoPopulateCache):
    pass


class TestAliases(BaseAliases):
    pass


class TestAliasErrors(BaseAliasErrors):
    pass


class TestSameAliasDifferentSchemas(BaseSameAliasDifferentSchemas):
    pass


# The ephemeral suite compares the compiled view with PostgreSQL's (a `__dbt_tmp` view renamed into
# place); SQE's view is one CREATE OR REPLACE VIEW of the same query.
class TestEphemeralMulti(BaseEphemeralMulti):
    def test_ephemeral_multi(self, project):
        run_dbt(["seed"])
        assert len(run_dbt(["run"])) == 3
        for model in ["dependent", "double_dependent", "super_dependent"]:
            check_relations_equal(project.adapter, ["seed", model])
        schema = re.sub(r"\d+", "", project.test_schema)
        expected = (
            f'create or replace view "iceberg"."{schema}"."double_dependent" as '
            f"with __dbt__cte__base as (select * from {schema}.seed), "
            "__dbt__cte__base_copy as (select * from __dbt__cte__base)"
            "-- base_copy just pulls from base. Make sure the listed"
            "-- graph of CTEs all share the same dbt_cte__base cte"
            "select * from __dbt__cte__base where gender = 'Male'"
            "union all"
            "select * from __dbt__cte__base_copy where gender = 'Female'"
        )
        assert compiled_sql("./target/run/test/models/double_dependent.sql") == "".join(expected.split())


class TestEphemeralNested(BaseEphemeralNested):
    def test_ephemeral_nested(self, project):
        assert len(run_dbt(["run"])) == 2
        schema = re.sub(r"\d+", "", project.test_schema)
        expected = (
            f'create or replace view "iceberg"."{schema}"."root_view" as '
            "with __dbt__cte__ephemeral_level_two as ("
            f'select * from "iceberg"."{schema}"."source_table"'
            "), __dbt__cte__ephemeral as (select * from __dbt__cte__ephemeral_level_two)"
            "select * from __dbt__cte__ephemeral"
        )
        assert compiled_sql("./target/run/test/models/root_view.sql") == "".join(expected.split())


class TestEphemeralErrorHandling(BaseEphemeralErrorHandling):
    pass


class TestEmptyFlag(BaseTestEmpty):
    pass


class TestEmptyInlineSourceRef(BaseTestEmptyInlineSourceRef):
    pass

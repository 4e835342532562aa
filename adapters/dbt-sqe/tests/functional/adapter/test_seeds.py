"""dbt's seed suite against SQE."""

import pytest
from dbt.tests.adapter.simple_seed import fixtures
from dbt.tests.adapter.simple_seed.test_seed import (
    BaseBasicSeedTests,
    BaseSeedConfigFullRefreshOff,
    BaseSeedConfigFullRefreshOn,
    BaseTestEmptySeed,
)
from dbt.tests.adapter.simple_seed.test_seed_type_override import BaseSimpleSeedColumnOverride
from dbt.tests.util import run_dbt

# On PostgreSQL a full refresh drops the seed with CASCADE, which takes the view built on it along.
# SQE replaces the seed's table in place (CREATE OR REPLACE TABLE) and has no cascading drops, so
# the downstream view survives and still reads the seed: these tests check that instead.


class TestBasicSeed(BaseBasicSeedTests):
    def test_simple_seed_full_refresh_flag(self, project):
        self._build_relations_for_test(project)
        self._check_relation_end_state(run_result=run_dbt(["seed", "--full-refresh"]), project=project, exists=True)


class TestSeedConfigFullRefreshOn(BaseSeedConfigFullRefreshOn):
    def test_simple_seed_full_refresh_config(self, project):
        self._build_relations_for_test(project)
        self._check_relation_end_state(run_result=run_dbt(["seed"]), project=project, exists=True)


class TestSeedConfigFullRefreshOff(BaseSeedConfigFullRefreshOff):
    pass


class TestEmptySeed(BaseTestEmptySeed):
    pass


class TestSimpleSeedColumnOverride(BaseSimpleSeedColumnOverride):
    # The suite expects PostgreSQL's type names; SQE's (Trino's) are the same but for two (an
    # override to `text` is varchar, a timestamp without time zone is timestamp(6)).
    @pytest.fixture(scope="class")
    def models(self):
        schema = fixtures.properties__schema_yml
        for postgres, sqe in [
            ("type: text", "type: varchar"),
            ("type: timestamp without time zone", "type: timestamp(6)"),
        ]:
            schema = schema.replace(postgres, sqe)
        return {"schema.yml": schema}

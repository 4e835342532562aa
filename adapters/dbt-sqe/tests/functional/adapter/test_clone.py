"""dbt clone against SQE: SQE has no zero-copy CLONE, so dbt makes each relation a view of the
state's (the suite's BaseCloneNotPossible)."""

import pytest
from dbt.tests.adapter.dbt_clone import fixtures
from dbt.tests.adapter.dbt_clone.test_dbt_clone import (
    BaseCloneNotPossible,
    BaseCloneSameSourceAndTarget,
    BaseCloneSameTargetAndState,
)

pytestmark = pytest.mark.slow


class TestCloneNotPossible(BaseCloneNotPossible):
    pass


@pytest.mark.xfail(reason="dbt clone of a relation onto itself fails on SQE; not diagnosed yet")
class TestCloneSameSourceAndTarget(BaseCloneSameSourceAndTarget):
    # The suite's class declares its models and snapshots as plain methods, not fixtures, so its
    # project would have neither and dbt clone nothing to do; here they are fixtures.
    @pytest.fixture(scope="class")
    def models(self):
        return {"source_based_model.sql": fixtures.source_based_model_sql, "source_schema.yml": fixtures.source_schema_yml}

    @pytest.fixture(scope="class")
    def snapshots(self):
        return {"snapshot_model.sql": fixtures.source_based_model_snapshot_sql}


class TestCloneSameTargetAndState(BaseCloneSameTargetAndState):
    pass

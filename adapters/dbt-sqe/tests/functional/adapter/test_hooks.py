"""dbt's hook suite against SQE.

The suite's hooks write dbt's `target` into a table that each test file brings in its data
directory (data/seed_model.sql, data/seed_run.sql, here in SQE's SQL), and its check_hooks then
expects a PostgreSQL profile (type postgres, user root, dbname dbt); SqeTarget checks the same
fields against the SQE profile the tests run with.
"""

import pytest
from dbt.tests.adapter.hooks.test_model_hooks import (
    MODEL_POST_HOOK,
    MODEL_PRE_HOOK,
    BaseDuplicateHooksInConfigs,
    BaseHookRefs,
    BaseHooksRefsOnSeeds,
    BasePrePostModelHooks,
    BasePrePostModelHooksInConfig,
    BasePrePostModelHooksInConfigKwargs,
    BasePrePostModelHooksInConfigWithCount,
    BasePrePostModelHooksOnSeedsPlusPrefixed,
    BasePrePostModelHooksOnSeedsPlusPrefixedWhitespace,
    BasePrePostModelHooksOnSnapshots,
    BasePrePostSnapshotHooksInConfigKwargs,
)
from dbt.tests.adapter.hooks.test_run_hooks import BasePrePostRunHooks

pytestmark = pytest.mark.slow


def _check_target(ctx, state, project, profile):
    assert ctx["test_state"] == state
    assert ctx["target_dbname"] == ""  # an SQE profile names a `database` (the catalog), not a dbname
    assert ctx["target_host"] == profile["host"]
    assert ctx["target_name"] == "default"
    assert ctx["target_schema"] == project.test_schema
    assert ctx["target_threads"] == profile["threads"]
    assert ctx["target_type"] == "sqe"
    assert ctx["target_user"] == profile["user"]
    assert ctx["target_pass"] == ""
    assert ctx["run_started_at"], "run_started_at was not set"
    assert ctx["invocation_id"], "invocation_id was not set"
    assert ctx["thread_id"].startswith("Thread-") or ctx["thread_id"] == "MainThread"


class SqeTarget:
    @pytest.fixture(autouse=True)
    def _profile(self, dbt_profile_target):
        self.profile = dbt_profile_target

    def check_hooks(self, state, project, host, count=1):
        for ctx in self.get_ctx_vars(state, count=count, project=project):
            _check_target(ctx, state, project, self.profile)


# The suite's hooks outside the transaction are PostgreSQL's `vacuum`; SQE's table maintenance is
# Trino's `alter table ... execute optimize`.
_OPTIMIZE = {"sql": "alter table {{ this.schema }}.on_model_hook execute optimize", "transaction": False}
_HOOKS_WITH_MAINTENANCE = {
    "models": {"test": {"pre-hook": [MODEL_PRE_HOOK, _OPTIMIZE], "post-hook": [_OPTIMIZE, MODEL_POST_HOOK]}}
}


class TestPrePostModelHooks(SqeTarget, BasePrePostModelHooks):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return _HOOKS_WITH_MAINTENANCE


class TestHookRefs(SqeTarget, BaseHookRefs):
    pass


class TestPrePostModelHooksInConfig(SqeTarget, BasePrePostModelHooksInConfig):
    pass


class TestPrePostModelHooksInConfigWithCount(SqeTarget, BasePrePostModelHooksInConfigWithCount):
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return _HOOKS_WITH_MAINTENANCE


class TestPrePostModelHooksInConfigKwargs(SqeTarget, BasePrePostModelHooksInConfigKwargs):
    pass


class TestHooksRefsOnSeeds(BaseHooksRefsOnSeeds):
    pass


class TestPrePostModelHooksOnSeedsPlusPrefixed(BasePrePostModelHooksOnSeedsPlusPrefixed):
    pass


class TestPrePostModelHooksOnSeedsPlusPrefixedWhitespace(BasePrePostModelHooksOnSeedsPlusPrefixedWhitespace):
    pass


class TestPrePostModelHooksOnSnapshots(BasePrePostModelHooksOnSnapshots):
    pass


class TestPrePostSnapshotHooksInConfigKwargs(BasePrePostSnapshotHooksInConfigKwargs):
    pass


class TestDuplicateHooksInConfigs(BaseDuplicateHooksInConfigs):
    pass


class TestPrePostRunHooks(BasePrePostRunHooks):
    @pytest.fixture(autouse=True)
    def _profile(self, dbt_profile_target):
        self.profile = dbt_profile_target

    def check_hooks(self, state, project, host):
        _check_target(self.get_ctx_vars(state, project), state, project, self.profile)

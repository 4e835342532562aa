"""dbt's query comment, test failure storage, show, unit test and hook suites against SQE."""

import pytest
from dbt.tests.adapter.dbt_debug.test_dbt_debug import BaseDebugPostgres
from dbt.tests.adapter.dbt_show.test_dbt_show import BaseShowDoesNotHandleDoubleLimit, BaseShowLimit, BaseShowSqlHeader
from dbt.tests.adapter.hooks.test_model_hooks import BasePrePostModelHooksOnSeeds
from dbt.tests.adapter.hooks.test_run_hooks import BaseAfterRunHooks
from dbt.tests.adapter.query_comment.test_query_comment import (
    BaseEmptyQueryComments,
    BaseMacroArgsQueryComments,
    BaseMacroInvalidQueryComments,
    BaseMacroQueryComments,
    BaseNullQueryComments,
    BaseQueryComments,
)
from dbt.tests.adapter.simple_copy.test_copy_uppercase import BaseSimpleCopyUppercase
from dbt.tests.adapter.store_test_failures_tests.test_store_test_failures import BaseStoreTestFailures
from dbt.tests.adapter.unit_testing.test_case_insensitivity import BaseUnitTestCaseInsensivity
from dbt.tests.adapter.unit_testing.test_invalid_input import BaseUnitTestInvalidInput
from dbt.tests.adapter.unit_testing.test_types import BaseUnitTestingTypes
from dbt.tests.adapter.utils.test_source_freshness_custom_info import BaseCalculateFreshnessMethod

# Not in bin/test's default run (SQE_DBT_SLOW=1 runs them).
pytestmark = pytest.mark.slow


class TestQueryComments(BaseQueryComments):
    pass


class TestMacroQueryComments(BaseMacroQueryComments):
    pass


class TestMacroArgsQueryComments(BaseMacroArgsQueryComments):
    pass


class TestMacroInvalidQueryComments(BaseMacroInvalidQueryComments):
    pass


class TestNullQueryComments(BaseNullQueryComments):
    pass


class TestEmptyQueryComments(BaseEmptyQueryComments):
    pass


class TestStoreTestFailures(BaseStoreTestFailures):
    pass


class TestShowLimit(BaseShowLimit):
    pass


class TestShowSqlHeader(BaseShowSqlHeader):
    pass


class TestUnitTestingTypes(BaseUnitTestingTypes):
    @pytest.fixture
    def data_types(self):
        # sql value, the same value in a unit test's yaml
        return [
            ["1", "1"],
            ["'1'", "1"],
            ["true", "true"],
            ["DATE '2020-01-02'", "2020-01-02"],
            ["TIMESTAMP '2013-11-03 00:00:00'", "2013-11-03 00:00:00"],
            ["cast(1 as decimal(10, 2))", "1"],
        ]


class TestUnitTestCaseInsensitivity(BaseUnitTestCaseInsensivity):
    pass


class TestUnitTestInvalidInput(BaseUnitTestInvalidInput):
    pass


class TestPrePostModelHooksOnSeeds(BasePrePostModelHooksOnSeeds):
    pass


class TestAfterRunHooks(BaseAfterRunHooks):
    pass


class TestShowDoesNotHandleDoubleLimit(BaseShowDoesNotHandleDoubleLimit):
    # dbt wraps the inline query in its own LIMIT; SQE's parser refuses the second one, as
    # PostgreSQL does, in its own words.
    DATABASE_ERROR_MESSAGE = "Syntax error"


class TestCalculateFreshnessMethod(BaseCalculateFreshnessMethod):
    pass


class TestDebug(BaseDebugPostgres):
    pass


class TestSimpleCopyUppercase(BaseSimpleCopyUppercase):
    # The suite's version hard-codes a PostgreSQL profile whose database is "dbtMixedCase"; SQE's
    # catalog is the profile's `database`, so this runs the same upper-case models against the
    # test server's profile.
    @pytest.fixture(scope="class")
    def dbt_profile_target(self, sqe_server):
        return {
            "type": "sqe",
            "host": sqe_server.host,
            "port": sqe_server.port,
            "user": sqe_server.user,
            "password": sqe_server.password,
            "database": "iceberg",
            "threads": 4,
        }

"""dbt-tests-adapter classes that dbt-trino's repository runs, through dbt-trino against SQE.

These are the classes of dbt-trino's tests/functional/adapter/test_basic.py, unchanged: the
fixtures are dbt-tests-adapter's own, with dbt-trino as the adapter and SQE's Trino endpoint as
the server (conftest.py's dbt_profile_target). Where dbt-trino's own classes set Trino's answers
(the docs catalog: no owner, varchar, timestamp(6), no stats), these set the same facts.
"""

import pytest

from dbt.tests.adapter.basic.test_adapter_methods import BaseAdapterMethod
from dbt.tests.adapter.basic.expected_catalog import base_expected_catalog, no_stats
from dbt.tests.adapter.basic.test_docs_generate import BaseDocsGenerate
from dbt.tests.adapter.basic.test_empty import BaseEmpty
from dbt.tests.adapter.basic.test_ephemeral import BaseEphemeral
from dbt.tests.adapter.basic.test_generic_tests import BaseGenericTests
from dbt.tests.adapter.basic.test_incremental import BaseIncremental, BaseIncrementalNotSchemaChange
from dbt.tests.adapter.basic.test_base import BaseSimpleMaterializations
from dbt.tests.adapter.basic.test_singular_tests import BaseSingularTests
from dbt.tests.adapter.basic.test_singular_tests_ephemeral import BaseSingularTestsEphemeral
from dbt.tests.adapter.basic.test_snapshot_check_cols import BaseSnapshotCheckCols
from dbt.tests.adapter.basic.test_snapshot_timestamp import BaseSnapshotTimestamp
from dbt.tests.adapter.basic.test_validate_connection import BaseValidateConnection


class TestSimpleMaterializationsTrino(BaseSimpleMaterializations):
    pass


class TestSingularTestsTrino(BaseSingularTests):
    pass


class TestSingularTestsEphemeralTrino(BaseSingularTestsEphemeral):
    pass


class TestEmptyTrino(BaseEmpty):
    pass


class TestEphemeralTrino(BaseEphemeral):
    pass


class TestIncrementalTrino(BaseIncremental):
    pass


class TestIncrementalNotSchemaChangeTrino(BaseIncrementalNotSchemaChange):
    pass


class TestGenericTestsTrino(BaseGenericTests):
    pass


class TestSnapshotCheckColsTrino(BaseSnapshotCheckCols):
    pass


class TestSnapshotTimestampTrino(BaseSnapshotTimestamp):
    pass


class TestBaseAdapterMethodTrino(BaseAdapterMethod):
    pass


class TestValidateConnectionTrino(BaseValidateConnection):
    pass


class TestDocsGenerateTrino(BaseDocsGenerate):
    @pytest.fixture(scope="class")
    def expected_catalog(self, project):
        return base_expected_catalog(project, role=None, id_type="integer", text_type="varchar",
                                     time_type="timestamp(6)", view_type="VIEW", table_type="BASE TABLE",
                                     model_stats=no_stats())

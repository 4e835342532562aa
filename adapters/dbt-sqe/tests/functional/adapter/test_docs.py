"""dbt docs (the catalog from information_schema) and persist_docs against SQE."""

import pytest
from dbt.tests.adapter.basic import expected_catalog
from dbt.tests.adapter.basic.test_docs_generate import BaseDocsGenerate, BaseDocsGenReferences
from dbt.tests.adapter.persist_docs.test_persist_docs import (
    BasePersistDocs,
    BasePersistDocsColumnMissing,
    BasePersistDocsCommentOnQuotedColumn,
)

pytestmark = pytest.mark.information_schema

# SQE's type names, and no table owners (Iceberg tables have none).
SQE_TYPES = dict(id_type="integer", text_type="varchar", time_type="timestamp(6)", view_type="VIEW", table_type="BASE TABLE")


class TestDocsGenerate(BaseDocsGenerate):
    @pytest.fixture(scope="class")
    def expected_catalog(self, project):
        return expected_catalog.base_expected_catalog(
            project, role=None, model_stats=expected_catalog.no_stats(), **SQE_TYPES
        )


class TestDocsGenReferences(BaseDocsGenReferences):
    @pytest.fixture(scope="class")
    def expected_catalog(self, project):
        return expected_catalog.expected_references_catalog(
            project, role=None, bigint_type="bigint", model_stats=expected_catalog.no_stats(), **SQE_TYPES
        )


class TestPersistDocs(BasePersistDocs):
    pass


class TestPersistDocsColumnMissing(BasePersistDocsColumnMissing):
    pass


class TestPersistDocsCommentOnQuotedColumn(BasePersistDocsCommentOnQuotedColumn):
    pass

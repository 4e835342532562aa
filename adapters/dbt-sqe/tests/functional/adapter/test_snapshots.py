"""dbt's snapshot suite against SQE."""

import datetime

import pytest
from dbt.tests.adapter.simple_snapshot import new_record_timestamp_mode
from dbt.tests.adapter.simple_snapshot import test_various_configs as various_configs
from dbt.tests.adapter.simple_snapshot.new_record_check_mode import BaseSnapshotNewRecordCheckMode
from dbt.tests.adapter.simple_snapshot.new_record_dbt_valid_to_current import BaseSnapshotNewRecordDbtValidToCurrent
from dbt.tests.adapter.simple_snapshot.new_record_timestamp_mode import BaseSnapshotNewRecordTimestampMode
from dbt.tests.adapter.simple_snapshot.test_ephemeral_snapshot_hard_deletes import BaseSnapshotEphemeralHardDeletes
from dbt.tests.adapter.simple_snapshot.test_snapshot import BaseSimpleSnapshot, BaseSnapshotCheck
from dbt.tests.adapter.simple_snapshot.test_various_configs import (
    BaseSnapshotColumnNames,
    BaseSnapshotColumnNamesFromDbtProject,
    BaseSnapshotDbtValidToCurrent,
    BaseSnapshotInvalidColumnNames,
    BaseSnapshotMultiUniqueKey,
)
from dbt.tests.util import check_relations_equal, run_dbt, run_sql_with_adapter


class TestSimpleSnapshot(BaseSimpleSnapshot):
    # The suite's own versions write PostgreSQL's `interval '1 day'` and `add column ... default
    # null`; these are the same steps in SQE's SQL.
    def test_updates_are_captured_by_snapshot(self, project):
        self.update_fact_records({"updated_at": "updated_at + interval '1' day"}, "id between 16 and 20")
        run_dbt(["snapshot"])
        self._assert_results(
            ids_with_current_snapshot_records=range(1, 21),
            ids_with_closed_out_snapshot_records=range(16, 21),
        )

    def test_new_column_captured_by_snapshot(self, project):
        self.add_fact_column("full_name", "varchar")
        self.update_fact_records(
            {"full_name": "first_name || ' ' || last_name", "updated_at": "updated_at + interval '1' day"},
            "id between 11 and 20",
        )
        run_dbt(["snapshot"])
        self._assert_results(
            ids_with_current_snapshot_records=range(1, 21),
            ids_with_closed_out_snapshot_records=range(11, 21),
        )


class TestSnapshotCheck(BaseSnapshotCheck):
    pass


# The snapshot variants below run the suite's own steps; their SQL fixtures are PostgreSQL's, and
# the only change SQE needs is the interval literal (`interval '1' hour`, not `interval '1 hour'`).
def _sqe_sql(sql):
    return sql.replace("interval '1 hour'", "interval '1' hour")


@pytest.fixture
def _sqe_various_configs_sql(monkeypatch):
    for name in ("invalidate_sql", "invalidate_multi_key_sql"):
        monkeypatch.setattr(various_configs, name, _sqe_sql(getattr(various_configs, name)))


@pytest.mark.usefixtures("_sqe_various_configs_sql")
class TestSnapshotColumnNames(BaseSnapshotColumnNames):
    pass


@pytest.mark.usefixtures("_sqe_various_configs_sql")
class TestSnapshotColumnNamesFromDbtProject(BaseSnapshotColumnNamesFromDbtProject):
    pass


@pytest.mark.usefixtures("_sqe_various_configs_sql")
class TestSnapshotInvalidColumnNames(BaseSnapshotInvalidColumnNames):
    pass


@pytest.mark.usefixtures("_sqe_various_configs_sql")
class TestSnapshotDbtValidToCurrent(BaseSnapshotDbtValidToCurrent):
    # The suite's version reads the snapshot without ORDER BY and expects PostgreSQL's insertion
    # order (row 9 is id 10's closed version, row 20 a current one); a MERGE rewrites Iceberg data
    # files, so here the same rows are read in that order: by id, then validity.
    def test_valid_to_current(self, project):
        project.run_sql(various_configs.create_seed_sql)
        project.run_sql(various_configs.create_snapshot_expected_sql)
        project.run_sql(various_configs.seed_insert_sql)
        project.run_sql(various_configs.populate_snapshot_expected_valid_to_current_sql)
        assert len(run_dbt(["snapshot"])) == 1

        query = "select id, test_scd_id, test_valid_to from {schema}.snapshot_actual order by id, test_valid_to"
        original_snapshot = run_sql_with_adapter(project.adapter, query, "all")
        assert original_snapshot[0][2] == datetime.datetime(2099, 12, 31, 0, 0)
        assert original_snapshot[9][2] == datetime.datetime(2099, 12, 31, 0, 0)

        project.run_sql(various_configs.invalidate_sql)
        project.run_sql(various_configs.update_with_current_sql)
        assert len(run_dbt(["snapshot"])) == 1

        updated_snapshot = run_sql_with_adapter(project.adapter, query, "all")
        assert updated_snapshot[0][2] == datetime.datetime(2099, 12, 31, 0, 0)
        assert updated_snapshot[9][2] == datetime.datetime(2016, 8, 20, 16, 44, 49)
        assert updated_snapshot[20][2] == datetime.datetime(2099, 12, 31, 0, 0)
        check_relations_equal(project.adapter, ["snapshot_actual", "snapshot_expected"])


@pytest.mark.usefixtures("_sqe_various_configs_sql")
class TestSnapshotMultiUniqueKey(BaseSnapshotMultiUniqueKey):
    pass


class TestSnapshotNewRecordTimestampMode(BaseSnapshotNewRecordTimestampMode):
    @pytest.fixture(scope="class")
    def invalidate_sql_statements(self):
        return [_sqe_sql(s) for s in new_record_timestamp_mode._invalidate_sql_statements]


class TestSnapshotNewRecordCheckMode(BaseSnapshotNewRecordCheckMode):
    @pytest.fixture(scope="class")
    def invalidate_sql_statements(self):
        return [_sqe_sql(s) for s in new_record_timestamp_mode._invalidate_sql_statements]


class TestSnapshotNewRecordDbtValidToCurrent(BaseSnapshotNewRecordDbtValidToCurrent):
    pass


class TestSnapshotEphemeralHardDeletes(BaseSnapshotEphemeralHardDeletes):
    # SQE's ALTER TABLE ADD COLUMN takes no DEFAULT: the source's new column is NULL in old rows.
    @pytest.fixture(scope="class")
    def source_alter_sql(self):
        return "alter table {database}.{schema}.src_customers add column dummy_column varchar(50)"

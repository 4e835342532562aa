"""dbt's snapshot suite against SQE."""

from dbt.tests.adapter.simple_snapshot.test_snapshot import BaseSimpleSnapshot, BaseSnapshotCheck
from dbt.tests.util import run_dbt


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

"""Relations in SQE: catalog.schema.name, quoted, tables, views and materialized views."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from dbt.adapters.base.relation import BaseRelation, EventTimeFilter
from dbt.adapters.contracts.relation import RelationType

# In the names of relations dbt-sqe makes for one run of one model.
SCRATCH_MARKER = "__dbt_tmp"


@dataclass(frozen=True, eq=False, repr=False)
class SqeRelation(BaseRelation):
    # Calcite needs no alias on a derived table, and a second alias would break `ref(...) as x`.
    require_alias: bool = False
    # CREATE OR REPLACE MATERIALIZED VIEW replaces one in a single statement; SQE renames no
    # materialized view, so dbt's replace of another relation type drops it and creates the view.
    replaceable_relations: frozenset = field(default_factory=lambda: frozenset({RelationType.MaterializedView}))

    def _render_event_time_filtered(self, event_time_filter: EventTimeFilter) -> str:
        # dbt renders Python datetimes as '2020-01-01 00:00:00+00:00'; SQE compares timestamps with
        # TIMESTAMP literals, so the bounds become UTC timestamps without an offset.
        column = event_time_filter.field_name
        bounds = []
        if event_time_filter.start:
            bounds.append(f"{column} >= {self.timestamp_literal(event_time_filter.start)}")
        if event_time_filter.end:
            bounds.append(f"{column} < {self.timestamp_literal(event_time_filter.end)}")
        return " and ".join(bounds)

    @staticmethod
    def timestamp_literal(value: datetime) -> str:
        """A TIMESTAMP literal of the UTC time of a datetime (naive ones are taken as UTC)."""
        if value.tzinfo is not None:
            value = value.astimezone(timezone.utc).replace(tzinfo=None)
        return f"TIMESTAMP '{value.strftime('%Y-%m-%d %H:%M:%S.%f')}'"

"""The dbt adapter for SQE."""

from __future__ import annotations

import re
import uuid
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Set, Tuple

from dbt.adapters.base import available
from dbt.adapters.base.impl import ConstraintSupport
from dbt.adapters.base.relation import BaseRelation
from dbt.adapters.capability import Capability, CapabilityDict, CapabilitySupport, Support
from dbt.adapters.contracts.relation import RelationType
from dbt.adapters.events.logging import AdapterLogger
from dbt.adapters.sql import SQLAdapter
from dbt_common.contracts.constraints import ConstraintType
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.sqe import seeds, types
from dbt.adapters.sqe.column import SqeColumn
from dbt.adapters.sqe.connections import SqeConnectionManager, split_statements, sql_string
from dbt.adapters.sqe.relation import SCRATCH_MARKER, SqeRelation

if TYPE_CHECKING:
    import agate

logger = AdapterLogger("SQE")

_RELATION_TYPES = {"TABLE": RelationType.Table, "VIEW": RelationType.View}

# SHOW CREATE MATERIALIZED VIEW's form: the name, then COMMENT and WITH (max_staleness) on lines
# of their own when set, then AS and the query on the next lines.
_SHOW_CREATE_MATERIALIZED_VIEW = re.compile(
    r"CREATE MATERIALIZED VIEW [^\n]*?"
    r"(?:\nCOMMENT '(?P<comment>(?:[^']|'')*)')?"
    r"(?:\nWITH \(\s*max_staleness = '(?P<max_staleness>(?:[^']|'')*)'\s*\))?"
    r" AS\n(?P<definition>.*)\Z",
    re.DOTALL,
)


class SqeAdapter(SQLAdapter):
    ConnectionManager = SqeConnectionManager
    Relation = SqeRelation
    Column = SqeColumn

    CONSTRAINT_SUPPORT = {
        ConstraintType.check: ConstraintSupport.NOT_SUPPORTED,
        ConstraintType.not_null: ConstraintSupport.ENFORCED,
        ConstraintType.unique: ConstraintSupport.NOT_SUPPORTED,
        ConstraintType.primary_key: ConstraintSupport.NOT_SUPPORTED,
        ConstraintType.foreign_key: ConstraintSupport.NOT_SUPPORTED,
    }

    _capabilities = CapabilityDict(
        {
            Capability.SchemaMetadataByRelations: CapabilitySupport(support=Support.Full),
            Capability.TableLastModifiedMetadata: CapabilitySupport(support=Support.Full),
            Capability.TableLastModifiedMetadataBatch: CapabilitySupport(support=Support.Full),
            Capability.MicrobatchConcurrency: CapabilitySupport(support=Support.Full),
        }
    )

    @classmethod
    def date_function(cls) -> str:
        return "current_timestamp"

    @classmethod
    def convert_text_type(cls, agate_table: "agate.Table", col_idx: int) -> str:
        return "VARCHAR"

    @classmethod
    def convert_number_type(cls, agate_table: "agate.Table", col_idx: int) -> str:
        import agate

        decimals = agate_table.aggregate(agate.MaxPrecision(col_idx))
        return "DOUBLE" if decimals else cls.convert_integer_type(agate_table, col_idx)

    @classmethod
    def convert_integer_type(cls, agate_table: "agate.Table", col_idx: int) -> str:
        # INTEGER as dbt's other adapters infer it, BIGINT when a value does not fit.
        values = [v for v in agate_table.columns[col_idx].values() if v is not None]
        fits = all(-(2**31) <= int(v) < 2**31 for v in values)
        return "INTEGER" if fits else "BIGINT"

    @classmethod
    def convert_boolean_type(cls, agate_table: "agate.Table", col_idx: int) -> str:
        return "BOOLEAN"

    @classmethod
    def convert_datetime_type(cls, agate_table: "agate.Table", col_idx: int) -> str:
        return "TIMESTAMP"

    @classmethod
    def convert_date_type(cls, agate_table: "agate.Table", col_idx: int) -> str:
        return "DATE"

    @classmethod
    def convert_time_type(cls, agate_table: "agate.Table", col_idx: int) -> str:
        return "TIME"

    def timestamp_add_sql(self, add_to: str, number: int = 1, interval: str = "hour") -> str:
        return f"{add_to} + interval '{number}' {interval}"

    def valid_incremental_strategies(self) -> List[str]:
        return ["append", "merge", "delete+insert", "microbatch"]

    def debug_query(self) -> None:
        self.execute("select 1 as id")
        credentials = self.config.credentials
        logger.info(f"server {self.server_version()} at {credentials.uri}")

    @available
    def server_version(self) -> str:
        with self.connections.exception_handler("GetSqlInfo"):
            return self.connections.server_version()

    # Metadata comes from Flight SQL's GetDbSchemas and GetTables, which SQE answers from the
    # same code as information_schema, without planning a query.

    def _adbc(self):
        return self.connections.get_thread_connection().handle.adbc

    def list_schemas(self, database: str) -> List[str]:
        with self.connections.exception_handler(f"GetDbSchemas {database}"):
            objects = self._adbc().adbc_get_objects(depth="db_schemas", catalog_filter=database).read_all()
        return [
            schema["db_schema_name"]
            for catalog in objects.to_pylist()
            if catalog["catalog_name"] == database
            for schema in catalog["catalog_db_schemas"] or []
        ]

    def check_schema_exists(self, database: str, schema: str) -> bool:
        return schema in self.list_schemas(database)

    def list_relations_without_caching(self, schema_relation: BaseRelation) -> List[SqeRelation]:
        database, schema = schema_relation.database, schema_relation.schema
        with self.connections.exception_handler(f"GetTables {database}.{schema}"):
            objects = self._adbc().adbc_get_objects(
                depth="tables", catalog_filter=database, db_schema_filter=schema
            ).read_all()
        materialized, storage = self._materialized_views(database, schema)
        relations = []
        for catalog in objects.to_pylist():
            if catalog["catalog_name"] != database:
                continue
            for found in catalog["catalog_db_schemas"] or []:
                # The filters are LIKE patterns: `_` in a name matches any character.
                if found["db_schema_name"] != schema:
                    continue
                for table in found["db_schema_tables"] or []:
                    name = table["table_name"]
                    if SCRATCH_MARKER in name or name in storage:
                        continue
                    if name in materialized:
                        relation_type = RelationType.MaterializedView
                    else:
                        relation_type = _RELATION_TYPES.get(table["table_type"], RelationType.External)
                    relations.append(
                        self.Relation.create(
                            database=database,
                            schema=schema,
                            identifier=name,
                            quote_policy={"database": True, "schema": True, "identifier": True},
                            type=relation_type,
                        )
                    )
        return relations

    def _materialized_views(self, database: str, schema: str) -> Tuple[Set[str], Set[str]]:
        """The names of a schema's materialized views, and of their storage tables. GetTables lists
        each materialized view as the Iceberg view it is stored as, and its storage table as a
        table; system.metadata.materialized_views (Trino's) tells them apart."""
        sql = (
            "select name, storage_table from system.metadata.materialized_views"
            f" where catalog_name = {sql_string(database)} and schema_name = {sql_string(schema)}"
        )
        with self.connections.exception_handler(sql):
            with self._adbc().cursor() as cursor:
                cursor.execute(sql)
                rows = cursor.fetchall()
        return {name for name, _ in rows}, {table for _, table in rows if table}

    @available
    def materialized_view_changes(
        self, relation: BaseRelation, sql: str, max_staleness: Optional[str], comment: Optional[str]
    ) -> Optional[Dict[str, Any]]:
        """What differs between a materialized view and its model, or None when nothing does.

        max_staleness and the comment change in place (`apply`: the server keeps the storage table
        when the query is the same). A different query, compared by the plans SQE makes of the
        stored definition and of the model's SQL (so layout, comments and aliases do not count),
        needs the view replaced: `requires_full_refresh`."""
        existing = self._describe_materialized_view(relation)
        changes: Dict[str, Any] = {}
        wanted = {"max_staleness": str(max_staleness) if max_staleness is not None else None, "comment": comment}
        for key, value in wanted.items():
            if existing[key] != value:
                changes[key] = {"action": "alter", "context": value}
        if self._plan_text(existing["definition"]) != self._plan_text(sql):
            changes["query"] = {"action": "replace", "context": None}
        if not changes:
            return None
        changes["requires_full_refresh"] = "query" in changes
        return changes

    def _describe_materialized_view(self, relation: BaseRelation) -> Dict[str, Optional[str]]:
        """The comment, max_staleness and query of a materialized view, from SHOW CREATE."""
        sql = f"show create materialized view {relation.render()}"
        with self.connections.exception_handler(sql):
            with self._adbc().cursor() as cursor:
                cursor.execute(sql)
                (ddl,) = cursor.fetchone()
        match = _SHOW_CREATE_MATERIALIZED_VIEW.match(ddl)
        if match is None:
            raise DbtRuntimeError(f"Cannot read SHOW CREATE MATERIALIZED VIEW {relation}: {ddl[:200]}")

        def unquote(literal: Optional[str]) -> Optional[str]:
            return None if literal is None else literal.replace("''", "'")

        return {
            "comment": unquote(match.group("comment")),
            "max_staleness": unquote(match.group("max_staleness")),
            "definition": match.group("definition"),
        }

    def _plan_text(self, query: str) -> str:
        """EXPLAIN's plan of a query, without its notes (`-- ...`, such as which part of a
        materialized view answers, which change as sources move)."""
        sql = f"explain {query}"
        with self.connections.exception_handler(sql):
            with self._adbc().cursor() as cursor:
                cursor.execute(sql)
                rows = cursor.fetchall()
        return "\n".join(row[0] for row in rows if not row[0].lstrip().startswith("--"))

    def get_columns_in_relation(self, relation: BaseRelation) -> List[SqeColumn]:
        import adbc_driver_manager

        try:
            with self.connections.exception_handler(f"GetTables {relation}"):
                schema = self._adbc().adbc_get_table_schema(
                    relation.identifier, catalog_filter=relation.database, db_schema_filter=relation.schema
                )
        except DbtRuntimeError as e:
            if isinstance(e.__cause__, adbc_driver_manager.ProgrammingError) and "NOT_FOUND" in str(e.__cause__):
                return []
            raise
        return [self.Column(field.name, types.sql_type_of_field(field)) for field in schema]

    @available.parse(lambda *a, **k: [])
    def get_column_schema_from_query(self, sql: str) -> List[SqeColumn]:
        """The columns a query returns, from its plan: the query does not run."""
        *header, query = split_statements(self.connections._add_query_comment(sql))
        for statement in header:
            self.connections.add_query(statement, auto_begin=False)
        with self.connections.exception_handler(query):
            with self._adbc().cursor() as cursor:
                schema = cursor.adbc_execute_schema(query)
        return [self.Column(field.name, types.sql_type_of_field(field)) for field in schema]

    @available
    def scratch_relation(self, base_relation: BaseRelation, suffix: str, relation_type: str = "table") -> SqeRelation:
        """A relation for one run of one model: its name cannot collide with another run's, and it
        is dropped when the connection closes, whether the model succeeded or failed."""
        identifier = f"{base_relation.identifier}{suffix}{SCRATCH_MARKER}_{uuid.uuid4().hex[:12]}"
        relation = base_relation.incorporate(path={"identifier": identifier}, type=relation_type)
        self.connections.get_thread_connection().handle.register_scratch(relation_type, relation.render())
        return relation

    @available
    def load_seed(self, relation: BaseRelation, agate_table: "agate.Table", create_sql: str, select_sql: str) -> int:
        """Creates (or replaces) a seed's table and loads its rows with one bulk ingest, in one SQL
        transaction: the table changes in a single commit. select_sql gives the table's columns."""
        connection = self.connections.get_thread_connection()
        with self.connections.exception_handler(create_sql):
            handle = connection.handle
            with handle.adbc.cursor() as cursor:
                schema = cursor.adbc_execute_schema(select_sql)
            data = seeds.arrow_table(agate_table, schema)
            cursor = handle.cursor()
            cursor.execute("begin")
            try:
                cursor.execute(self.connections._add_query_comment(create_sql))
                rows = 0
                if data.num_rows:
                    with handle.adbc.cursor() as ingest:
                        rows = ingest.adbc_ingest(
                            relation.identifier,
                            data,
                            mode="append",
                            catalog_name=relation.database,
                            db_schema_name=relation.schema,
                        )
                cursor.execute("commit")
            except BaseException:
                handle.rollback()
                raise
        return rows

    @available
    def column_list_sql(
        self,
        names: List[str],
        model_columns: Dict[str, Dict[str, Any]],
        model_constraints: List[Dict[str, Any]],
        with_comments: bool,
        from_query: bool,
    ) -> str:
        """The column list of CREATE TABLE ... AS: each column's NOT NULL (from the model's
        constraints) and, with persist_docs, its description. Names from the query are quoted;
        names from the model's contract are quoted as dbt quotes them (`quote: true`).
        Constraints SQE does not support get dbt's warning."""
        if not from_query:
            # Only for dbt's warnings about the contract's constraints SQE does not enforce.
            self.render_raw_columns_constraints(model_columns)
            self.render_raw_model_constraints(model_constraints)
        by_name = {column["name"].lower(): column for column in model_columns.values()}
        not_null = {
            column["name"].lower()
            for column in model_columns.values()
            if any(c.get("type") == "not_null" for c in column.get("constraints") or [])
        }
        for constraint in model_constraints or []:
            if constraint.get("type") == "not_null":
                not_null.update(name.lower() for name in constraint.get("columns") or [])
        items = []
        for name in names:
            column = by_name.get(name.lower(), {})
            item = self.quote(name) if from_query or column.get("quote") else name
            if name.lower() in not_null:
                item += " not null"
            if with_comments and column.get("description"):
                item += " comment '" + column["description"].replace("'", "''") + "'"
            items.append(item)
        return "(" + ", ".join(items) + ")"

    @available
    def partition_terms(self, config_value: Any) -> List[str]:
        """partitioned_by / sorted_by as a list of terms, from a string or a list."""
        if config_value is None:
            return []
        if isinstance(config_value, str):
            return [config_value]
        return list(config_value)

    @available
    def table_properties_sql(self, properties: Optional[Dict[str, Any]]) -> str:
        if not properties:
            return ""
        items = []
        for key, value in properties.items():
            if isinstance(value, bool):
                literal = "true" if value else "false"
            elif isinstance(value, (int, float)):
                literal = str(value)
            else:
                literal = "'" + str(value).replace("'", "''") + "'"
            items.append("'" + str(key).replace("'", "''") + "' = " + literal)
        return "with (" + ", ".join(items) + ")"

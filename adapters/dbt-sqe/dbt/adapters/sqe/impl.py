"""The dbt adapter for SQE."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any, Dict, List, Optional

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
from dbt.adapters.sqe.connections import SqeConnectionManager, split_statements
from dbt.adapters.sqe.relation import SCRATCH_MARKER, SqeRelation

if TYPE_CHECKING:
    import agate

logger = AdapterLogger("SQE")

_RELATION_TYPES = {"TABLE": RelationType.Table, "VIEW": RelationType.View}


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
        relations = []
        for catalog in objects.to_pylist():
            if catalog["catalog_name"] != database:
                continue
            for found in catalog["catalog_db_schemas"] or []:
                # The filters are LIKE patterns: `_` in a name matches any character.
                if found["db_schema_name"] != schema:
                    continue
                for table in found["db_schema_tables"] or []:
                    if SCRATCH_MARKER in table["table_name"]:
                        continue
                    relations.append(
                        self.Relation.create(
                            database=database,
                            schema=schema,
                            identifier=table["table_name"],
                            quote_policy={"database": True, "schema": True, "identifier": True},
                            type=_RELATION_TYPES.get(table["table_type"], RelationType.External),
                        )
                    )
        return relations

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

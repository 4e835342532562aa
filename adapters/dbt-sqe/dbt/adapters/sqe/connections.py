"""Connections to SQE over Arrow Flight SQL, through the ADBC Flight SQL driver."""

from __future__ import annotations

import concurrent.futures
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple

import adbc_driver_flightsql
import adbc_driver_flightsql.dbapi as flightsql
import adbc_driver_manager
import sqlparse
from dbt.adapters.contracts.connection import AdapterResponse, Connection, ConnectionState, Credentials
from dbt.adapters.events.logging import AdapterLogger
from dbt.adapters.exceptions.connection import FailedToConnectError
from dbt.adapters.sql.connections import SQLConnectionManager
from dbt_common.exceptions import DbtDatabaseError, DbtRuntimeError

from dbt.adapters.sqe import types

logger = AdapterLogger("SQE")

_DB = adbc_driver_flightsql.DatabaseOptions
_TRANSACTION_START = re.compile(r"^(begin|start\s+transaction)\b", re.IGNORECASE)
_TRANSACTION_END = re.compile(r"^(commit|rollback)\b", re.IGNORECASE)


@dataclass
class SqeCredentials(Credentials):
    """A dbt profile target of type sqe. `database` is the SQE catalog, `schema` an Iceberg namespace."""

    host: str = "127.0.0.1"
    port: int = 50051
    user: Optional[str] = None
    password: Optional[str] = None
    token: Optional[str] = None
    use_tls: bool = False
    tls_root_cert: Optional[str] = None
    tls_skip_verify: bool = False
    connect_timeout: float = 10.0
    query_timeout: Optional[float] = None
    connect_retries: int = 1
    query_tag: Optional[str] = None

    _ALIASES = {"catalog": "database", "username": "user", "pass": "password"}

    @classmethod
    def translate_aliases(cls, kwargs, recurse: bool = False):
        translated = super().translate_aliases(kwargs, recurse)
        # SQE's default catalog, so a profile may leave `database` out.
        translated.setdefault("database", "iceberg")
        return translated

    @property
    def type(self) -> str:
        return "sqe"

    @property
    def unique_field(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def uri(self) -> str:
        return f"{'grpc+tls' if self.use_tls else 'grpc'}://{self.host}:{self.port}"

    def _connection_keys(self) -> Tuple[str, ...]:
        return (
            "host",
            "port",
            "user",
            "database",
            "schema",
            "use_tls",
            "tls_root_cert",
            "connect_timeout",
            "query_timeout",
        )

    def database_options(self) -> dict:
        """The ADBC database options that connect with these credentials."""
        options = {_DB.WITH_COOKIE_MIDDLEWARE.value: "true"}
        if self.token:
            options[_DB.AUTHORIZATION_HEADER.value] = f"Bearer {self.token}"
        elif self.user is not None:
            options["username"] = self.user
            options["password"] = self.password or ""
        else:
            raise DbtRuntimeError("The sqe profile needs user and password, or token")
        if self.use_tls:
            if self.tls_root_cert:
                options[_DB.TLS_ROOT_CERTS.value] = Path(self.tls_root_cert).expanduser().read_text()
            if self.tls_skip_verify:
                options[_DB.TLS_SKIP_VERIFY.value] = "true"
        if self.query_timeout:
            for option in (_DB.TIMEOUT_QUERY, _DB.TIMEOUT_FETCH, _DB.TIMEOUT_UPDATE):
                options[option.value] = str(float(self.query_timeout))
        return options


def split_statements(sql: str) -> List[str]:
    """The statements of a script, without empty ones; dbt macros often emit `a; b`."""
    if ";" not in sql:
        return [sql]
    statements = []
    for statement in sqlparse.split(sql):
        if sqlparse.format(statement, strip_comments=True).strip().strip(";").strip():
            statements.append(statement.rstrip().rstrip(";"))
    return statements or [sql]


def _without_comments(statement: str) -> str:
    if "/*" in statement or "--" in statement:
        return sqlparse.format(statement, strip_comments=True).strip()
    return statement.strip()


class SqeCursor:
    """A DB-API cursor that runs a script statement by statement and keeps the last one's result."""

    def __init__(self, handle: "SqeHandle"):
        self._handle = handle
        self._cursor = None

    def execute(self, sql: str, bindings: Any = None) -> None:
        statements = split_statements(sql)
        if len(statements) > 1 and bindings:
            raise DbtRuntimeError("Bindings are only supported for a single statement")
        for statement in statements:
            self._run(statement, bindings)

    def _run(self, statement: str, bindings: Any) -> None:
        self._close_current()
        self._cursor = self._handle.adbc.cursor()
        text = _without_comments(statement)
        try:
            self._cursor.execute(statement, bindings)
        except Exception:
            # A failed statement ends the SQL transaction it was in: nothing of it lands.
            if self._handle.in_transaction and not _TRANSACTION_END.match(text):
                self._handle.rollback_quietly()
            raise
        if _TRANSACTION_START.match(text):
            self._handle.in_transaction = True
        elif _TRANSACTION_END.match(text):
            self._handle.in_transaction = False

    def _close_current(self) -> None:
        if self._cursor is not None:
            try:
                self._cursor.close()
            except adbc_driver_manager.Error:
                pass
            self._cursor = None

    @property
    def description(self):
        return None if self._cursor is None else self._cursor.description

    @property
    def rowcount(self) -> int:
        return -1 if self._cursor is None else self._cursor.rowcount

    def fetchone(self):
        return self._cursor.fetchone()

    def fetchmany(self, size: int):
        return self._cursor.fetchmany(size)

    def fetchall(self):
        return self._cursor.fetchall()

    def fetch_arrow_table(self):
        return self._cursor.fetch_arrow_table()

    def cancel(self) -> None:
        if self._cursor is not None:
            self._cursor.adbc_cancel()

    def close(self) -> None:
        self._close_current()


class SqeHandle:
    """One dbt connection: an ADBC connection (one SQE session), its open cursor, its SQL
    transaction, and the scratch relations to drop when the connection closes."""

    def __init__(self, adbc_connection):
        self.adbc = adbc_connection
        self.in_transaction = False
        self._cursor: Optional[SqeCursor] = None
        self._scratch: List[Tuple[str, str]] = []

    def cursor(self) -> SqeCursor:
        if self._cursor is not None:
            self._cursor.close()
        self._cursor = SqeCursor(self)
        return self._cursor

    def cancel(self) -> None:
        if self._cursor is not None:
            self._cursor.cancel()

    def run(self, sql: str) -> None:
        """Runs one statement whose result nobody reads."""
        with self.adbc.cursor() as cursor:
            cursor.execute(sql)

    def rollback_quietly(self) -> None:
        self.in_transaction = False
        try:
            self.run("ROLLBACK")
        except adbc_driver_manager.Error as e:
            logger.debug(f"ROLLBACK failed: {e}")

    def register_scratch(self, kind: str, rendered_name: str) -> None:
        """A relation that only this connection uses, dropped when it closes, even after a failure."""
        self._scratch.append((kind, rendered_name))

    def commit(self) -> None:
        """dbt's test helpers call this; each statement has already committed."""

    def rollback(self) -> None:
        if self.in_transaction:
            self.rollback_quietly()

    def close(self) -> None:
        try:
            if self._cursor is not None:
                self._cursor.close()
            if self.in_transaction:
                self.rollback_quietly()
            for kind, name in reversed(self._scratch):
                try:
                    # A scratch table's files are of no use to anyone: PURGE deletes them too.
                    self.run(f"drop {kind} if exists {name}{' purge' if kind == 'table' else ''}")
                except adbc_driver_manager.Error as e:
                    logger.warning(f"Could not drop the scratch {kind} {name}: {e}")
            self._scratch = []
        finally:
            self.adbc.close()


class SqeConnectionManager(SQLConnectionManager):
    TYPE = "sqe"

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        if connection.state == ConnectionState.OPEN:
            return connection
        credentials: SqeCredentials = connection.credentials

        def connect() -> SqeHandle:
            # The driver has no connect timeout of its own; a late connection is closed when it comes.
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqe-connect")
            future = pool.submit(_connect, credentials)
            pool.shutdown(wait=False)
            try:
                return future.result(timeout=credentials.connect_timeout)
            except concurrent.futures.TimeoutError:
                future.add_done_callback(lambda f: f.exception() is None and f.result().close())
                raise FailedToConnectError(
                    f"No answer from SQE at {credentials.uri} within {credentials.connect_timeout} s"
                )

        return cls.retry_connection(
            connection,
            connect=connect,
            logger=logger,
            retry_limit=credentials.connect_retries,
            retryable_exceptions=[adbc_driver_manager.OperationalError],
        )

    @classmethod
    def get_response(cls, cursor: SqeCursor) -> AdapterResponse:
        rows = cursor.rowcount
        description = cursor.description
        if description is not None and [d[0] for d in description] == ["rows"] and rows >= 0:
            return AdapterResponse(_message=f"OK {rows}", rows_affected=rows, code="OK")
        return AdapterResponse(_message="OK", rows_affected=max(rows, 0), code="OK")

    def cancel(self, connection: Connection) -> None:
        if connection.handle is not None and connection.state == ConnectionState.OPEN:
            connection.handle.cancel()

    @contextmanager
    def exception_handler(self, sql: str) -> Iterator[None]:
        try:
            yield
        except adbc_driver_manager.DatabaseError as e:
            logger.debug(f"SQE error: {e}")
            raise DbtDatabaseError(_clean_message(e)) from e
        except adbc_driver_manager.Error as e:
            logger.debug(f"SQE error: {e}")
            raise DbtRuntimeError(_clean_message(e)) from e
        except (DbtDatabaseError, DbtRuntimeError):
            raise
        except Exception as e:
            logger.debug(f"Error running SQL: {sql}")
            raise DbtRuntimeError(str(e)) from e

    # dbt's implicit transactions are not SQL transactions: SQE refuses most DDL inside one, and
    # every statement commits on its own. Where several statements must land together (a seed's
    # table and its rows) dbt-sqe sends BEGIN and COMMIT itself, so dbt's begin and commit only
    # keep dbt's bookkeeping.
    def begin(self):
        connection = self.get_thread_connection()
        connection.transaction_open = True
        return connection

    def commit(self):
        connection = self.get_thread_connection()
        connection.transaction_open = False
        return connection

    @classmethod
    def data_type_code_to_name(cls, type_code) -> str:
        return types.sql_type_of_arrow(type_code)

    def server_version(self) -> str:
        info = self.get_thread_connection().handle.adbc.adbc_get_info()
        return f"{info.get('vendor_name', 'SQE')} {info.get('vendor_version', 'unknown')}"


def _connect(credentials: SqeCredentials) -> SqeHandle:
    adbc = flightsql.connect(credentials.uri, db_kwargs=credentials.database_options(), autocommit=True)
    handle = SqeHandle(adbc)
    _use_profile_schema(handle, credentials)
    if credentials.query_tag:
        # Every statement of the session carries it: SQE's audit log and system.runtime.queries.
        handle.run("SET SESSION query_tag = " + sql_string(credentials.query_tag))
    return handle


def _use_profile_schema(handle: SqeHandle, credentials: SqeCredentials) -> None:
    """Makes the profile's catalog and schema the session's defaults, as Trino's connection does, so
    that unqualified names in hooks and hand-written SQL mean the target's. dbt itself always writes
    qualified names. A schema that does not exist yet (dbt creates it later) leaves the server's
    defaults."""
    if not credentials.schema:
        return
    quote = lambda name: '"' + name.replace('"', '""') + '"'  # noqa: E731
    try:
        handle.run(f"USE {quote(credentials.database)}.{quote(credentials.schema)}")
    except adbc_driver_manager.Error as e:
        if "NOT_FOUND" not in str(e):
            raise
        logger.debug(f"Schema {credentials.database}.{credentials.schema} does not exist yet: {e}")


def sql_string(value: str) -> str:
    """A SQL string literal of `value`."""
    return "'" + value.replace("'", "''") + "'"


def _clean_message(error: Exception) -> str:
    """The server's message without the driver's wrapping (`[FlightSQL] ... Vendor code: 3`)."""
    message = str(error)
    message = re.sub(r"\s*\((\w+); (\w+)\)\. Vendor code: \d+$", "", message)
    return message.replace("[FlightSQL] ", "")

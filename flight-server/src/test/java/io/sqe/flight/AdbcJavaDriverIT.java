package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.adbc.core.AdbcConnection;
import org.apache.arrow.adbc.core.AdbcConnection.GetObjectsDepth;
import org.apache.arrow.adbc.core.AdbcDatabase;
import org.apache.arrow.adbc.core.AdbcDriver;
import org.apache.arrow.adbc.core.AdbcException;
import org.apache.arrow.adbc.core.AdbcStatement;
import org.apache.arrow.adbc.core.AdbcStatusCode;
import org.apache.arrow.adbc.core.BulkIngestMode;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlConnectionProperties;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlDriver;
import org.apache.arrow.adbc.sql.SqlQuirks;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ADBC's Java Flight SQL driver ({@code org.apache.arrow.adbc:adbc-driver-flight-sql} 0.20.0)
 * against a real server. Where the driver itself lacks a feature (transactions, cancel,
 * getTableSchema, credentials on prepared statements, bulk ingest) the test asserts what the
 * driver does, so a driver upgrade that adds it shows here; docs/clients.md lists these. An IT,
 * run by failsafe without the shaded JDBC driver, whose relocated copy of a jdbc-core class the
 * ADBC driver cannot use.
 */
class AdbcJavaDriverIT {
  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;

  private AdbcDatabase database;
  private AdbcConnection connection;

  @BeforeAll
  static void start() {
    server = TestServer.start(dir, Map.of());
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() throws Exception {
    try (BufferAllocator a = allocator;
        TestServer s = server) {
      // Closed in reverse order; the allocator checks that the driver freed every buffer.
    }
  }

  @BeforeEach
  void connect() throws Exception {
    database = open(Map.of(AdbcDriver.PARAM_USERNAME.getKey(), TestServer.ADMIN, AdbcDriver.PARAM_PASSWORD.getKey(), server.adminPassword()));
    connection = database.connect();
    update("CREATE SCHEMA IF NOT EXISTS adbc");
  }

  @AfterEach
  void close() throws Exception {
    try (AdbcDatabase d = database;
        AdbcConnection c = connection) {
      // Closed in reverse order.
    }
  }

  private static AdbcDatabase open(Map<String, Object> settings) throws AdbcException {
    Map<String, Object> parameters = new HashMap<>(settings);
    parameters.put(AdbcDriver.PARAM_URI.getKey(), "grpc+tcp://127.0.0.1:" + server.port());
    return new FlightSqlDriver(allocator).open(parameters);
  }

  private long update(String sql) throws Exception {
    return update(connection, sql);
  }

  private static long update(AdbcConnection connection, String sql) throws Exception {
    try (AdbcStatement statement = connection.createStatement()) {
      statement.setSqlQuery(sql);
      return statement.executeUpdate().getAffectedRows();
    }
  }

  private List<List<Object>> query(String sql) throws Exception {
    return query(connection, sql);
  }

  private static List<List<Object>> query(AdbcConnection connection, String sql) throws Exception {
    try (AdbcStatement statement = connection.createStatement()) {
      statement.setSqlQuery(sql);
      try (AdbcStatement.QueryResult result = statement.executeQuery()) {
        return rows(result.getReader());
      }
    }
  }

  private static List<List<Object>> rows(ArrowReader reader) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            Object value = v.getObject(r);
            row.add(value instanceof org.apache.arrow.vector.util.Text ? value.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  /** A root of (id BIGINT, name VARCHAR) rows; the caller closes it. */
  private static VectorSchemaRoot people(long firstId, String... names) {
    BigIntVector ids = new BigIntVector("id", allocator);
    VarCharVector nameVector = new VarCharVector("name", allocator);
    for (int i = 0; i < names.length; i++) {
      ids.setSafe(i, firstId + i);
      nameVector.setSafe(i, names[i].getBytes(StandardCharsets.UTF_8));
    }
    VectorSchemaRoot root = new VectorSchemaRoot(List.of(ids, nameVector));
    root.setRowCount(names.length);
    return root;
  }

  private static long ingest(AdbcConnection connection, String table, BulkIngestMode mode, VectorSchemaRoot data) throws Exception {
    try (data;
        AdbcStatement statement = connection.bulkIngest(table, mode)) {
      statement.bind(data);
      return statement.executeUpdate().getAffectedRows();
    }
  }

  private static AdbcStatusCode status(ThrowingRunnable action) {
    return exception(action).getStatus();
  }

  private static AdbcException exception(ThrowingRunnable action) {
    try {
      action.run();
    } catch (AdbcException e) {
      return e;
    } catch (Exception e) {
      throw new AssertionError("Expected an AdbcException", e);
    }
    throw new AssertionError("Expected an AdbcException, nothing was thrown");
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void userAndPasswordConnectAndQueriesReadArrow() throws Exception {
    assertThat(query("SELECT current_user, 40 + 2, CAST('x' AS VARCHAR)")).containsExactly(List.of("admin", 42, "x"));
    update("CREATE TABLE adbc.numbers (n BIGINT)");
    assertThat(update("INSERT INTO adbc.numbers SELECT * FROM (VALUES (1), (2), (3)) AS t(n)")).isEqualTo(3);
    assertThat(query("SELECT sum(n), count(*) FROM adbc.numbers")).containsExactly(List.of(6L, 3L));
  }

  @Test
  void aTokenFromABasicLoginAuthorizesAConnection() throws Exception {
    TokenCapture capture = new TokenCapture();
    try (FlightClient client = FlightClient.builder(allocator, server.server().location()).intercept(capture).build()) {
      client.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
    }
    String token = capture.authorization;
    assertThat(token).startsWith("Bearer ");
    try (AdbcDatabase byToken = open(Map.of(FlightSqlConnectionProperties.RPC_CALL_HEADER_PREFIX + "authorization", token));
        AdbcConnection tokenConnection = byToken.connect()) {
      assertThat(query(tokenConnection, "SELECT current_user")).containsExactly(List.of("admin"));
    }
  }

  @Test
  void aWrongPasswordOrTokenIsRefused() {
    assertThat(status(() -> {
          try (AdbcDatabase wrong = open(Map.of(AdbcDriver.PARAM_USERNAME.getKey(), TestServer.ADMIN, AdbcDriver.PARAM_PASSWORD.getKey(), "wrong"));
              AdbcConnection c = wrong.connect()) {
            query(c, "SELECT 1");
          }
        }))
        .isEqualTo(AdbcStatusCode.UNAUTHENTICATED);
    assertThat(status(() -> {
          try (AdbcDatabase wrong = open(Map.of(FlightSqlConnectionProperties.RPC_CALL_HEADER_PREFIX + "authorization", "Bearer not-a-token"));
              AdbcConnection c = wrong.connect()) {
            query(c, "SELECT 1");
          }
        }))
        .isEqualTo(AdbcStatusCode.UNAUTHENTICATED);
  }

  @Test
  @SuppressWarnings("unchecked")
  void getObjectsAtEveryDepth() throws Exception {
    update("CREATE TABLE IF NOT EXISTS adbc.objects (id BIGINT NOT NULL, label VARCHAR)");

    List<List<Object>> catalogs = rows(connection.getObjects(GetObjectsDepth.CATALOGS, null, null, null, null, null));
    assertThat(catalogs).extracting(r -> r.get(0).toString()).containsExactly("iceberg");
    assertThat((List<Object>) catalogs.get(0).get(1)).isNullOrEmpty();

    List<Object> schemas = (List<Object>) rows(connection.getObjects(GetObjectsDepth.DB_SCHEMAS, "iceberg", "adb%", null, null, null)).get(0).get(1);
    assertThat(schemas).hasSize(1);
    Map<String, Object> schema = (Map<String, Object>) schemas.get(0);
    assertThat(schema.get("db_schema_name").toString()).isEqualTo("adbc");
    assertThat((List<Object>) schema.get("db_schema_tables")).isNullOrEmpty();

    List<Object> tableSchemas = (List<Object>) rows(connection.getObjects(GetObjectsDepth.TABLES, "iceberg", "adbc", "obj%", null, null)).get(0).get(1);
    List<Object> tables = (List<Object>) ((Map<String, Object>) tableSchemas.get(0)).get("db_schema_tables");
    assertThat(tables).hasSize(1);
    Map<String, Object> table = (Map<String, Object>) tables.get(0);
    assertThat(table.get("table_name").toString()).isEqualTo("objects");
    assertThat(table.get("table_type").toString()).isEqualTo("TABLE");
    assertThat((List<Object>) table.get("table_columns")).isNullOrEmpty();

    // Depth ALL asks GetTables with include_schema. Driver 0.20.0 fails to load that answer
    // (the server's FlightInfo and stream both carry Flight SQL's GET_TABLES_SCHEMA; JDBC's
    // getColumns and Python ADBC's depth "all" read the same answer).
    assertThatThrownBy(() -> rows(connection.getObjects(GetObjectsDepth.ALL, "iceberg", "adbc", "objects", null, "%")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not all nodes, buffers and variadicBufferCounts were consumed");
  }

  @Test
  void theSchemaOfATableComesThroughAQueryNotGetTableSchema() throws Exception {
    update("CREATE TABLE IF NOT EXISTS adbc.shaped (id BIGINT NOT NULL, amount DECIMAL(10, 2), label VARCHAR)");
    // The driver does not implement getTableSchema (nor getTableTypes).
    assertThat(status(() -> connection.getTableSchema("iceberg", "adbc", "shaped"))).isEqualTo(AdbcStatusCode.NOT_IMPLEMENTED);
    assertThat(status(() -> connection.getTableTypes())).isEqualTo(AdbcStatusCode.NOT_IMPLEMENTED);
    // executeSchema asks the server for the schema of a query (GetSchema) without running it.
    try (AdbcStatement statement = connection.createStatement()) {
      statement.setSqlQuery("SELECT * FROM adbc.shaped");
      Schema schema = statement.executeSchema();
      assertThat(schema.getFields()).extracting(f -> f.getName()).containsExactly("id", "amount", "label");
      assertThat(schema.getFields().get(0).isNullable()).isFalse();
      assertThat(schema.getFields().get(1).getType()).isEqualTo(new ArrowType.Decimal(10, 2, 128));
    }
  }

  /**
   * Driver 0.20.0 runs a prepared statement's DoPut and GetFlightInfo with no call options, so
   * without the credential every call to SQE needs: binding parameters fails UNAUTHENTICATED.
   * Preparing (which carries them) works, and so do statements without parameters.
   */
  @Test
  void preparedStatementsWithParametersGoUnauthenticated() throws Exception {
    update("CREATE TABLE IF NOT EXISTS adbc.bound (id BIGINT, name VARCHAR)");
    AdbcStatement insert = connection.createStatement();
    try (VectorSchemaRoot rows = people(10, "x", "y", "z")) {
      insert.setSqlQuery("INSERT INTO adbc.bound VALUES (?, ?)");
      insert.prepare();
      assertThat(insert.getParameterSchema().getFields()).extracting(f -> f.getType())
          .containsExactly(new ArrowType.Int(64, true), ArrowType.Utf8.INSTANCE);
      insert.bind(rows);
      assertThat(status(insert::executeUpdate)).isEqualTo(AdbcStatusCode.UNAUTHENTICATED);
    } finally {
      // ClosePreparedStatement goes out without the credential too.
      assertUnauthenticated(insert);
    }
    AdbcStatement select = connection.createStatement();
    try (VectorSchemaRoot parameter = people(11, "y")) {
      select.setSqlQuery("SELECT name FROM adbc.bound WHERE id = ? AND name = ?");
      select.prepare();
      select.bind(parameter);
      assertThat(status(() -> select.executeQuery().close())).isEqualTo(AdbcStatusCode.UNAUTHENTICATED);
    } finally {
      assertUnauthenticated(select);
    }
    assertThat(query("SELECT count(*) FROM adbc.bound")).containsExactly(List.of(0L));
  }

  private static void assertUnauthenticated(AdbcStatement statement) {
    assertThatThrownBy(statement::close)
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
  }

  /**
   * The driver's bulk ingest is not Flight SQL's CommandStatementIngest: CREATE sends CREATE TABLE
   * with its own type names (CLOB for strings, which SQE does not know, reported as
   * ALREADY_EXISTS), then every mode sends a prepared INSERT with the rows bound, which goes
   * unauthenticated as above. So no mode lands rows in SQE; the table stays as it was.
   */
  @Test
  void bulkIngestFailsInEveryMode() throws Exception {
    AdbcException clob = exception(() -> ingest(connection, "adbc.people", BulkIngestMode.CREATE, people(1, "ann")));
    assertThat(clob.getStatus()).isEqualTo(AdbcStatusCode.ALREADY_EXISTS);
    assertThat(String.valueOf(clob.getCause())).contains("INVALID_ARGUMENT").containsIgnoringCase("unknown type 'clob'");
    assertThat(query("SELECT count(*) FROM information_schema.tables WHERE table_name = 'people'")).containsExactly(List.of(0L));

    // SqlQuirks with SQE's type names get the table created; the rows still do not land.
    SqlQuirks sqeTypes =
        SqlQuirks.builder()
            .arrowToSqlTypeNameMapping(type -> type instanceof ArrowType.Utf8 ? "VARCHAR" : SqlQuirks.DEFAULT_ARROW_TYPE_TO_SQL_TYPE_NAME_MAPPING.apply(type))
            .build();
    try (AdbcDatabase withQuirks =
            open(Map.of(
                AdbcDriver.PARAM_USERNAME.getKey(), TestServer.ADMIN,
                AdbcDriver.PARAM_PASSWORD.getKey(), server.adminPassword(),
                AdbcDriver.PARAM_SQL_QUIRKS, sqeTypes));
        AdbcConnection quirky = withQuirks.connect()) {
      assertThat(status(() -> ingest(quirky, "adbc.people", BulkIngestMode.CREATE, people(1, "ann", "bob")))).isEqualTo(AdbcStatusCode.UNAUTHENTICATED);
      assertThat(query("SELECT count(*) FROM adbc.people")).containsExactly(List.of(0L));
      for (BulkIngestMode mode : List.of(BulkIngestMode.APPEND, BulkIngestMode.REPLACE, BulkIngestMode.CREATE_APPEND)) {
        assertThat(status(() -> ingest(quirky, "adbc.people", mode, people(3, "cy")))).as(mode.name()).isEqualTo(AdbcStatusCode.UNAUTHENTICATED);
      }
      assertThat(query("SELECT count(*) FROM adbc.people")).containsExactly(List.of(0L));
      // The other modes send no CREATE TABLE: into a missing table the INSERT fails to prepare.
      assertThat(status(() -> ingest(quirky, "adbc.nobody", BulkIngestMode.CREATE_APPEND, people(1, "x")))).isEqualTo(AdbcStatusCode.NOT_FOUND);
    }
  }

  @Test
  void transactionsNeedSqlStatementsAsTheDriverHasNoTransactionMethods() throws Exception {
    assertThat(connection.getAutoCommit()).isTrue();
    assertThat(status(() -> connection.setAutoCommit(false))).isEqualTo(AdbcStatusCode.NOT_IMPLEMENTED);
    assertThat(status(() -> connection.commit())).isEqualTo(AdbcStatusCode.NOT_IMPLEMENTED);
    assertThat(status(() -> connection.rollback())).isEqualTo(AdbcStatusCode.NOT_IMPLEMENTED);

    // SQL's BEGIN / COMMIT / ROLLBACK work: every call carries the same token, so the same session.
    update("CREATE TABLE IF NOT EXISTS adbc.ledger (n BIGINT)");
    update("BEGIN");
    update("INSERT INTO adbc.ledger VALUES (1)");
    update("ROLLBACK");
    assertThat(query("SELECT count(*) FROM adbc.ledger")).containsExactly(List.of(0L));
    update("BEGIN");
    update("INSERT INTO adbc.ledger VALUES (2)");
    try (AdbcDatabase other = open(Map.of(AdbcDriver.PARAM_USERNAME.getKey(), TestServer.ADMIN, AdbcDriver.PARAM_PASSWORD.getKey(), server.adminPassword()));
        AdbcConnection otherConnection = other.connect()) {
      assertThat(query(otherConnection, "SELECT count(*) FROM adbc.ledger")).containsExactly(List.of(0L));
    }
    update("COMMIT");
    assertThat(query("SELECT sum(n) FROM adbc.ledger")).containsExactly(List.of(2L));
  }

  @Test
  void cancelIsNotImplementedByTheDriver() throws Exception {
    try (AdbcStatement statement = connection.createStatement()) {
      statement.setSqlQuery("SELECT 1");
      assertThat(status(statement::cancel)).isEqualTo(AdbcStatusCode.NOT_IMPLEMENTED);
    }
    assertThat(status(connection::cancel)).isEqualTo(AdbcStatusCode.NOT_IMPLEMENTED);
  }

  /** Keeps the bearer token the server answers a Basic login with. */
  private static final class TokenCapture implements FlightClientMiddleware.Factory {
    private volatile String authorization;

    @Override
    public FlightClientMiddleware onCallStarted(CallInfo info) {
      return new FlightClientMiddleware() {
        @Override
        public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {}

        @Override
        public void onHeadersReceived(CallHeaders incomingHeaders) {
          String value = incomingHeaders.get("authorization");
          if (value != null) {
            authorization = value;
          }
        }

        @Override
        public void onCallCompleted(CallStatus status) {}
      };
    }
  }
}

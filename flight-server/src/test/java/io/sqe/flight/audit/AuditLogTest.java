package io.sqe.flight.audit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real server with {@code audit.file}, spoken to through Arrow's FlightSqlClient: every
 * statement and login leaves one JSON line with the agreed keys, and no line holds a parameter
 * value, a literal of a failed statement, or a password.
 */
class AuditLogTest {
  private static final String POLICY =
      """
      {
        "schemas": [{"role": "admin", "owner": true}],
        "tables": [
          {"role": "admin", "privileges": ["OWNERSHIP"]},
          {"user": "bob", "schema": "s", "table": "pub", "privileges": ["SELECT"]}
        ]
      }
      """;
  private static final Set<String> KEYS =
      Set.of("time", "event", "user", "client", "query_id", "kind", "tables", "outcome", "rows", "elapsed_ms");
  private static final String SECRET_PARAMETER = "hunter2-parameter-value";
  private static final String SECRET_LITERAL = "literal-never-logged";
  private static final String WRONG_PASSWORD = "wrong-password-7f3a";

  @TempDir static Path dir;
  static TestServer server;
  static BufferAllocator allocator;
  static TestServer.Client admin;
  static Path auditFile;

  @BeforeAll
  static void start() throws Exception {
    Path policy = dir.resolve("rules.json");
    Files.writeString(policy, POLICY);
    auditFile = dir.resolve("logs/audit.jsonl");
    server = TestServer.start(
        dir.resolve("data"), Map.of("security.policy-file", policy.toString(), "audit.file", auditFile.toString()));
    server.server().authentication().users().addUser("bob", "bob-pw".toCharArray(), Set.of("analyst"));
    allocator = new RootAllocator();
    admin = server.client(allocator);
    admin.sql().executeUpdate("CREATE SCHEMA s", admin.auth());
    admin.sql().executeUpdate("CREATE TABLE s.t (id INT, secret VARCHAR)", admin.auth());
    admin.sql().executeUpdate("CREATE TABLE s.pub (id INT)", admin.auth());
  }

  @AfterAll
  static void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (server != null) {
      server.close();
    }
    if (allocator != null) {
      allocator.close();
    }
  }

  @Test
  void aWriteAndAQueryRecordTheirKindTablesRowsAndTime() throws Exception {
    long written = admin.sql().executeUpdate("INSERT INTO s.t VALUES (1, 'a'), (2, 'b'), (3, 'c')", admin.auth());
    assertThat(written).isEqualTo(3);
    JsonNode insert = awaitLine(l -> "INSERT".equals(text(l, "kind")) && l.path("tables").path("written").toString().contains("iceberg.s.t"));
    assertThat(insert.get("event").asText()).isEqualTo("statement");
    assertThat(insert.get("user").asText()).isEqualTo("admin");
    assertThat(insert.get("client").asText()).isEqualTo("127.0.0.1");
    assertThat(insert.get("outcome").asText()).isEqualTo("ok");
    assertThat(insert.get("rows").asLong()).isEqualTo(3);
    assertThat(insert.get("query_id").asText()).isNotBlank();
    assertThat(insert.get("elapsed_ms").isIntegralNumber()).isTrue();

    List<List<Object>> rows = admin.rows(admin.sql().execute("SELECT * FROM s.t t1 JOIN s.pub p ON t1.id = p.id OR true", admin.auth()));
    JsonNode select = awaitLine(l -> "SELECT".equals(text(l, "kind")) && l.path("tables").path("read").size() == 2);
    assertThat(select.get("rows").asLong()).isEqualTo(rows.size());
    assertThat(select.get("outcome").asText()).isEqualTo("ok");
    assertThat(strings(select.path("tables").path("read"))).containsExactly("iceberg.s.t", "iceberg.s.pub");
    assertThat(select.path("tables").path("written").size()).isZero();
  }

  @Test
  void aQueryAnsweredFromTheResultCacheIsRecordedAsCached() throws Exception {
    String sql = "SELECT count(*) AS cache_probe FROM s.pub";
    admin.rows(admin.sql().execute(sql, admin.auth()));
    JsonNode first = awaitLine(l -> "SELECT".equals(text(l, "kind")) && "ok".equals(text(l, "outcome"))
        && strings(l.path("tables").path("read")).equals(List.of("iceberg.s.pub")));
    assertThat(first.has("cached")).isFalse();
    String firstId = first.get("query_id").asText();
    admin.rows(admin.sql().execute(sql, admin.auth()));
    JsonNode second = awaitLine(l -> "SELECT".equals(text(l, "kind")) && l.path("cached").asBoolean()
        && !firstId.equals(text(l, "query_id")));
    assertThat(second.get("outcome").asText()).isEqualTo("ok");
    assertThat(second.get("rows").asLong()).isEqualTo(1);
    assertThat(strings(second.path("tables").path("read"))).containsExactly("iceberg.s.pub");
  }

  @Test
  void syntaxErrorsAndDeniedStatementsRecordTheirCodeButNoLiteral() throws Exception {
    assertThatThrownBy(() -> admin.sql().execute("SELEC '" + SECRET_LITERAL + "'", admin.auth()))
        .isInstanceOf(FlightRuntimeException.class);
    JsonNode syntax = awaitLine(l -> "INVALID_ARGUMENT".equals(text(l, "outcome")) && l.get("kind").isNull());
    assertThat(syntax.get("error").asText()).isNotBlank();

    FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
    try (FlightSqlClient bob = new FlightSqlClient(flight)) {
      CallOption auth = flight.authenticateBasicToken("bob", "bob-pw").orElseThrow();
      assertThatThrownBy(() -> bob.executeUpdate("INSERT INTO s.pub VALUES (42)", auth))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHORIZED));
      JsonNode denied = awaitLine(l -> "PERMISSION_DENIED".equals(text(l, "outcome")));
      assertThat(denied.get("user").asText()).isEqualTo("bob");
      assertThat(denied.get("kind").asText()).isEqualTo("INSERT");
      assertThat(strings(denied.path("tables").path("written"))).containsExactly("iceberg.s.pub");
      assertThat(denied.get("error").asText()).contains("Access denied");
      assertThat(denied.get("rows").isNull()).isTrue();

      assertThatThrownBy(() -> bob.execute("SELECT secret FROM s.t WHERE secret = '" + SECRET_LITERAL + "'", auth))
          .isInstanceOf(FlightRuntimeException.class);
      JsonNode missing = awaitLine(l -> "NOT_FOUND".equals(text(l, "outcome")) && "bob".equals(text(l, "user")));
      assertThat(strings(missing.path("tables").path("read"))).containsExactly("iceberg.s.t");
    }
    assertThat(Files.readString(auditFile)).doesNotContain(SECRET_LITERAL);
  }

  @Test
  void parameterValuesNeverReachTheLog() throws Exception {
    admin.sql().executeUpdate("INSERT INTO s.t VALUES (7, '" + "x" + "')", admin.auth());
    runWithTextParameter("SELECT count(*) FROM s.t WHERE secret = ?", false);
    awaitLine(l -> "SELECT".equals(text(l, "kind")) && "ok".equals(text(l, "outcome")) && l.get("rows").asLong() == 1
        && strings(l.path("tables").path("read")).equals(List.of("iceberg.s.t")));
    // A value the statement cannot take: the error may quote it, the log must not.
    runWithTextParameter("SELECT CAST(? AS INTEGER) + 1", true);
    awaitLine(l -> "SELECT".equals(text(l, "kind")) && !"ok".equals(text(l, "outcome")) && l.path("tables").path("read").isEmpty());
    assertThat(Files.readString(auditFile)).doesNotContain(SECRET_PARAMETER).doesNotContain("hunter2");
  }

  @Test
  void loginsAreRecordedWithTheirOutcomeButNeverThePassword() throws Exception {
    FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
    try (flight) {
      assertThatThrownBy(() -> flight.authenticateBasicToken("bob", WRONG_PASSWORD)).isInstanceOf(FlightRuntimeException.class);
      flight.authenticateBasicToken("bob", "bob-pw").orElseThrow();
    }
    JsonNode failed = awaitLine(l -> "login".equals(text(l, "event")) && "UNAUTHENTICATED".equals(text(l, "outcome")));
    assertThat(failed.get("user").asText()).isEqualTo("bob");
    assertThat(failed.get("method").asText()).isEqualTo("password");
    assertThat(failed.get("client").asText()).isEqualTo("127.0.0.1");
    assertThat(failed.get("query_id").isNull()).isTrue();
    JsonNode ok = awaitLine(l -> "login".equals(text(l, "event")) && "ok".equals(text(l, "outcome")) && "bob".equals(text(l, "user")));
    assertThat(ok.get("method").asText()).isEqualTo("password");
    String all = Files.readString(auditFile);
    assertThat(all).doesNotContain(WRONG_PASSWORD).doesNotContain("bob-pw").doesNotContain(server.adminPassword());
  }

  @Test
  void aBulkIngestRecordsTheTableItWrites() throws Exception {
    org.apache.arrow.vector.types.pojo.Schema schema = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        org.apache.arrow.vector.types.pojo.Field.nullable("id", new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, true))));
    try (VectorSchemaRoot data = VectorSchemaRoot.create(schema, allocator)) {
      org.apache.arrow.vector.IntVector ids = (org.apache.arrow.vector.IntVector) data.getVector(0);
      ids.allocateNew(4);
      for (int i = 0; i < 4; i++) {
        ids.set(i, i);
      }
      data.setRowCount(4);
      FlightSqlClient.ExecuteIngestOptions options = new FlightSqlClient.ExecuteIngestOptions(
          "ingested",
          org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.newBuilder()
              .setIfNotExist(org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions
                  .TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
              .setIfExists(org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions
                  .TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
              .build(),
          "iceberg",
          "s",
          Map.of());
      assertThat(admin.sql().executeIngest(data, options, admin.auth())).isEqualTo(4);
    }
    JsonNode ingest = awaitLine(l -> "INGEST".equals(text(l, "kind")));
    assertThat(strings(ingest.path("tables").path("written"))).containsExactly("iceberg.s.ingested");
    assertThat(ingest.get("rows").asLong()).isEqualTo(4);
    assertThat(ingest.get("outcome").asText()).isEqualTo("ok");
  }

  @Test
  void everyLineIsOneJsonObjectWithTheAgreedKeys() throws Exception {
    admin.rows(admin.sql().execute("SELECT 1", admin.auth()));
    awaitLine(l -> "SELECT".equals(text(l, "kind")) && l.path("tables").path("read").isEmpty() && "ok".equals(text(l, "outcome")));
    for (JsonNode line : lines()) {
      List<String> names = new ArrayList<>();
      line.fieldNames().forEachRemaining(names::add);
      Set<String> extra = Set.copyOf(names.subList(Math.min(KEYS.size(), names.size()), names.size()));
      assertThat(names.subList(0, KEYS.size())).containsExactlyInAnyOrderElementsOf(KEYS);
      assertThat(extra).isSubsetOf("method", "error");
      assertThat(line.get("event").asText()).isIn("login", "statement");
      if ("login".equals(line.get("event").asText())) {
        assertThat(names).contains("method");
      }
      if (!"ok".equals(line.get("outcome").asText())) {
        assertThat(names).contains("error");
      }
    }
  }

  private static void runWithTextParameter(String sql, boolean fails) throws Exception {
    FlightSqlClient.PreparedStatement prepared = admin.sql().prepare(sql, admin.auth());
    org.apache.arrow.vector.types.pojo.Schema schema = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        org.apache.arrow.vector.types.pojo.Field.nullable("p", org.apache.arrow.vector.types.pojo.ArrowType.Utf8.INSTANCE)));
    try (VectorSchemaRoot parameters = VectorSchemaRoot.create(schema, allocator)) {
      parameters.allocateNew();
      ((VarCharVector) parameters.getVector(0)).setSafe(0, SECRET_PARAMETER.getBytes(UTF_8));
      parameters.setRowCount(1);
      prepared.setParameters(parameters);
      if (fails) {
        assertThatThrownBy(() -> admin.rows(prepared.execute(admin.auth()))).isInstanceOf(FlightRuntimeException.class);
      } else {
        admin.rows(prepared.execute(admin.auth()));
      }
    } finally {
      prepared.close(admin.auth());
    }
  }

  private static String text(JsonNode line, String key) {
    JsonNode value = line.get(key);
    return value == null || value.isNull() ? null : value.asText();
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    for (Iterator<JsonNode> it = array.elements(); it.hasNext(); ) {
      values.add(it.next().asText());
    }
    return values;
  }

  private static List<JsonNode> lines() throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> lines = new ArrayList<>();
    if (!Files.exists(auditFile)) {
      return lines;
    }
    for (String line : Files.readAllLines(auditFile)) {
      if (!line.isEmpty()) {
        lines.add(json.readTree(line));
      }
    }
    return lines;
  }

  /** The first line that matches, waiting for the log's writer thread (lines are written asynchronously). */
  private static JsonNode awaitLine(Predicate<JsonNode> matches) throws Exception {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (true) {
      for (JsonNode line : lines()) {
        if (matches.test(line)) {
          return line;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("No matching audit line in:\n" + Files.readString(auditFile));
      }
      Thread.sleep(50);
    }
  }
}

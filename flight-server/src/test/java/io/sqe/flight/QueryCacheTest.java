package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TrailerCapture;
import io.sqe.sample.IcebergAppender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plan and result caches through a real Flight SQL client: a repeated statement reuses its
 * plan and then its result (as DoGet's trailers report), and neither is ever stale after a schema
 * change, a write (ours or another catalog client's), a policy that differs by user, different
 * parameters, the clock, or time travel.
 */
class QueryCacheTest {
  private static final String POLICY =
      """
      {
        "schemas": [{"role": "admin", "owner": true}],
        "tables": [
          {"role": "admin", "privileges": ["OWNERSHIP"]},
          {"role": "writer", "schema": "c", "privileges": ["SELECT", "INSERT"]},
          {"role": "analyst", "schema": "c", "table": "sales", "privileges": ["SELECT"], "filter": "region = 'EU'"}
        ]
      }
      """;
  private static final String PASSWORD = "a-long-enough-password";

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;
  private final List<AutoCloseable> clients = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    Path policy = dir.resolve("rules.json");
    Files.writeString(policy, POLICY);
    server = TestServer.start(dir.resolve("data"), Map.of("security.policy-file", policy.toString()));
    server.server().authentication().users().addUser("alice", PASSWORD.toCharArray(), Set.of("writer"));
    server.server().authentication().users().addUser("bob", PASSWORD.toCharArray(), Set.of("analyst"));
    server.server().authentication().users().addUser("carol", PASSWORD.toCharArray(), Set.of());
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    allocator.close();
  }

  @AfterEach
  void closeClients() throws Exception {
    for (AutoCloseable client : clients) {
      client.close();
    }
    clients.clear();
  }

  @Test
  void aRepeatedQueryReusesItsPlanThenItsResult() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.update("CREATE SCHEMA IF NOT EXISTS c");
    admin.update("CREATE TABLE c.repeat (id BIGINT, name VARCHAR)");
    admin.update("INSERT INTO c.repeat VALUES (1, 'one'), (2, 'two'), (3, 'three')");
    String sql = "SELECT id, name FROM c.repeat WHERE id >= 2 ORDER BY id";

    Run first = admin.run(sql);
    assertThat(first.rows()).containsExactly(List.of(2L, "two"), List.of(3L, "three"));
    assertThat(first.planCached()).isFalse();
    assertThat(first.resultCached()).isFalse();

    Run second = admin.run(sql);
    assertThat(second.rows()).isEqualTo(first.rows());
    assertThat(second.planCached()).isTrue();
    assertThat(second.resultCached()).isTrue();
    assertThat(second.trailers().get("x-sqe-files-scanned")).isEqualTo("0");
  }

  @Test
  void addingAColumnShowsInTheNextSelectStar() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.update("CREATE SCHEMA IF NOT EXISTS c");
    admin.update("CREATE TABLE c.grows (id BIGINT)");
    admin.update("INSERT INTO c.grows VALUES (1)");
    String sql = "SELECT * FROM c.grows";
    admin.run(sql);
    assertThat(admin.run(sql).planCached()).isTrue();

    admin.update("ALTER TABLE c.grows ADD COLUMN note VARCHAR");
    Run after = admin.run(sql);
    assertThat(after.planCached()).isFalse();
    assertThat(after.resultCached()).isFalse();
    assertThat(after.columns()).containsExactly("id", "note");
    assertThat(after.rows()).containsExactly(java.util.Arrays.asList(1L, null));
  }

  @Test
  void replacingAViewReplansItsReaders() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.update("CREATE SCHEMA IF NOT EXISTS c");
    admin.update("CREATE TABLE c.base (id BIGINT)");
    admin.update("INSERT INTO c.base VALUES (1), (2)");
    admin.update("CREATE VIEW c.pick AS SELECT id FROM c.base WHERE id = 1");
    String sql = "SELECT * FROM c.pick";
    assertThat(admin.run(sql).rows()).containsExactly(List.of(1L));
    assertThat(admin.run(sql).resultCached()).isTrue();

    admin.update("CREATE OR REPLACE VIEW c.pick AS SELECT id FROM c.base WHERE id = 2");
    Run replaced = admin.run(sql);
    assertThat(replaced.planCached()).isFalse();
    assertThat(replaced.resultCached()).isFalse();
    assertThat(replaced.rows()).containsExactly(List.of(2L));
  }

  @Test
  void writesThroughThisServerAndThroughTheCatalogInvalidateResults() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.update("CREATE SCHEMA IF NOT EXISTS c");
    admin.update("CREATE TABLE c.growing (id BIGINT)");
    admin.update("INSERT INTO c.growing VALUES (1), (2)");
    Login alice = login("alice");
    String sql = "SELECT count(*), sum(id) FROM c.growing";
    assertThat(alice.run(sql).rows()).containsExactly(List.of(2L, 3L));
    assertThat(alice.run(sql).resultCached()).isTrue();

    // A write by the same user.
    alice.update("INSERT INTO c.growing VALUES (10)");
    Run afterOwnWrite = alice.run(sql);
    assertThat(afterOwnWrite.resultCached()).isFalse();
    assertThat(afterOwnWrite.planCached()).isTrue();
    assertThat(afterOwnWrite.rows()).containsExactly(List.of(3L, 13L));

    // A write by another user.
    admin.update("INSERT INTO c.growing VALUES (100)");
    assertThat(alice.run(sql).rows()).containsExactly(List.of(4L, 113L));

    // A commit by another catalog client, which the server sees once its table cache lets go.
    TableIdentifier id = TableIdentifier.of("c", "growing");
    Table table = catalog().iceberg().loadTable(id);
    Record row = GenericRecord.create(table.schema());
    row.setField("id", 1000L);
    IcebergAppender.builder(table).build().append(List.of(row));
    catalog().invalidate(id);
    Run afterOtherWriter = alice.run(sql);
    assertThat(afterOtherWriter.resultCached()).isFalse();
    assertThat(afterOtherWriter.rows()).containsExactly(List.of(5L, 1113L));
    assertThat(alice.run(sql).resultCached()).isTrue();
  }

  @Test
  void usersWithDifferentRowFiltersNeverShareAResult() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.update("CREATE SCHEMA IF NOT EXISTS c");
    admin.update("CREATE TABLE c.sales (id BIGINT, region VARCHAR)");
    admin.update("INSERT INTO c.sales VALUES (1, 'EU'), (2, 'US'), (3, 'EU')");
    String sql = "SELECT id FROM c.sales ORDER BY id";
    Login alice = login("alice");
    Login bob = login("bob");
    Login carol = login("carol");
    List<List<Object>> all = List.of(List.of(1L), List.of(2L), List.of(3L));
    List<List<Object>> eu = List.of(List.of(1L), List.of(3L));

    assertThat(alice.run(sql).rows()).isEqualTo(all);
    assertThat(alice.run(sql).resultCached()).isTrue();
    Run bobsFirst = bob.run(sql);
    assertThat(bobsFirst.resultCached()).isFalse();
    assertThat(bobsFirst.rows()).isEqualTo(eu);
    Run bobsSecond = bob.run(sql);
    assertThat(bobsSecond.resultCached()).isTrue();
    assertThat(bobsSecond.rows()).isEqualTo(eu);
    assertThat(alice.run(sql).rows()).isEqualTo(all);

    // A user without SELECT is refused, whatever others have cached.
    assertThatThrownBy(() -> carol.run(sql))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isIn(FlightStatusCode.UNAUTHORIZED, FlightStatusCode.NOT_FOUND));
  }

  @Test
  void preparedStatementsCacheByParameterValues() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.update("CREATE SCHEMA IF NOT EXISTS c");
    admin.update("CREATE TABLE c.params (id BIGINT)");
    admin.update("INSERT INTO c.params VALUES (1), (2), (3), (4)");
    FlightSqlClient.PreparedStatement statement = admin.sql.prepare("SELECT count(*) FROM c.params WHERE id > ?", admin.auth);
    try {
      Run two = admin.execute(statement, 2);
      assertThat(two.rows()).containsExactly(List.of(2L));
      Run zero = admin.execute(statement, 0);
      assertThat(zero.rows()).containsExactly(List.of(4L));
      assertThat(zero.resultCached()).isFalse();
      Run twoAgain = admin.execute(statement, 2);
      assertThat(twoAgain.rows()).containsExactly(List.of(2L));
      assertThat(twoAgain.resultCached()).isTrue();
    } finally {
      statement.close(admin.auth);
    }
  }

  @Test
  void theClockIsNeverCached() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.update("CREATE SCHEMA IF NOT EXISTS c");
    admin.update("CREATE TABLE c.clock (id BIGINT)");
    admin.update("INSERT INTO c.clock VALUES (1)");
    String sql = "SELECT id, CURRENT_TIMESTAMP AS now FROM c.clock";
    admin.run(sql);
    Run second = admin.run(sql);
    assertThat(second.planCached()).isTrue();
    assertThat(second.resultCached()).isFalse();
    assertThat(admin.run("SELECT id, RAND() AS r FROM c.clock").resultCached()).isFalse();
    assertThat(admin.run("SELECT id, RAND() AS r FROM c.clock").resultCached()).isFalse();
  }

  @Test
  void timeTravelIsCachedByItsSnapshot() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.update("CREATE SCHEMA IF NOT EXISTS c");
    admin.update("CREATE TABLE c.history (id BIGINT)");
    admin.update("INSERT INTO c.history VALUES (1), (2)");
    long snapshot = catalog().loadTable(TableIdentifier.of("c", "history")).orElseThrow().currentSnapshot().snapshotId();
    admin.update("INSERT INTO c.history VALUES (3)");
    String past = "SELECT count(*) FROM c.history FOR VERSION AS OF " + snapshot;
    assertThat(admin.run(past).rows()).containsExactly(List.of(2L));
    Run again = admin.run(past);
    assertThat(again.resultCached()).isTrue();
    assertThat(again.rows()).containsExactly(List.of(2L));

    // A later commit changes the present, not the past.
    admin.update("INSERT INTO c.history VALUES (4)");
    Run afterCommit = admin.run(past);
    assertThat(afterCommit.resultCached()).isTrue();
    assertThat(afterCommit.rows()).containsExactly(List.of(2L));
    assertThat(admin.run("SELECT count(*) FROM c.history").rows()).containsExactly(List.of(4L));
  }

  // ---- helpers

  private static LakehouseCatalog catalog() {
    return server.server().catalogs().find("iceberg").orElseThrow();
  }

  /** One DoGet's rows, column names and trailers. */
  private record Run(List<String> columns, List<List<Object>> rows, Map<String, String> trailers) {
    boolean planCached() {
      return Boolean.parseBoolean(trailers.get("x-sqe-plan-cached"));
    }

    boolean resultCached() {
      return Boolean.parseBoolean(trailers.get("x-sqe-result-cached"));
    }
  }

  private final class Login {
    final FlightSqlClient sql;
    final CallOption auth;
    final TrailerCapture trailers;

    Login(FlightSqlClient sql, CallOption auth, TrailerCapture trailers) {
      this.sql = sql;
      this.auth = auth;
      this.trailers = trailers;
    }

    void update(String statement) {
      sql.executeUpdate(statement, auth);
    }

    Run run(String statement) throws Exception {
      return fetch(sql.execute(statement, auth));
    }

    Run execute(FlightSqlClient.PreparedStatement statement, long parameter) throws Exception {
      Schema schema = new Schema(List.of(new Field("p", FieldType.nullable(new ArrowType.Int(64, true)), null)));
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
        ((BigIntVector) root.getVector(0)).setSafe(0, parameter);
        root.setRowCount(1);
        statement.setParameters(root);
        return fetch(statement.execute(auth));
      }
    }

    private Run fetch(FlightInfo info) throws Exception {
      List<List<Object>> rows = new ArrayList<>();
      List<String> columns = new ArrayList<>();
      try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket(), auth)) {
        for (Field field : stream.getSchema().getFields()) {
          columns.add(field.getName());
        }
        while (stream.next()) {
          VectorSchemaRoot root = stream.getRoot();
          for (int i = 0; i < root.getRowCount(); i++) {
            List<Object> row = new ArrayList<>();
            for (var vector : root.getFieldVectors()) {
              Object value = vector.getObject(i);
              row.add(value instanceof Text ? value.toString() : value);
            }
            rows.add(row);
          }
        }
      }
      return new Run(columns, rows, trailers.lastDoGet());
    }
  }

  private Login login(String user) {
    TrailerCapture trailers = new TrailerCapture();
    FlightClient flight = FlightClient.builder(allocator, server.server().location()).intercept(trailers).build();
    String password = user.equals(TestServer.ADMIN) ? server.adminPassword() : PASSWORD;
    CallOption auth = flight.authenticateBasicToken(user, password).orElseThrow();
    FlightSqlClient sql = new FlightSqlClient(flight);
    clients.add(sql);
    return new Login(sql, auth, trailers);
  }
}

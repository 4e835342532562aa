package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TestTables;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * USE and SET through every path a client takes: a query (ADBC, dbt), an update (Flight SQL
 * DoPut) and a JDBC statement (a prepared statement executed as an update).
 */
class SessionStatementsTest {
  private static final Schema ONE = new Schema(Types.NestedField.required(1, "x", Types.IntegerType.get()));

  @TempDir static Path dir;
  private static RootAllocator allocator;
  private static TestServer server;

  @BeforeAll
  static void start() {
    allocator = new RootAllocator();
    server = TestServer.start(dir, Map.of());
    var catalog = server.server().catalogs().find("iceberg").orElseThrow();
    for (String schema : List.of("alpha", "beta")) {
      Record r = GenericRecord.create(ONE);
      r.setField("x", schema.equals("alpha") ? 1 : 2);
      TestTables.create(catalog, schema, "t", ONE, List.of(r), 100);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    allocator.close();
  }

  @Test
  void useAndSetThroughFlightSqlClient() throws Exception {
    try (TestServer.Client client = server.client(allocator)) {
      FlightInfo info = client.sql().execute("use alpha", client.auth());
      assertThat(info.getRecords()).isZero();
      try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
        assertThat(stream.next()).isTrue();
        assertThat(((BigIntVector) stream.getRoot().getVector("rows")).get(0)).isZero();
      }
      assertThat(single(client, "select x from t")).isEqualTo(1);
      assertThat(client.sql().executeUpdate("use iceberg.beta", client.auth())).isZero();
      assertThat(single(client, "select x from t")).isEqualTo(2);
      assertThat(client.sql().executeUpdate("set session time_zone = 'Asia/Tokyo'", client.auth())).isZero();
      assertThatThrownBy(() -> client.sql().execute("use nowhere", client.auth()))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND);
            assertThat(e.getMessage()).contains("nowhere").contains("line 1, column 5");
          });
      assertThatThrownBy(() -> client.sql().executeUpdate("select 1", client.auth()))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT));
    }
  }

  private static int single(TestServer.Client client, String sql) throws Exception {
    FlightInfo info = client.sql().execute(sql, client.auth());
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      assertThat(stream.next()).isTrue();
      return ((Number) stream.getRoot().getVector(0).getObject(0)).intValue();
    }
  }

  @Test
  void useThroughJdbc() throws Exception {
    Properties props = new Properties();
    props.put("user", TestServer.ADMIN);
    props.put("password", server.adminPassword());
    try (Connection connection = DriverManager.getConnection(server.jdbcUrl(), props);
        Statement statement = connection.createStatement()) {
      assertThat(statement.execute("USE beta")).isFalse();
      try (ResultSet rs = statement.executeQuery("select x from t")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(2);
      }
      assertThat(statement.executeUpdate("use alpha")).isZero();
      try (ResultSet rs = statement.executeQuery("select x from t")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(1);
      }
      assertThatThrownBy(() -> statement.execute("set session no_such_thing = 1"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("no_such_thing");
    }
  }

  @Test
  void prepareAndExecuteKeepStatementsInTheSession() throws Exception {
    try (TestServer.Client client = server.client(allocator)) {
      assertThat(client.sql().executeUpdate("PREPARE pick FROM SELECT x FROM iceberg.alpha.t WHERE x = ? OR x = ?", client.auth())).isZero();
      assertThat(single(client, "EXECUTE pick USING INTEGER '1', 0")).isEqualTo(1);
      assertThat(single(client, "EXECUTE IMMEDIATE 'SELECT x + ? FROM iceberg.beta.t' USING BIGINT '40'")).isEqualTo(42);
      assertThatThrownBy(() -> client.sql().execute("EXECUTE pick USING 1", client.auth()))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains("expected 2 but found 1");
          });
      assertThat(client.sql().executeUpdate("DEALLOCATE PREPARE pick", client.auth())).isZero();
      assertThatThrownBy(() -> client.sql().execute("EXECUTE pick USING 1, 2", client.auth()))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND);
            assertThat(e.getMessage()).contains("Prepared statement not found: pick");
          });
    }
  }
}

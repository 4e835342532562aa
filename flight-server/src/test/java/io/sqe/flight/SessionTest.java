package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TestTables;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.CloseSessionResult;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.sql.FlightSqlClient;
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
 * Session defaults: SetSessionOptions, GetSessionOptions and CloseSession through Flight, and the
 * JDBC driver's {@code catalog} property and {@code schema} header, one session per connection.
 */
class SessionTest {
  private static final Schema ORDERS = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final int SHOP_ROWS = 3;
  private static final int OTHER_ROWS = 5;

  @TempDir static Path dir;
  private static TestServer server;
  private static RootAllocator allocator;

  @BeforeAll
  static void start() {
    server = TestServer.start(dir, Map.of());
    LakehouseCatalog catalog = server.server().catalogs().find("iceberg").orElseThrow();
    TestTables.create(catalog, "shop", "orders", ORDERS, ids(SHOP_ROWS), 100);
    TestTables.create(catalog, "other", "orders", ORDERS, ids(OTHER_ROWS), 100);
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    allocator.close();
  }

  private static List<Record> ids(int count) {
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < count; id++) {
      Record r = GenericRecord.create(ORDERS);
      r.setField("id", id);
      rows.add(r);
    }
    return rows;
  }

  @Test
  void sessionOptionsThroughFlight() throws Exception {
    try (TestServer.Client client = server.client(allocator)) {
      FlightSqlClient sql = client.sql();
      SetSessionOptionsResult set =
          sql.setSessionOptions(
              new SetSessionOptionsRequest(
                  Map.of(
                      "catalog", SessionOptionValueFactory.makeSessionOptionValue("iceberg"),
                      "schema", SessionOptionValueFactory.makeSessionOptionValue("shop"))),
              client.auth());
      assertThat(set.getErrors()).isEmpty();
      assertThat(count(client, "select count(*) from orders")).isEqualTo(SHOP_ROWS);

      Map<String, SessionOptionValue> current =
          sql.getSessionOptions(new GetSessionOptionsRequest(), client.auth()).getSessionOptions();
      assertThat(current.get("catalog")).isEqualTo(SessionOptionValueFactory.makeSessionOptionValue("iceberg"));
      assertThat(current.get("schema")).isEqualTo(SessionOptionValueFactory.makeSessionOptionValue("shop"));

      SetSessionOptionsResult bad =
          sql.setSessionOptions(
              new SetSessionOptionsRequest(
                  Map.of(
                      "schema", SessionOptionValueFactory.makeSessionOptionValue("no_such_schema"),
                      "colour", SessionOptionValueFactory.makeSessionOptionValue("blue"))),
              client.auth());
      assertThat(bad.getErrors().get("schema").value).isEqualTo(SetSessionOptionsResult.ErrorValue.INVALID_VALUE);
      assertThat(bad.getErrors().get("colour").value).isEqualTo(SetSessionOptionsResult.ErrorValue.INVALID_NAME);
      assertThat(count(client, "select count(*) from orders")).isEqualTo(SHOP_ROWS);

      CloseSessionResult closed = sql.closeSession(new CloseSessionRequest(), client.auth());
      assertThat(closed.getStatus()).isEqualTo(CloseSessionResult.Status.CLOSED);
      // A new session starts from the defaults: no schema.
      assertThatThrownBy(() -> count(client, "select count(*) from orders"))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND));
      assertThat(count(client, "select count(*) from other.orders")).isEqualTo(OTHER_ROWS);
    }
  }

  @Test
  void jdbcConnectionsSharingATokenKeepTheirOwnSessions() throws Exception {
    String token = handshakeToken();
    Connection shop = jdbc("&token=" + token + "&catalog=iceberg&schema=shop");
    try (Connection other = jdbc("&token=" + token + "&schema=other")) {
      assertThat(count(shop)).isEqualTo(SHOP_ROWS);
      assertThat(count(other)).isEqualTo(OTHER_ROWS);
      assertThat(count(shop)).isEqualTo(SHOP_ROWS);
      // Ending one connection's session leaves the other's alone.
      JdbcDriverTest.closeWithSession(shop);
      assertThat(count(other)).isEqualTo(OTHER_ROWS);
    }
  }

  private static Connection jdbc(String properties) throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl() + properties);
  }

  private static long count(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("select count(*) from orders")) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }

  private static long count(TestServer.Client client, String sql) throws Exception {
    FlightInfo info = client.sql().execute(sql, client.auth());
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      assertThat(stream.next()).isTrue();
      return ((BigIntVector) stream.getRoot().getVector(0)).get(0);
    }
  }

  private static String handshakeToken() throws Exception {
    String[] token = new String[1];
    FlightClientMiddleware.Factory capture =
        info ->
            new FlightClientMiddleware() {
              @Override
              public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {}

              @Override
              public void onHeadersReceived(CallHeaders incomingHeaders) {
                String value = incomingHeaders.get("authorization");
                if (value != null && value.startsWith("Bearer ")) {
                  token[0] = value.substring("Bearer ".length());
                }
              }

              @Override
              public void onCallCompleted(CallStatus status) {}
            };
    try (FlightClient client = FlightClient.builder(allocator, server.server().location()).intercept(capture).build()) {
      client.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
    }
    return token[0];
  }
}

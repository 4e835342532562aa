package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.BothCatalogs;
import io.sqe.flight.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlClient.Savepoint;
import org.apache.arrow.flight.sql.FlightSqlClient.Transaction;
import org.apache.arrow.flight.sql.FlightSqlUtils;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndSavepointRequest;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Transactions through the real clients (Arrow's FlightSqlClient, the JDBC driver), against the
 * embedded catalog and a real Iceberg REST catalog: reads inside see the transaction's writes,
 * readers outside see nothing until COMMIT, ROLLBACK and the end of the session leave tables
 * exactly as they were, conflicts fail the COMMIT, and several tables commit together where the
 * catalog can.
 */
class TransactionTest {
  private static final AtomicInteger TABLES = new AtomicInteger();

  @RegisterExtension static final BothCatalogs SERVERS = new BothCatalogs();
  static Stream<TestServer> servers() {
    return SERVERS.both();
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void writesAreReadInsideAndInvisibleOutsideUntilCommit(TestServer server) throws Exception {
    String t = newTable(server, "(id bigint, v varchar)", "(1, 'a'), (2, 'b')");
    try (TestServer.Client client = server.client(SERVERS.allocator()); TestServer.Client other = server.client(SERVERS.allocator())) {
      long before = snapshotId(server, t);
      Transaction txn = client.sql().beginTransaction(client.auth());
      assertThat(update(client, "insert into app." + t + " values (3, 'c')", txn)).isEqualTo(1);
      assertThat(update(client, "update app." + t + " set v = 'x' where id = 1", txn)).isEqualTo(1);
      assertThat(update(client, "delete from app." + t + " where id = 2", txn)).isEqualTo(1);
      List<List<Object>> staged = List.of(List.of(1L, "x"), List.of(3L, "c"));
      assertThat(query(client, "select id, v from app." + t + " order by id", txn)).isEqualTo(staged);
      // The same client without the transaction id, and another session, read the committed table.
      List<List<Object>> committed = List.of(List.of(1L, "a"), List.of(2L, "b"));
      assertThat(query(client, "select id, v from app." + t + " order by id", null)).isEqualTo(committed);
      assertThat(query(other, "select id, v from app." + t + " order by id", null)).isEqualTo(committed);
      assertThat(snapshotId(server, t)).isEqualTo(before);

      client.sql().commit(txn, client.auth());
      assertThat(query(other, "select id, v from app." + t + " order by id", null)).isEqualTo(staged);
      // Ended: the id is no longer usable.
      assertThatThrownBy(() -> query(client, "select 1", txn)).satisfies(status(FlightStatusCode.NOT_FOUND));
    }
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void rollbackLeavesTheTableAsItWas(TestServer server) throws Exception {
    String t = newTable(server, "(id bigint, v varchar)", "(1, 'a'), (2, 'b')");
    try (TestServer.Client client = server.client(SERVERS.allocator())) {
      long before = snapshotId(server, t);
      Transaction txn = client.sql().beginTransaction(client.auth());
      update(client, "insert into app." + t + " select id + 10, v from app." + t, txn);
      update(client, "merge into app." + t + " d using (select 1 as id) s on d.id = s.id when matched then delete", txn);
      assertThat(query(client, "select count(*) from app." + t, txn)).containsExactly(List.of(3L));
      client.sql().rollback(txn, client.auth());
      assertThat(snapshotId(server, t)).isEqualTo(before);
      assertThat(query(client, "select id, v from app." + t + " order by id", null))
          .containsExactly(List.of(1L, "a"), List.of(2L, "b"));
    }
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void aConflictAtCommitFailsAndLandsNothing(TestServer server) throws Exception {
    String t = newTable(server, "(id bigint, v varchar)", "(1, 'a'), (2, 'b')");
    try (TestServer.Client client = server.client(SERVERS.allocator()); TestServer.Client other = server.client(SERVERS.allocator())) {
      Transaction txn = client.sql().beginTransaction(client.auth());
      update(client, "update app." + t + " set v = 'inside' where id = 1", txn);
      update(other, "update app." + t + " set v = 'outside' where id = 1", null);
      long outside = snapshotId(server, t);
      assertThatThrownBy(() -> client.sql().commit(txn, client.auth()))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("nothing was written");
      assertThat(snapshotId(server, t)).isEqualTo(outside);
      assertThat(query(other, "select v from app." + t + " where id = 1", null)).containsExactly(List.of("outside"));
    }
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void appendsCommitOnTopOfConcurrentAppends(TestServer server) throws Exception {
    String t = newTable(server, "(id bigint)", "(1)");
    try (TestServer.Client client = server.client(SERVERS.allocator()); TestServer.Client other = server.client(SERVERS.allocator())) {
      Transaction txn = client.sql().beginTransaction(client.auth());
      update(client, "insert into app." + t + " values (2)", txn);
      update(other, "insert into app." + t + " values (3)", null);
      client.sql().commit(txn, client.auth());
      assertThat(query(other, "select id from app." + t + " order by id", null)).containsExactly(List.of(1L), List.of(2L), List.of(3L));
    }
  }

  @Test
  void severalTablesCommitTogetherThroughTheRestCatalog() throws Exception {
    String a = newTable(SERVERS.overRest(), "(id bigint)", "(1)");
    String b = newTable(SERVERS.overRest(), "(id bigint)", "(1)");
    try (TestServer.Client client = SERVERS.overRest().client(SERVERS.allocator()); TestServer.Client other = SERVERS.overRest().client(SERVERS.allocator())) {
      Transaction txn = client.sql().beginTransaction(client.auth());
      update(client, "insert into app." + a + " values (2)", txn);
      update(client, "delete from app." + b + " where id = 1", txn);
      update(client, "insert into app." + b + " values (20)", txn);
      assertThat(query(other, "select (select count(*) from app." + a + "), (select sum(id) from app." + b + ")", null))
          .containsExactly(List.of(1L, 1L));
      client.sql().commit(txn, client.auth());
      assertThat(query(other, "select (select count(*) from app." + a + "), (select sum(id) from app." + b + ")", null))
          .containsExactly(List.of(2L, 20L));
      String id = new String(txn.getTransactionId(), StandardCharsets.UTF_8);
      assertThat(table(SERVERS.overRest(), a).currentSnapshot().summary()).containsEntry("sqe.transaction-id", id);
      assertThat(table(SERVERS.overRest(), b).currentSnapshot().summary()).containsEntry("sqe.transaction-id", id);
    }
  }

  @Test
  void aConflictOnOneTableLandsNothingOnAnyThroughTheRestCatalog() throws Exception {
    String a = newTable(SERVERS.overRest(), "(id bigint)", "(1)");
    String b = newTable(SERVERS.overRest(), "(id bigint)", "(1)");
    try (TestServer.Client client = SERVERS.overRest().client(SERVERS.allocator()); TestServer.Client other = SERVERS.overRest().client(SERVERS.allocator())) {
      long beforeA = snapshotId(SERVERS.overRest(), a);
      Transaction txn = client.sql().beginTransaction(client.auth());
      update(client, "insert into app." + a + " values (2)", txn);
      update(client, "insert into app." + b + " values (2)", txn);
      update(other, "insert into app." + b + " values (3)", null);
      assertThatThrownBy(() -> client.sql().commit(txn, client.auth())).satisfies(status(FlightStatusCode.INVALID_ARGUMENT));
      assertThat(snapshotId(SERVERS.overRest(), a)).isEqualTo(beforeA);
      assertThat(query(other, "select id from app." + b + " order by id", null)).containsExactly(List.of(1L), List.of(3L));
    }
  }

  @Test
  void theEmbeddedCatalogRefusesASecondTable() throws Exception {
    String a = newTable(SERVERS.embedded(), "(id bigint)", "(1)");
    String b = newTable(SERVERS.embedded(), "(id bigint)", "(1)");
    try (TestServer.Client client = SERVERS.embedded().client(SERVERS.allocator())) {
      Transaction txn = client.sql().beginTransaction(client.auth());
      update(client, "insert into app." + a + " values (2)", txn);
      assertThatThrownBy(() -> update(client, "insert into app." + b + " values (2)", txn))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("cannot commit several tables atomically");
      client.sql().commit(txn, client.auth());
      assertThat(query(client, "select (select count(*) from app." + a + "), (select count(*) from app." + b + ")", null))
          .containsExactly(List.of(2L, 1L));
    }
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void closingTheSessionRollsBack(TestServer server) throws Exception {
    String t = newTable(server, "(id bigint)", "(1)");
    long before = snapshotId(server, t);
    try (TestServer.Client client = server.client(SERVERS.allocator())) {
      Transaction txn = client.sql().beginTransaction(client.auth());
      update(client, "insert into app." + t + " values (2)", txn);
      client.sql().closeSession(new CloseSessionRequest(), client.auth());
      // The next call opens a new session, which does not know the transaction.
      assertThatThrownBy(() -> client.sql().commit(txn, client.auth())).satisfies(status(FlightStatusCode.NOT_FOUND));
      assertThat(snapshotId(server, t)).isEqualTo(before);
      assertThat(query(client, "select count(*) from app." + t, null)).containsExactly(List.of(1L));
    }
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void savepointsRollBackWhatCameAfterThem(TestServer server) throws Exception {
    String t = newTable(server, "(id bigint)", "(1)");
    String u = server == SERVERS.overRest() ? newTable(server, "(id bigint)", "(1)") : null;
    try (TestServer.Client client = server.client(SERVERS.allocator())) {
      FlightSqlClient sql = client.sql();
      Transaction txn = sql.beginTransaction(client.auth());
      update(client, "insert into app." + t + " values (2)", txn);
      Savepoint first = sql.beginSavepoint(txn, "first", client.auth());
      update(client, "delete from app." + t + " where id = 1", txn);
      if (u != null) {
        update(client, "insert into app." + u + " values (2)", txn);
      }
      Savepoint second = sql.beginSavepoint(txn, "second", client.auth());
      update(client, "insert into app." + t + " values (3)", txn);
      sql.release(second, client.auth());
      assertThat(query(client, "select id from app." + t + " order by id", txn)).containsExactly(List.of(2L), List.of(3L));
      rollbackTo(client, first);
      assertThat(query(client, "select id from app." + t + " order by id", txn)).containsExactly(List.of(1L), List.of(2L));
      // Rolling back to a savepoint ends it and those after it.
      assertThatThrownBy(() -> rollbackTo(client, second)).satisfies(status(FlightStatusCode.NOT_FOUND));
      update(client, "insert into app." + t + " values (4)", txn);
      sql.commit(txn, client.auth());
      assertThat(query(client, "select id from app." + t + " order by id", null)).containsExactly(List.of(1L), List.of(2L), List.of(4L));
      if (u != null) {
        assertThat(query(client, "select count(*) from app." + u, null)).containsExactly(List.of(1L));
      }
    }
  }

  @Test
  void unknownAndForeignTransactionIdsAreRefused() throws Exception {
    String t = newTable(SERVERS.embedded(), "(id bigint)", "(1)");
    try (TestServer.Client client = SERVERS.embedded().client(SERVERS.allocator()); TestServer.Client other = SERVERS.embedded().client(SERVERS.allocator())) {
      Transaction unknown = new Transaction("no-such-transaction".getBytes(StandardCharsets.UTF_8));
      assertThatThrownBy(() -> update(client, "insert into app." + t + " values (2)", unknown))
          .satisfies(status(FlightStatusCode.NOT_FOUND));
      Transaction txn = client.sql().beginTransaction(client.auth());
      assertThatThrownBy(() -> update(other, "insert into app." + t + " values (2)", txn))
          .satisfies(status(FlightStatusCode.UNAUTHORIZED))
          .hasMessageContaining("another session");
      assertThatThrownBy(() -> other.sql().commit(txn, other.auth())).satisfies(status(FlightStatusCode.UNAUTHORIZED));
      client.sql().rollback(txn, client.auth());
    }
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void preparedStatementsRunInTheirTransaction(TestServer server) throws Exception {
    String t = newTable(server, "(id bigint)", "(1)");
    try (TestServer.Client client = server.client(SERVERS.allocator())) {
      Transaction txn = client.sql().beginTransaction(client.auth());
      FlightSqlClient.PreparedStatement insert = client.sql().prepare("insert into app." + t + " values (2)", txn, client.auth());
      FlightSqlClient.PreparedStatement count = client.sql().prepare("select count(*) from app." + t, txn, client.auth());
      try {
        assertThat(rows(client, count.execute(client.auth()))).containsExactly(List.of(1L));
        assertThat(insert.executeUpdate(client.auth())).isEqualTo(1);
        // Planned again over what the transaction staged since it was prepared.
        assertThat(rows(client, count.execute(client.auth()))).containsExactly(List.of(2L));
        assertThat(insert.executeUpdate(client.auth())).isEqualTo(1);
        assertThat(query(client, "select count(*) from app." + t, null)).containsExactly(List.of(1L));
        client.sql().commit(txn, client.auth());
        assertThat(query(client, "select count(*) from app." + t, null)).containsExactly(List.of(3L));
        assertThatThrownBy(() -> insert.executeUpdate(client.auth())).satisfies(status(FlightStatusCode.INVALID_ARGUMENT));
      } finally {
        insert.close(client.auth());
        count.close(client.auth());
      }
    }
  }

  /** ADBC and dbt send BEGIN, COMMIT and ROLLBACK as queries; statements without a transaction id join. */
  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void sqlTransactionStatementsAsQueries(TestServer server) throws Exception {
    String t = newTable(server, "(id bigint)", "(1)");
    try (TestServer.Client client = server.client(SERVERS.allocator()); TestServer.Client other = server.client(SERVERS.allocator())) {
      query(client, "BEGIN", null);
      update(client, "insert into app." + t + " values (2)", null);
      assertThat(query(client, "select count(*) from app." + t, null)).containsExactly(List.of(2L));
      assertThat(query(other, "select count(*) from app." + t, null)).containsExactly(List.of(1L));
      query(client, "ROLLBACK", null);
      assertThat(query(client, "select count(*) from app." + t, null)).containsExactly(List.of(1L));

      // dbt's table materialisation: CREATE OR REPLACE TABLE ... AS inside BEGIN ... COMMIT.
      String created = "m" + TABLES.incrementAndGet();
      query(client, "START TRANSACTION", null);
      query(client, "create or replace table app." + created + " as select id * 10 as id from app." + t, null);
      query(client, "insert into app." + created + " values (7)", null);
      assertThat(query(client, "select sum(id) from app." + created, null)).containsExactly(List.of(17L));
      assertThatThrownBy(() -> query(other, "select * from app." + created, null)).isInstanceOf(FlightRuntimeException.class);
      assertThatThrownBy(() -> query(client, "create table app.not_in_a_transaction (id int)", null))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("cannot run inside a transaction");
      query(client, "COMMIT", null);
      assertThat(query(other, "select sum(id) from app." + created, null)).containsExactly(List.of(17L));
      // COMMIT outside a transaction does nothing.
      query(client, "COMMIT", null);
    }
  }

  /**
   * The JDBC driver (18.3.0, and main as of 2026-07) sends nothing for {@code commit()} and
   * {@code rollback()} (ArrowFlightMetaImpl's stubs), so with it a transaction is SQL BEGIN ...
   * COMMIT; {@code setAutoCommit(false)} alone leaves every statement committing on its own.
   */
  @Test
  void jdbcUsesSqlTransactionStatements() throws Exception {
    String t = newTable(SERVERS.embedded(), "(id bigint)", "(1)");
    String url = SERVERS.embedded().jdbcUrl() + "&user=" + TestServer.ADMIN + "&password=" + SERVERS.embedded().adminPassword();
    try (Connection connection = DriverManager.getConnection(url);
        Connection other = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      statement.execute("BEGIN");
      assertThat(statement.executeUpdate("insert into app." + t + " values (2)")).isEqualTo(1);
      assertThat(count(connection, t)).isEqualTo(2);
      assertThat(count(other, t)).isEqualTo(1);
      statement.execute("ROLLBACK");
      assertThat(count(other, t)).isEqualTo(1);
      statement.execute("BEGIN");
      statement.executeUpdate("insert into app." + t + " values (3)");
      statement.execute("COMMIT");
      assertThat(count(other, t)).isEqualTo(2);

      connection.setAutoCommit(false);
      statement.executeUpdate("insert into app." + t + " values (4)");
      connection.rollback();
      assertThat(count(other, t)).isEqualTo(3);
    }
  }

  /**
   * EndSavepoint(ROLLBACK). Arrow Java's {@code FlightSqlClient.rollback(Savepoint)} sends
   * END_SAVEPOINT_RELEASE instead (18.3.0 and main as of 2026-07), so the action is built here.
   */
  private static void rollbackTo(TestServer.Client client, Savepoint savepoint) {
    ActionEndSavepointRequest request =
        ActionEndSavepointRequest.newBuilder()
            .setSavepointId(ByteString.copyFrom(savepoint.getSavepointId()))
            .setAction(ActionEndSavepointRequest.EndSavepoint.END_SAVEPOINT_ROLLBACK)
            .build();
    Action action = new Action(FlightSqlUtils.FLIGHT_SQL_END_SAVEPOINT.getType(), Any.pack(request).toByteArray());
    client.flight().doAction(action, client.auth()).forEachRemaining(result -> {});
  }

  private static long count(Connection connection, String table) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery("select count(*) from app." + table)) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }

  /** A new table in schema {@code app} with these columns and rows, made outside any transaction. */
  private String newTable(TestServer server, String columns, String values) throws Exception {
    String name = "t" + TABLES.incrementAndGet();
    try (TestServer.Client client = server.client(SERVERS.allocator())) {
      update(client, "create table app." + name + " " + columns, null);
      update(client, "insert into app." + name + " values " + values, null);
    }
    return name;
  }

  private static Table table(TestServer server, String name) {
    return server.server().catalogs().find("iceberg").orElseThrow().iceberg().loadTable(TableIdentifier.of("app", name));
  }

  private static long snapshotId(TestServer server, String name) {
    Snapshot snapshot = table(server, name).currentSnapshot();
    return snapshot == null ? -1 : snapshot.snapshotId();
  }

  private static long update(TestServer.Client client, String sql, Transaction txn) {
    return txn == null ? client.sql().executeUpdate(sql, client.auth()) : client.sql().executeUpdate(sql, txn, client.auth());
  }

  private static List<List<Object>> query(TestServer.Client client, String sql, Transaction txn) throws Exception {
    FlightInfo info = txn == null ? client.sql().execute(sql, client.auth()) : client.sql().execute(sql, txn, client.auth());
    return rows(client, info);
  }

  private static List<List<Object>> rows(TestServer.Client client, FlightInfo info) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector vector : root.getFieldVectors()) {
            Object value = vector.getObject(r);
            row.add(value instanceof Text ? value.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  private static java.util.function.Consumer<Throwable> status(FlightStatusCode code) {
    return e -> assertThat(e).isInstanceOfSatisfying(FlightRuntimeException.class, f -> assertThat(f.status().code()).isEqualTo(code));
  }
}

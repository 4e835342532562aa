package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Any;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TrailerCapture;
import io.sqe.flight.testing.NumberTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.PollInfo;
import org.apache.arrow.flight.RenewFlightEndpointRequest;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.CancelResult;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Control of running statements through real clients: CancelFlightInfo and CancelQuery, cancel by
 * query id from another connection (Flight and SQL), query ids and total_records in FlightInfos,
 * PollFlightInfo, re-readable tickets and RenewFlightEndpoint, statement timeouts (session option,
 * SQL SET, server default) for queries and DML, and the figures in DoGet's trailers.
 */
class QueryControlTest {
  private static final int ROWS = 20_000;
  private static final int ROWS_PER_FILE = 2_500;
  /** Hundreds of millions of row pairs: runs far longer than any test waits, unless stopped. */
  private static final String ENDLESS =
      "select count(*), max(a.label || b.label) from s.numbers a cross join s.numbers b";
  private static final Duration WAIT = Duration.ofSeconds(10);
  /** The contract says a cancelled query stops within a second; a loaded machine gets five. */
  private static final Duration CANCEL_BOUND = Duration.ofSeconds(5);
  private static final String ALICE = "alice";
  private static final String BOB = "bob";
  private static final String PASSWORD = "a-long-enough-password";
  private static final String DEFAULT_TIMEOUT = "1h";

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;
  private final List<AutoCloseable> clients = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of("query.max-run-time", DEFAULT_TIMEOUT));
    NumberTable.create(catalog(), "s", "numbers", ROWS, ROWS_PER_FILE);
    server.server().authentication().users().addUser(ALICE, PASSWORD.toCharArray(), Set.of("analyst"));
    server.server().authentication().users().addUser(BOB, PASSWORD.toCharArray(), Set.of());
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    allocator.close();
  }

  @AfterEach
  void closeClients() throws Exception {
    RunningQueries.awaitNone(server, WAIT);
    for (AutoCloseable client : clients) {
      client.close();
    }
  }

  private static LakehouseCatalog catalog() {
    return server.server().catalogs().find("iceberg").orElseThrow();
  }

  // ---- cancelling

  @Test
  void cancelFlightInfoStopsARunningQueryAndReleasesItsMemory() throws Exception {
    Login alice = login(ALICE);
    FlightInfo info;
    try (Endless query = startEndless(alice)) {
      info = query.info();
      FlightStream stream = query.stream();
      // From another connection of the same user: the FlightInfo is all it needs.
      Login again = login(ALICE);
      long start = System.nanoTime();
      CancelStatus status = again.flight.cancelFlightInfo(new CancelFlightInfoRequest(info), again.auth).getStatus();
      assertThat(status).isEqualTo(CancelStatus.CANCELLED);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CANCEL_BOUND);
      // CANCELLED means stopped: the query's allocator is closed already.
      assertThat(RunningQueries.of(server)).isEmpty();
      assertThatThrownBy(stream::next)
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.CANCELLED);
            assertThat(e.getMessage()).contains(queryId(info)).contains("cancelled");
          });
    }
    // A cancelled query's ticket is dead; another cancel finds nothing left to stop.
    assertThat(alice.flight.cancelFlightInfo(new CancelFlightInfoRequest(info), alice.auth).getStatus())
        .isEqualTo(CancelStatus.CANCELLED);
    assertCode(() -> drain(alice.sql.getStream(ticket(info), alice.auth)), FlightStatusCode.CANCELLED);
  }

  @SuppressWarnings("deprecation")
  @Test
  void theOlderCancelQueryActionStopsARunningQuery() throws Exception {
    Login alice = login(ALICE);
    try (Endless query = startEndless(alice)) {
      FlightInfo info = query.info();
      FlightStream stream = query.stream();
      long start = System.nanoTime();
      assertThat(alice.sql.cancelQuery(info, alice.auth)).isEqualTo(CancelResult.CANCELLED);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CANCEL_BOUND);
      assertThat(RunningQueries.of(server)).isEmpty();
      assertCode(stream::next, FlightStatusCode.CANCELLED);
    }
  }

  @Test
  void aQueryCancelledBeforeItsDoGetNeverRuns() throws Exception {
    Login alice = login(ALICE);
    FlightInfo info = alice.sql.execute("select count(*) from s.numbers", alice.auth);
    assertThat(alice.flight.cancelFlightInfo(new CancelFlightInfoRequest(info), alice.auth).getStatus())
        .isEqualTo(CancelStatus.CANCELLED);
    assertCode(() -> drain(alice.sql.getStream(ticket(info), alice.auth)), FlightStatusCode.CANCELLED);
  }

  @Test
  void aCommandThatRanIsNotCancellable() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.sql.executeUpdate("create table if not exists s.done (n bigint)", admin.auth);
    // ADBC's route: DML as a query runs at GetFlightInfo; the ticket only returns the count.
    FlightInfo info = admin.sql.execute("insert into s.done values (1), (2)", admin.auth);
    assertThat(admin.flight.cancelFlightInfo(new CancelFlightInfoRequest(info), admin.auth).getStatus())
        .isEqualTo(CancelStatus.NOT_CANCELLABLE);
    assertThat(drain(admin.sql.getStream(ticket(info), admin.auth))).containsExactly(List.of(2L));
  }

  @Test
  void cancellingAnUnknownQueryIsNotFound() throws Exception {
    Login alice = login(ALICE);
    FlightInfo fake =
        FlightInfo.builder(new Schema(List.of()), FlightDescriptor.command(new byte[0]), List.of())
            .setAppMetadata("{\"query_id\":\"no-such-query\"}".getBytes(StandardCharsets.UTF_8))
            .build();
    assertCode(() -> alice.flight.cancelFlightInfo(new CancelFlightInfoRequest(fake), alice.auth), FlightStatusCode.NOT_FOUND);
  }

  @Test
  void onlyTheQuerysUserOrAnAdminMayCancelIt() throws Exception {
    Login alice = login(ALICE);
    Login bob = login(BOB);
    Login admin = login(TestServer.ADMIN);
    try (Endless query = startEndless(alice)) {
      FlightInfo info = query.info();
      FlightStream stream = query.stream();
      assertCode(() -> bob.flight.cancelFlightInfo(new CancelFlightInfoRequest(info), bob.auth), FlightStatusCode.UNAUTHORIZED);
      assertCode(() -> bob.sql.executeUpdate("CALL system.cancel_query('" + queryId(info) + "')", bob.auth), FlightStatusCode.UNAUTHORIZED);
      assertThat(RunningQueries.of(server)).hasSize(1);
      // An admin may, by SQL from any connection, knowing only the query id.
      assertThat(admin.sql.executeUpdate("CALL system.cancel_query('" + queryId(info) + "')", admin.auth)).isEqualTo(1);
      assertThat(RunningQueries.of(server)).isEmpty();
      assertThatThrownBy(stream::next)
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.CANCELLED);
            assertThat(e.getMessage()).contains("cancelled by admin");
          });
    }
  }

  @Test
  void aUserCancelsTheirOwnQueryFromAJdbcConnectionBySql() throws Exception {
    Login alice = login(ALICE);
    try (Endless query = startEndless(alice);
        Connection jdbc = DriverManager.getConnection(server.jdbcUrl() + "&user=" + ALICE + "&password=" + PASSWORD);
        Statement statement = jdbc.createStatement()) {
      FlightInfo info = query.info();
      FlightStream stream = query.stream();
      long start = System.nanoTime();
      statement.execute("CALL system.cancel_query('" + queryId(info) + "')");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CANCEL_BOUND);
      assertThat(RunningQueries.of(server)).isEmpty();
      assertCode(stream::next, FlightStatusCode.CANCELLED);
      assertThatThrownBy(() -> statement.execute("CALL system.cancel_query('no-such-query')"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("Unknown query no-such-query");
    }
  }

  @Test
  void showQueriesListsTheCallersRunningQueriesAndAnAdminSeesAll() throws Exception {
    Login alice = login(ALICE);
    Login bob = login(BOB);
    Login admin = login(TestServer.ADMIN);
    try (Endless query = startEndless(alice)) {
      FlightInfo info = query.info();
      List<List<Object>> mine = rows(alice, "SHOW QUERIES");
      assertThat(mine).anySatisfy(row -> {
        assertThat(row.get(0)).isEqualTo(queryId(info));
        assertThat(row.get(1)).isEqualTo(ALICE);
        assertThat(row.get(2)).isEqualTo("RUNNING");
        assertThat(row.get(6)).isEqualTo(ENDLESS);
      });
      List<List<Object>> bobs = rows(bob, "SHOW QUERIES");
      assertThat(bobs).noneSatisfy(row -> assertThat(row.get(0)).isEqualTo(queryId(info)));
      List<List<Object>> all = rows(admin, "SHOW QUERIES");
      assertThat(all).anySatisfy(row -> assertThat(row.get(0)).isEqualTo(queryId(info)));
      admin.flight.cancelFlightInfo(new CancelFlightInfoRequest(info), admin.auth);
    }
  }

  // ---- query ids, total_records, re-readable tickets

  @Test
  void everyStatementsFlightInfoCarriesItsQueryIdAndKnownRowCounts() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.sql.executeUpdate("create table if not exists s.counted (n bigint)", admin.auth);
    FlightInfo query = admin.sql.execute("select n from s.numbers where n < 5", admin.auth);
    FlightInfo explain = admin.sql.execute("explain plan for select n from s.numbers", admin.auth);
    FlightInfo insert = admin.sql.execute("insert into s.counted select n from s.numbers where n < 7", admin.auth);
    FlightSqlClient.PreparedStatement statement = admin.sql.prepare("select n from s.numbers where n < 3", admin.auth);
    FlightInfo prepared = statement.execute(admin.auth);
    statement.close(admin.auth);
    Set<String> ids = ConcurrentHashMap.newKeySet();
    for (FlightInfo info : List.of(query, explain, insert, prepared)) {
      assertThat(queryId(info)).matches("[0-9a-f]{12}\\.[0-9a-f-]{36}"); // the issuing server's id, then a UUID
      ids.add(queryId(info));
    }
    assertThat(ids).hasSize(4);
    // Known before DoGet: a command's count, an EXPLAIN's lines; a query's rows are not.
    assertThat(insert.getRecords()).isEqualTo(7);
    assertThat(query.getRecords()).isEqualTo(-1);
    assertThat(explain.getRecords()).isEqualTo(drain(admin.sql.getStream(ticket(explain), admin.auth)).size()).isPositive();
    assertThat(drain(admin.sql.getStream(ticket(prepared), admin.auth))).hasSize(3);
  }

  @Test
  void explainOfAnInsertShowsItsTargetAndPlanAndWritesNothing() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.sql.executeUpdate("create table if not exists s.explained (n bigint, label varchar)", admin.auth);
    List<String> lines = rows(admin, "explain plan for insert into s.explained (n) select n from s.numbers where n < 7").stream()
        .map(row -> (String) row.get(0))
        .toList();
    assertThat(lines.get(0)).isEqualTo("Insert into iceberg.s.explained (n)");
    assertThat(lines).anySatisfy(line -> assertThat(line).contains("SqeTableScan(table=[[iceberg, s, numbers]]"));
    assertThat(lines).noneSatisfy(line -> assertThat(line).contains("trino"));
    assertThat(rows(admin, "select count(*) from s.explained")).containsExactly(List.of(0L));
    // Row-level writes show the query that finds their rows, and change nothing either.
    admin.sql.executeUpdate("insert into s.explained select n, label from s.numbers where n < 10", admin.auth);
    for (String statement : List.of(
        "delete from s.explained where n < 7",
        "update s.explained set label = 'x' where n = 3",
        "merge into s.explained t using (select n from s.numbers where n < 20) src on t.n = src.n\n"
            + " when matched then update set label = 'y' when not matched then insert (n, label) values (src.n, 'z')",
        // SQE's extended forms: several WHEN clauses, AND conditions, DELETE.
        "merge into s.explained t using (select n from s.numbers where n < 20) src on t.n = src.n"
            + " when matched and src.n < 3 then delete when matched and src.n < 6 then update set label = 'u'"
            + " when not matched and src.n > 15 then insert (n, label) values (src.n, 'z')")) {
      List<String> plan = rows(admin, "explain plan for " + statement).stream().map(row -> (String) row.get(0)).toList();
      assertThat(plan.get(0)).as(statement).matches("(Delete from|Update|Merge into) iceberg\\.s\\.explained \\(copy-on-write.*");
      assertThat(plan).as(statement).anySatisfy(line -> assertThat(line).contains("TableScan(table=[[iceberg, s, explained]]"));
    }
    assertThat(rows(admin, "select count(*), count(label), sum(n) from s.explained")).containsExactly(List.of(10L, 10L, 45L));
    // CREATE TABLE ... AS shows the table it would make and its query's plan, and makes nothing.
    for (String explain : List.of("explain ", "explain plan for ")) {
      List<String> ctas = rows(admin, explain + "create table s.made partitioned by (bucket(4, n)) sorted by (n desc)"
          + " as select n, label from s.numbers where n < 5").stream().map(row -> (String) row.get(0)).toList();
      assertThat(ctas.get(0)).isEqualTo("Create table iceberg.s.made (n long, label string)");
      assertThat(ctas.get(1)).isEqualTo("  partitioned by bucket[4](n)");
      assertThat(ctas.get(2)).isEqualTo("  sorted by n DESC NULLS LAST");
      assertThat(ctas).anySatisfy(line -> assertThat(line).contains("TableScan(table=[[iceberg, s, numbers]]"));
    }
    assertThatThrownBy(() -> rows(admin, "select count(*) from s.made")).hasMessageContaining("made");
    // A CREATE OR REPLACE says whether it would keep the table's rows.
    admin.sql.executeUpdate("create or replace table s.made as select n from s.numbers where n < 5", admin.auth);
    List<String> replace = rows(admin, "explain create or replace table s.made as select n from s.numbers where n < 5").stream()
        .map(row -> (String) row.get(0))
        .toList();
    assertThat(replace.get(0)).isEqualTo("Create or replace table iceberg.s.made (n long)");
    assertThat(replace).anySatisfy(line -> assertThat(line)
        .matches("-- materialization reuse: the table's rows would be kept \\(nothing it reads changed since snapshot \\d+ of the table\\)"));
    assertThat(rows(admin, "select count(*) from s.made")).containsExactly(List.of(5L));
    // A plain CREATE TABLE has no plan to show.
    assertThatThrownBy(() -> rows(admin, "explain create table s.other (n bigint)"))
        .hasMessageContaining("EXPLAIN of CREATE TABLE statements is not supported");
  }

  @Test
  void aTicketCanBeReadAgainUntilItExpiresAndRenewingExtendsIt() throws Exception {
    Login alice = login(ALICE);
    Login bob = login(BOB);
    Instant before = Instant.now();
    FlightInfo info = alice.sql.execute("select sum(n) from s.numbers", alice.auth);
    FlightEndpoint endpoint = info.getEndpoints().get(0);
    Instant expires = endpoint.getExpirationTime().orElseThrow();
    assertThat(expires).isAfter(before.plus(Duration.ofMinutes(10)));
    List<List<Object>> first = drain(alice.sql.getStream(endpoint.getTicket(), alice.auth));
    assertThat(first).containsExactly(List.of((long) ROWS * (ROWS - 1) / 2));
    assertThat(drain(alice.sql.getStream(endpoint.getTicket(), alice.auth))).isEqualTo(first);

    Thread.sleep(20);
    FlightEndpoint renewed = alice.flight.renewFlightEndpoint(new RenewFlightEndpointRequest(endpoint), alice.auth);
    assertThat(renewed.getExpirationTime().orElseThrow()).isAfter(expires);
    assertThat(drain(alice.sql.getStream(renewed.getTicket(), alice.auth))).isEqualTo(first);
    assertCode(() -> bob.flight.renewFlightEndpoint(new RenewFlightEndpointRequest(endpoint), bob.auth), FlightStatusCode.UNAUTHORIZED);
  }

  // ---- PollFlightInfo

  @Test
  void pollingALongQueryReportsProgressUntilItIsCancelled() throws Exception {
    Login alice = login(ALICE);
    PollInfo first = alice.flight.pollInfo(statement(ENDLESS), alice.auth);
    assertThat(first.getFlightDescriptor()).isPresent();
    assertThat(first.getFlightInfo().getEndpoints()).isEmpty();
    assertThat(first.getFlightInfo().getSchema().getFields()).hasSize(2);
    String queryId = queryId(first.getFlightInfo());
    PollInfo later = alice.flight.pollInfo(first.getFlightDescriptor().get(), alice.auth);
    for (int i = 0; i < 10 && later.getProgress().isEmpty(); i++) {
      later = alice.flight.pollInfo(later.getFlightDescriptor().orElseThrow(), alice.auth);
    }
    assertThat(later.getFlightDescriptor()).as("an endless query is never done").isPresent();
    assertThat(later.getProgress()).hasValueSatisfying(p -> assertThat(p).isBetween(0.0, 1.0));
    assertThat(queryId(later.getFlightInfo())).isEqualTo(queryId);
    assertThat(later.getExpirationTime()).isPresent();

    assertThat(alice.flight.cancelFlightInfo(new CancelFlightInfoRequest(later.getFlightInfo()), alice.auth).getStatus())
        .isEqualTo(CancelStatus.CANCELLED);
    assertThat(RunningQueries.of(server)).isEmpty();
    PollInfo last = later;
    assertCode(() -> alice.flight.pollInfo(last.getFlightDescriptor().get(), alice.auth), FlightStatusCode.CANCELLED);
  }

  @Test
  void pollingAQueryEndsWithAFlightInfoWhoseTicketStreamsTheResult() throws Exception {
    Login alice = login(ALICE);
    PollInfo poll = pollUntilDone(alice, statement("select count(*), sum(n) from s.numbers where n >= 100"));
    assertThat(poll.getProgress()).contains(1.0);
    FlightInfo info = poll.getFlightInfo();
    // The whole result was in its first batch: its size is known.
    assertThat(info.getRecords()).isEqualTo(1);
    assertThat(drain(alice.sql.getStream(ticket(info), alice.auth)))
        .containsExactly(List.of((long) ROWS - 100, (long) ROWS * (ROWS - 1) / 2 - 4950));
  }

  @Test
  void pollingACommandEndsWithItsRowCount() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.sql.executeUpdate("create table if not exists s.polled (n bigint)", admin.auth);
    PollInfo poll = pollUntilDone(admin, statement("insert into s.polled select n from s.numbers where n < 10"));
    assertThat(poll.getFlightInfo().getRecords()).isEqualTo(10);
    assertThat(drain(admin.sql.getStream(ticket(poll.getFlightInfo()), admin.auth))).containsExactly(List.of(10L));
  }

  private static PollInfo pollUntilDone(Login login, FlightDescriptor descriptor) {
    PollInfo poll = login.flight.pollInfo(descriptor, login.auth);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (poll.getFlightDescriptor().isPresent() && System.nanoTime() < deadline) {
      poll = login.flight.pollInfo(poll.getFlightDescriptor().get(), login.auth);
    }
    assertThat(poll.getFlightDescriptor()).as("the statement finished within 60 s").isEmpty();
    return poll;
  }

  // ---- statement timeouts

  @Test
  void sqlSetStatementTimeoutStopsALongQueryWithDeadlineExceeded() throws Exception {
    Login alice = login(ALICE);
    alice.sql.executeUpdate("SET statement_timeout = '1s'", alice.auth);
    assertThat(sessionOption(alice, "statement_timeout")).isEqualTo("1s");
    FlightInfo info = alice.sql.execute(ENDLESS, alice.auth);
    long start = System.nanoTime();
    assertThatThrownBy(() -> drain(alice.sql.getStream(ticket(info), alice.auth)))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.TIMED_OUT);
          assertThat(e.getMessage()).contains("statement timeout of 1s").contains("statement_timeout");
        });
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(1).plus(CANCEL_BOUND));
    alice.sql.executeUpdate("RESET statement_timeout", alice.auth);
    assertThat(sessionOption(alice, "statement_timeout")).isEqualTo(DEFAULT_TIMEOUT);
    assertThat(rows(alice, "select count(*) from s.numbers"))
        .containsExactly(List.of((long) ROWS));
  }

  @Test
  void theStatementTimeoutSessionOptionAppliesToDmlToo() throws Exception {
    Login admin = login(TestServer.ADMIN);
    admin.sql.executeUpdate("create table if not exists s.slow_target (n bigint)", admin.auth);
    SetSessionOptionsResult set =
        admin.sql.setSessionOptions(
            new SetSessionOptionsRequest(Map.of("statement_timeout", SessionOptionValueFactory.makeSessionOptionValue("1500ms"))),
            admin.auth);
    assertThat(set.getErrors()).isEmpty();
    assertThat(sessionOption(admin, "statement_timeout")).isEqualTo("1500ms");
    String slowInsert = "insert into s.slow_target select a.n from s.numbers a cross join s.numbers b where a.n + b.n < 0";
    assertThatThrownBy(() -> admin.sql.executeUpdate(slowInsert, admin.auth))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.TIMED_OUT);
          assertThat(e.getMessage()).contains("statement timeout of 1500ms");
        });
    // ADBC's route, DML as a query, times out the same way.
    assertCode(() -> admin.sql.execute(slowInsert, admin.auth), FlightStatusCode.TIMED_OUT);
    assertThat(rows(admin, "select count(*) from s.slow_target"))
        .containsExactly(List.of(0L));

    SetSessionOptionsResult bad =
        admin.sql.setSessionOptions(
            new SetSessionOptionsRequest(Map.of("statement_timeout", SessionOptionValueFactory.makeSessionOptionValue("soon"))),
            admin.auth);
    assertThat(bad.getErrors().get("statement_timeout").value).isEqualTo(SetSessionOptionsResult.ErrorValue.INVALID_VALUE);
    assertCode(() -> admin.sql.executeUpdate("SET statement_timeout = 'soon'", admin.auth), FlightStatusCode.INVALID_ARGUMENT);
  }

  @Test
  void jdbcRunsUnderTheStatementTimeoutItSets() throws Exception {
    try (Connection jdbc = DriverManager.getConnection(server.jdbcUrl() + "&user=" + ALICE + "&password=" + PASSWORD);
        Statement statement = jdbc.createStatement()) {
      statement.execute("SET statement_timeout = '1s'");
      assertThatThrownBy(() -> {
            try (ResultSet rs = statement.executeQuery(ENDLESS)) {
              rs.next();
            }
          })
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("statement timeout of 1s");
    }
  }

  // ---- trailers

  @Test
  void doGetTrailersCarryTheQuerysFiguresAndNoParameterValues() throws Exception {
    TrailerCapture trailers = new TrailerCapture();
    Login alice = login(ALICE, trailers);
    String secret = "label-sekret-parameter-value";
    FlightInfo info;
    FlightSqlClient.PreparedStatement statement = alice.sql.prepare("select n, label from s.numbers where label <> ?", alice.auth);
    Schema parameters = new Schema(List.of(new Field("p", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(parameters, allocator)) {
      ((VarCharVector) root.getVector(0)).setSafe(0, secret.getBytes(StandardCharsets.UTF_8));
      root.setRowCount(1);
      statement.setParameters(root);
      info = statement.execute(alice.auth);
    }
    statement.close(alice.auth);
    long rows = drain(alice.sql.getStream(ticket(info), alice.auth)).size();
    assertThat(rows).isEqualTo(ROWS);
    Map<String, String> figures = trailers.lastDoGet();
    assertThat(figures).containsKeys(
        "x-sqe-query-id", "x-sqe-planning-ms", "x-sqe-execution-ms", "x-sqe-rows", "x-sqe-bytes",
        "x-sqe-files-scanned", "x-sqe-bytes-scanned", "x-sqe-peak-memory-bytes");
    assertThat(figures.get("x-sqe-query-id")).isEqualTo(queryId(info));
    assertThat(Long.parseLong(figures.get("x-sqe-rows"))).isEqualTo(rows);
    // A scan and a filter with a parameter, which each execution binds: SQE's columnar operators.
    assertThat(figures.get("x-sqe-runtime")).isEqualTo("columnar");
    // The table's own bookkeeping is the reference for what a full scan reads.
    Snapshot snapshot = catalog().loadTable(TableIdentifier.of("s", "numbers")).orElseThrow().currentSnapshot();
    assertThat(figures.get("x-sqe-files-scanned")).isEqualTo(snapshot.summary().get("total-data-files"));
    assertThat(figures.get("x-sqe-bytes-scanned")).isEqualTo(snapshot.summary().get("total-files-size"));
    assertThat(Long.parseLong(figures.get("x-sqe-bytes"))).isGreaterThan(rows * 100);
    assertThat(Long.parseLong(figures.get("x-sqe-peak-memory-bytes"))).isPositive();
    // The rows fit in memory: nothing spilled.
    assertThat(figures).containsEntry("x-sqe-spilled-bytes", "0").containsEntry("x-sqe-spill-files", "0");
    assertThat(Long.parseLong(figures.get("x-sqe-planning-ms"))).isNotNegative();
    assertThat(Long.parseLong(figures.get("x-sqe-execution-ms"))).isNotNegative();
    assertThat(figures.values()).noneMatch(v -> v.contains("sekret"));
  }

  // ---- helpers

  /** A query of {@code login}'s that runs until something stops it, with its stream open. */
  private record Endless(FlightInfo info, FlightStream stream) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      stream.close();
    }
  }

  /** The rows of a statement run through GetFlightInfo and DoGet. */
  private static List<List<Object>> rows(Login login, String sql) throws Exception {
    return drain(login.sql.getStream(ticket(login.sql.execute(sql, login.auth)), login.auth));
  }

  private static Endless startEndless(Login login) throws Exception {
    FlightInfo info = login.sql.execute(ENDLESS, login.auth);
    FlightStream stream = login.sql.getStream(ticket(info), login.auth);
    RunningQueries.awaitOne(server, WAIT);
    return new Endless(info, stream);
  }

  private record Login(FlightClient flight, FlightSqlClient sql, CallOption auth) {}

  private Login login(String user, FlightClientMiddleware.Factory... middleware) {
    FlightClient.Builder builder = FlightClient.builder(allocator, server.server().location());
    for (FlightClientMiddleware.Factory factory : middleware) {
      builder.intercept(factory);
    }
    FlightClient flight = builder.build();
    String password = user.equals(TestServer.ADMIN) ? server.adminPassword() : PASSWORD;
    CallOption auth = flight.authenticateBasicToken(user, password).orElseThrow();
    FlightSqlClient sql = new FlightSqlClient(flight);
    clients.add(sql);
    return new Login(flight, sql, auth);
  }

  private static FlightDescriptor statement(String sql) {
    return FlightDescriptor.command(Any.pack(CommandStatementQuery.newBuilder().setQuery(sql).build()).toByteArray());
  }

  private static Ticket ticket(FlightInfo info) {
    return info.getEndpoints().get(0).getTicket();
  }

  static String queryId(FlightInfo info) {
    try {
      return new ObjectMapper().readTree(info.getAppMetadata()).get("query_id").asText();
    } catch (java.io.IOException e) {
      throw new AssertionError("app_metadata is not JSON", e);
    }
  }

  private static String sessionOption(Login login, String name) {
    return login.sql.getSessionOptions(new GetSessionOptionsRequest(), login.auth).getSessionOptions().get(name)
        .acceptVisitor(new org.apache.arrow.flight.NoOpSessionOptionValueVisitor<String>() {
          @Override
          public String visit(String value) {
            return value;
          }
        });
  }

  /** Every row of a stream, as lists of Java values. */
  static List<List<Object>> drain(FlightStream stream) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (stream) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          List<Object> row = new ArrayList<>();
          for (var vector : root.getFieldVectors()) {
            Object value = vector.getObject(i);
            row.add(value instanceof org.apache.arrow.vector.util.Text ? value.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  static void assertCode(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, FlightStatusCode code) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).as(e.getMessage()).isEqualTo(code));
  }
}

package io.sqe.flight;

import static io.sqe.flight.QueryControlTest.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.NumberTable;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Statements being planned are listed, cancellable and bounded, through a real server and Flight
 * SQL clients: SHOW QUERIES lists them as PLANNING, {@code system.cancel_query}, the client going
 * away (its call's deadline) and the statement timeout stop them, and after that no thread of the
 * server is still planning. The slow planning is a real one: a 150-table join ordered by cost,
 * which the test allows by raising {@code query.max-reordered-joins} (Calcite's heuristic takes
 * minutes over that many tables).
 */
class PlanningControlTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  /** The contract is "within a second or so"; a loaded machine gets five. */
  private static final Duration STOP_BOUND = Duration.ofSeconds(5);
  private static final String SLOW_TO_PLAN = chainJoin(150);

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;
  private static TestServer.Client client;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of("query.max-reordered-joins", "1000"));
    NumberTable.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", "r", 100, 100);
    allocator = new RootAllocator();
    client = server.client(allocator);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
    allocator.close();
  }

  @AfterEach
  void nothingIsLeftPlanning() throws Exception {
    awaitNoPlanning();
  }

  @Test
  void aStatementBeingPlannedIsListedAndCancelQueryStopsIt() throws Exception {
    CompletableFuture<FlightInfo> planning = CompletableFuture.supplyAsync(() -> client.sql().execute(SLOW_TO_PLAN, client.auth()));
    String queryId = awaitPlanning();
    long start = System.nanoTime();
    assertThat(client.sql().executeUpdate("CALL system.cancel_query('" + queryId + "')", client.auth())).isEqualTo(1);
    assertThatThrownBy(() -> planning.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.CANCELLED);
          assertThat(e.getMessage()).contains(queryId).contains("cancelled");
        });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(STOP_BOUND);
    awaitNoPlanning();
    assertThat(planningRow()).isEmpty();
  }

  @Test
  void theStatementTimeoutBoundsPlanning() throws Exception {
    client.sql().executeUpdate("SET statement_timeout = '1s'", client.auth());
    try {
      long start = System.nanoTime();
      // The call's own deadline only guards the test; the server must answer first.
      assertThatThrownBy(() -> client.sql().execute(SLOW_TO_PLAN, client.auth(), CallOptions.timeout(WAIT.toSeconds(), TimeUnit.SECONDS)))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.TIMED_OUT);
            assertThat(e.getMessage()).contains("statement timeout of 1s").contains("while it was being planned");
          });
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1).plus(STOP_BOUND));
      awaitNoPlanning();
    } finally {
      client.sql().executeUpdate("RESET statement_timeout", client.auth());
    }
  }

  @Test
  void aClientThatGoesAwayStopsThePlanning() throws Exception {
    assertThatThrownBy(() -> client.sql().execute(SLOW_TO_PLAN, client.auth(), CallOptions.timeout(2, TimeUnit.SECONDS)))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.TIMED_OUT));
    awaitNoPlanning();
    assertThat(planningRow()).isEmpty();
  }

  @Test
  void aShutdownStopsThePlanning(@TempDir Path other) throws Exception {
    TestServer stopping = TestServer.start(other, Map.of("query.max-reordered-joins", "1000", "server.shutdown-grace-period", "1s"));
    NumberTable.create(stopping.server().catalogs().find("iceberg").orElseThrow(), "s", "r", 100, 100);
    try (TestServer.Client caller = stopping.client(allocator)) {
      CompletableFuture<FlightInfo> planning = CompletableFuture.supplyAsync(() -> caller.sql().execute(SLOW_TO_PLAN, caller.auth()));
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (planningThreads().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(planningThreads()).isNotEmpty();
      stopping.close();
      assertThatThrownBy(() -> planning.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
      awaitNoPlanning();
    }
  }

  /** A join of {@code tables} copies of s.r, each joined to the one before it on n. */
  private static String chainJoin(int tables) {
    StringBuilder sql = new StringBuilder("select count(*) from s.r t0");
    for (int i = 1; i < tables; i++) {
      sql.append(", s.r t").append(i);
    }
    sql.append(" where t0.n = t1.n");
    for (int i = 2; i < tables; i++) {
      sql.append(" and t").append(i - 1).append(".n = t").append(i).append(".n");
    }
    return sql.toString();
  }

  /** Waits until SHOW QUERIES lists the slow statement as PLANNING and returns its query id. */
  private static String awaitPlanning() throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    Optional<List<Object>> row = planningRow();
    while (row.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
      row = planningRow();
    }
    assertThat(row).as("SHOW QUERIES lists the statement being planned").isPresent();
    return row.get().get(0).toString();
  }

  private static Optional<List<Object>> planningRow() throws Exception {
    List<List<Object>> rows = drain(client.sql().getStream(
        client.sql().execute("SHOW QUERIES", client.auth()).getEndpoints().get(0).getTicket(), client.auth()));
    return rows.stream()
        .filter(row -> isSlowStatement(row.get(6).toString()))
        .peek(row -> assertThat(row.get(2).toString()).isEqualTo("PLANNING"))
        .findFirst();
  }

  /** SHOW QUERIES shows a long statement's first 4,096 characters, then "...". */
  private static boolean isSlowStatement(String shown) {
    return shown.equals(SLOW_TO_PLAN) || shown.endsWith("...") && SLOW_TO_PLAN.startsWith(shown.substring(0, shown.length() - 3));
  }

  /** The threads of this JVM (the test's servers') that are inside the planner. */
  private static List<Thread> planningThreads() {
    return Thread.getAllStackTraces().entrySet().stream()
        .filter(e -> e.getKey().isAlive()
            && Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().equals("io.sqe.engine.plan.QueryPlanner")))
        .map(Map.Entry::getKey)
        .toList();
  }

  /** Waits until no thread plans a statement: cancelled planning stops, it does not run on. */
  private static void awaitNoPlanning() throws InterruptedException {
    long deadline = System.nanoTime() + STOP_BOUND.toNanos();
    while (!planningThreads().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(planningThreads()).as("threads still planning after %s", STOP_BOUND).isEmpty();
  }
}

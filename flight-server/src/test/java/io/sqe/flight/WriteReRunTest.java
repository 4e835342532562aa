package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.CommitGate;
import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four writers on SQE servers of one Iceberg REST catalog change one table at once, and a
 * statement whose commit loses the race runs again on the new snapshot instead of failing: the
 * table ends as the statements run one after another would leave it (DuckDB runs them so), each
 * statement applied once, with the row count of the run that committed. The catalog holds the
 * first commits back until all four writers have read the table and written their files, so they
 * truly overlap; with re-runs off ({@code write.max-commit-retries: 0}) the same four statements
 * fail with conflicts.
 */
class WriteReRunTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(3);
  private static final List<String> SETUP = List.of(
      "create table app.t (id int, k int, v int) partitioned by (k)",
      "insert into app.t values (1, 1, 0), (2, 1, 0), (3, 1, 0), (4, 2, 0), (5, 2, 0), (6, 2, 0), (7, 3, 0), (8, 3, 0)");
  /**
   * The first three rewrite the data file of k = 1 (and two of them that of k = 2), so they
   * conflict with each other; the DELETE rewrites only k = 3's, which none of them reads. Each
   * statement changes the same rows whatever ran before it.
   */
  private static final List<Writer> WRITERS = List.of(
      new Writer("update app.t set v = v + 1 where k = 1", 3),
      new Writer("update app.t set v = v + 10 where id <= 4", 4),
      new Writer("merge into app.t t using (values (2, 100), (5, 100)) as s(id, d) on t.id = s.id"
          + " when matched then update set v = t.v + s.d", 2),
      new Writer("delete from app.t where id = 7", 1));

  @TempDir Path dir;
  private RestCatalogFixture rest;
  private final List<TestServer> servers = new ArrayList<>();
  private RootAllocator allocator;
  private final List<TestServer.Client> clients = new ArrayList<>();
  private ExecutorService threads;

  /** A statement and the rows it changes. */
  private record Writer(String sql, long rows) {}

  /** What became of one statement: its row count, or the error it failed with. */
  private record Outcome(Writer writer, long rows, FlightRuntimeException error) {}

  @BeforeEach
  void setUp() throws Exception {
    rest = RestCatalogFixture.start(dir.resolve("rest"));
    allocator = new RootAllocator();
    threads = Executors.newFixedThreadPool(8);
  }

  @AfterEach
  void tearDown() throws Exception {
    threads.shutdownNow();
    threads.awaitTermination(1, TimeUnit.MINUTES);
    for (TestServer.Client client : clients) {
      client.close();
    }
    allocator.close();
    for (TestServer server : servers) {
      server.close();
    }
    rest.close();
  }

  @Test
  void fourOverlappingWritersAllCommitOnceEachWhereWithoutReRunsTwoFail() throws Exception {
    // Without re-runs: two of the three statements on k = 1's file lose to the first.
    List<TestServer.Client> plain = writers(Map.of("write.max-commit-retries", "0"));
    setUpTable(plain.get(0), "plain");
    List<Outcome> before = concurrently(plain, "plain");
    assertThat(before).filteredOn(o -> o.error() != null).hasSize(2)
        .allSatisfy(o -> assertThat(o.error().getMessage()).contains("conflicts with a change committed"));

    // With them (the default), on two servers: every statement commits, once.
    List<TestServer.Client> reRunning = writers(Map.of());
    setUpTable(reRunning.get(0), "rerun");
    List<Outcome> after = concurrently(reRunning, "rerun");
    assertThat(after).allSatisfy(o -> {
      assertThat(o.error()).as(o.writer().sql()).isNull();
      assertThat(o.rows()).as(o.writer().sql()).isEqualTo(o.writer().rows());
    });
    assertThat(rows("rerun")).isEqualTo(serially());
    // One snapshot per statement after the set-up's insert: no statement committed twice.
    Table table = rest.backend().loadTable(TableIdentifier.of("rerun", "t"));
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    assertThat(snapshots).hasSize(1 + WRITERS.size());
    assertThat(snapshots.subList(1, snapshots.size())).extracting(s -> s.summary().get("sqe.query-id")).doesNotHaveDuplicates();
  }

  @Test
  void aCommitWithAnUnknownOutcomeIsNotRunAgain() throws Exception {
    List<TestServer.Client> clients = writers(Map.of());
    setUpTable(clients.get(0), "app");
    // The commit lands but its answer is lost and the table cannot be reloaded: running the
    // statement again could apply it twice, so SQE reports the unknown outcome instead.
    rest.loseAnswerToCommit("t", true);
    TestServer.Client client = clients.get(0);
    assertThatThrownBy(
            () -> client.sql().executeUpdate("update app.t set v = v + 100 where id = 1", client.auth()))
        .isInstanceOf(FlightRuntimeException.class)
        .hasMessageContaining("The outcome of the commit of UPDATE of iceberg.app.t is unknown");
    assertThat(rows("app")).containsEntry(1, 100).containsEntry(2, 0);
    List<Snapshot> snapshots = new ArrayList<>();
    rest.backend().loadTable(TableIdentifier.of("app", "t")).snapshots().forEach(snapshots::add);
    assertThat(snapshots).hasSize(2);
  }

  @Test
  void incrementsUnderContentionAreNeverLostNorDoubled() throws Exception {
    List<TestServer.Client> clients = writers(Map.of());
    setUpTable(clients.get(0), "app");
    AtomicInteger committed = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    List<Future<?>> work = new ArrayList<>();
    for (TestServer.Client client : clients) {
      work.add(threads.submit(() -> {
        for (int i = 0; i < 3; i++) {
          try {
            assertThat(client.sql().executeUpdate("update app.t set v = v + 1 where id = 4", client.auth())).isEqualTo(1);
            committed.incrementAndGet();
          } catch (FlightRuntimeException e) {
            assertThat(e.getMessage()).contains("conflicts");
            failed.incrementAndGet();
          }
        }
        return null;
      }));
    }
    for (Future<?> future : work) {
      future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
    System.out.printf("12 contended increments by 4 writers: %d committed, %d failed after re-runs%n", committed.get(), failed.get());
    assertThat(committed.get() + failed.get()).isEqualTo(12);
    assertThat(rows("app").get(4)).isEqualTo(committed.get());
  }

  /** Four logged-in clients, two on each of two servers started with {@code settings}. */
  private List<TestServer.Client> writers(Map<String, String> settings) {
    Map<String, String> all = new HashMap<>(rest.sqeSettings());
    all.putAll(settings);
    List<TestServer.Client> writers = new ArrayList<>();
    for (int s = 0; s < 2; s++) {
      TestServer server = TestServer.start(dir.resolve("sqe-" + servers.size()), all);
      servers.add(server);
      for (int c = 0; c < 2; c++) {
        TestServer.Client client = server.client(allocator);
        clients.add(client);
        writers.add(client);
      }
    }
    return writers;
  }

  private static void setUpTable(TestServer.Client client, String schema) {
    client.sql().executeUpdate("create schema " + schema, client.auth());
    for (String sql : SETUP) {
      client.sql().executeUpdate(sql.replace("app.", schema + "."), client.auth());
    }
  }

  /** Runs writer i on client i, each held at its commit until all four got there. */
  private List<Outcome> concurrently(List<TestServer.Client> clients, String schema) throws Exception {
    CommitGate gate = rest.holdCommits("t", WRITERS.size());
    List<Future<Outcome>> running = new ArrayList<>();
    for (int i = 0; i < WRITERS.size(); i++) {
      Writer writer = WRITERS.get(i);
      TestServer.Client client = clients.get(i);
      running.add(threads.submit(() -> {
        try {
          return new Outcome(writer, client.sql().executeUpdate(writer.sql().replace("app.", schema + "."), client.auth()), null);
        } catch (FlightRuntimeException e) {
          return new Outcome(writer, -1, e);
        }
      }));
    }
    gate.awaitHeld(TIMEOUT);
    gate.release();
    List<Outcome> outcomes = new ArrayList<>();
    for (Future<Outcome> outcome : running) {
      outcomes.add(outcome.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    }
    return outcomes;
  }

  /** The table's rows, id to v, as the catalog's current snapshot has them; fails on a repeated id. */
  private Map<Integer, Integer> rows(String schema) {
    Table table = rest.backend().loadTable(TableIdentifier.of(schema, "t"));
    Map<Integer, Integer> values = new TreeMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        Integer previous = values.put((Integer) row.getField("id"), (Integer) row.getField("v"));
        assertThat(previous).as("a second row with id %s", row.getField("id")).isNull();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return values;
  }

  /** The rows DuckDB has after running the set-up and the four statements one after another. */
  private static Map<Integer, Integer> serially() throws Exception {
    Map<Integer, Integer> values = new TreeMap<>();
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement s = duck.createStatement()) {
      s.execute("create schema app");
      s.execute("create table app.t (id int, k int, v int)");
      s.execute(SETUP.get(1));
      for (Writer writer : WRITERS) {
        assertThat(s.executeUpdate(writer.sql())).as(writer.sql()).isEqualTo((int) writer.rows());
      }
      try (ResultSet rows = s.executeQuery("select id, v from app.t")) {
        while (rows.next()) {
          values.put(rows.getInt(1), rows.getInt(2));
        }
      }
    }
    return values;
  }
}

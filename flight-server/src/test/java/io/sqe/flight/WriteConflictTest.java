package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.sqe.flight.testing.CommitGate;
import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.RootAllocator;
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
 * Two SQE servers write one table of a real Iceberg REST catalog at the same time, through Flight
 * SQL. The catalog holds the commits back until both statements have read the table and written
 * their files, so the writers truly overlap; then one commit lands first and the other is checked
 * against it: a real conflict fails with FAILED_PRECONDITION and writes nothing, anything else
 * commits. No committed change is ever lost, and no row appears twice. And when the catalog's
 * answer to a commit is lost, the writer is told so and keeps its files.
 */
class WriteConflictTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  @TempDir Path dir;
  private RestCatalogFixture rest;
  private TestServer first;
  private TestServer second;
  private RootAllocator allocator;
  private final WireStatuses wire = new WireStatuses();
  private TestServer.Client one;
  private TestServer.Client two;
  private ExecutorService threads;

  @BeforeEach
  void setUp() throws Exception {
    rest = RestCatalogFixture.start(dir.resolve("rest"));
    Map<String, String> settings = new HashMap<>(rest.sqeSettings());
    // The conflicts themselves: a statement that loses runs again by default (WriteReRunTest).
    settings.put("write.max-commit-retries", "0");
    first = TestServer.start(dir.resolve("first"), settings);
    second = TestServer.start(dir.resolve("second"), settings);
    allocator = new RootAllocator();
    one = client(first);
    two = client(second);
    threads = Executors.newFixedThreadPool(4);
    update(one, "create schema app");
    update(one, "create table app.t (id int, k int, v int) partitioned by (k)");
    update(one, "insert into app.t values (1, 1, 0), (2, 1, 0), (3, 1, 0), (4, 2, 0), (5, 2, 0)");
    update(two, "insert into app.t values (6, 2, 0), (7, 3, 0)");
  }

  @AfterEach
  void tearDown() throws Exception {
    threads.shutdownNow();
    threads.awaitTermination(1, TimeUnit.MINUTES);
    one.close();
    two.close();
    allocator.close();
    second.close();
    first.close();
    rest.close();
  }

  @Test
  void twoUpdatesOfTheSameRowsOneWinsTheOtherConflicts() throws Exception {
    List<Outcome> outcomes = concurrently(
        "update app.t set v = v + 1 where k = 1",
        "update app.t set v = v + 10 where id <= 2");
    assertThat(outcomes).filteredOn(Outcome::committed).hasSize(1);
    Outcome failed = outcomes.stream().filter(o -> !o.committed()).findFirst().orElseThrow();
    assertConflict(failed);
    assertThat(failed.error().getMessage()).contains("conflicts with a change committed to the table").contains("nothing was written");
    // The winner's change is there in full, the loser's not at all.
    Map<Integer, Integer> values = values();
    if (outcomes.get(0).committed()) {
      assertThat(values).containsEntry(1, 1).containsEntry(2, 1).containsEntry(3, 1);
    } else {
      assertThat(values).containsEntry(1, 10).containsEntry(2, 10).containsEntry(3, 0);
    }
    assertThat(values).containsOnlyKeys(1, 2, 3, 4, 5, 6, 7);
  }

  @Test
  void concurrentAppendsBothLand() throws Exception {
    List<Outcome> outcomes = concurrently(
        "insert into app.t values (10, 1, 10), (11, 2, 11)",
        "insert into app.t select id + 20, k, v from app.t where k = 1");
    assertThat(outcomes).allMatch(Outcome::committed);
    assertThat(values()).containsOnlyKeys(1, 2, 3, 4, 5, 6, 7, 10, 11, 21, 22, 23);
  }

  @Test
  void updateConflictsWithAConcurrentInsertIntoTheRowsItRead() throws Exception {
    // Serializable (the default): a new row that the UPDATE's condition would have matched fails it.
    Outcome update = updateWhileAnotherServerInserts("update app.t set v = v + 1 where k = 1", "insert into app.t values (8, 1, 0)");
    assertConflict(update);
    assertThat(values()).containsEntry(1, 0).containsEntry(8, 0);

    // A new row in a partition the UPDATE did not read is no conflict.
    update = updateWhileAnotherServerInserts("update app.t set v = v + 1 where k = 1", "insert into app.t values (9, 3, 0)");
    assertThat(update.committed()).isTrue();
    assertThat(values()).containsEntry(1, 1).containsEntry(8, 1).containsEntry(9, 0);

    // At snapshot isolation the UPDATE commits and the concurrently inserted row keeps its value.
    rest.backend().loadTable(TableIdentifier.of("app", "t")).updateProperties()
        .set("write.update.isolation-level", "snapshot").commit();
    update = updateWhileAnotherServerInserts("update app.t set v = v + 1 where k = 1", "insert into app.t values (12, 1, 0)");
    assertThat(update.committed()).isTrue();
    assertThat(values()).containsEntry(1, 2).containsEntry(8, 2).containsEntry(12, 0);
  }

  @Test
  void deletesOfTheSameFileConflict() throws Exception {
    List<Outcome> outcomes = concurrently("delete from app.t where id = 1", "delete from app.t where id = 2");
    assertThat(outcomes).filteredOn(Outcome::committed).hasSize(1);
    assertConflict(outcomes.stream().filter(o -> !o.committed()).findFirst().orElseThrow());
    // Run again, the losing statement reads the new snapshot and commits.
    update(outcomes.get(0).committed() ? two : one, outcomes.get(0).committed() ? "delete from app.t where id = 2" : "delete from app.t where id = 1");
    assertThat(values()).containsOnlyKeys(3, 4, 5, 6, 7);
  }

  @Test
  void noIncrementIsLostUnderContention() throws Exception {
    AtomicInteger committed = new AtomicInteger();
    AtomicInteger conflicts = new AtomicInteger();
    List<Future<?>> writers = new ArrayList<>();
    for (TestServer.Client client : List.of(one, two, one, two)) {
      writers.add(threads.submit(() -> {
        for (int i = 0; i < 4; i++) {
          try {
            client.sql().executeUpdate("update app.t set v = v + 1 where id = 4", client.auth());
            committed.incrementAndGet();
          } catch (FlightRuntimeException e) {
            assertConflict(new Outcome("update", e));
            conflicts.incrementAndGet();
          }
        }
        return null;
      }));
    }
    for (Future<?> writer : writers) {
      writer.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
    assertThat(committed.get() + conflicts.get()).isEqualTo(16);
    assertThat(committed.get()).isPositive();
    assertThat(values()).containsEntry(4, committed.get()).containsOnlyKeys(1, 2, 3, 4, 5, 6, 7);
  }

  @Test
  void aLostCommitAnswerIsReconciledOrReportedAndTheFilesKept() throws Exception {
    // Iceberg's client finds its snapshot in the reloaded table: the statement succeeds, once.
    rest.loseAnswerToCommit("t", false);
    assertThat(run(one, "update app.t set v = 50 where id = 2").committed()).isTrue();
    assertThat(values()).containsEntry(2, 50).containsOnlyKeys(1, 2, 3, 4, 5, 6, 7);

    // It cannot reload the table: SQE says the outcome is unknown and how to check, and keeps the files.
    rest.loseAnswerToCommit("t", true);
    Outcome update = run(one, "update app.t set v = 100 where id = 1");
    assertThat(update.committed()).isFalse();
    String message = update.error().getMessage();
    assertThat(message).contains("The outcome of the commit of UPDATE of iceberg.app.t is unknown");
    assertThat(wire.statuses).anySatisfy(status -> {
      assertThat(status.getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(status.getDescription()).isEqualTo(message);
    });
    java.util.regex.Matcher queryId = java.util.regex.Pattern.compile("sqe\\.query-id=(\\S+);").matcher(message);
    assertThat(queryId.find()).as(message).isTrue();
    // The commit did land: the snapshot names the statement, and the table reads in full.
    Table table = rest.backend().loadTable(TableIdentifier.of("app", "t"));
    assertThat(table.currentSnapshot().summary()).containsEntry("sqe.query-id", queryId.group(1));
    assertThat(values()).containsEntry(1, 100).containsEntry(2, 50).containsOnlyKeys(1, 2, 3, 4, 5, 6, 7);
  }

  /** What became of a statement: committed, or the error it failed with. */
  private record Outcome(String sql, FlightRuntimeException error) {
    boolean committed() {
      return error == null;
    }
  }

  /**
   * Runs the first statement on the first server and the second on the second, both holding at
   * the commit until both got there, then lets them commit.
   */
  private List<Outcome> concurrently(String onFirst, String onSecond) throws Exception {
    CommitGate gate = rest.holdCommits("t", 2);
    Future<Outcome> a = threads.submit(() -> run(one, onFirst));
    Future<Outcome> b = threads.submit(() -> run(two, onSecond));
    gate.awaitHeld(TIMEOUT);
    gate.release();
    return List.of(a.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), b.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
  }

  /** Runs an UPDATE on the first server that reaches its commit only after an insert by the second committed. */
  private Outcome updateWhileAnotherServerInserts(String update, String insert) throws Exception {
    CommitGate gate = rest.holdCommits("t", 1);
    Future<Outcome> updating = threads.submit(() -> run(one, update));
    gate.awaitHeld(TIMEOUT);
    Outcome inserted = run(two, insert);
    assertThat(inserted.committed()).as(insert).isTrue();
    gate.release();
    return updating.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Asserts that a statement failed as a write conflict: a message that says so, sent with gRPC
   * status FAILED_PRECONDITION (Flight's Java client turns that into INVALID_ARGUMENT, having no
   * code of its own for it, so the status is checked on the wire).
   */
  private void assertConflict(Outcome outcome) {
    assertThat(outcome.error()).as("error of %s", outcome.sql()).isNotNull();
    String message = outcome.error().getMessage();
    assertThat(message).contains("conflicts");
    assertThat(wire.statuses).as("gRPC status of %s", message)
        .anySatisfy(status -> {
          assertThat(status.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(status.getDescription()).isEqualTo(message);
        });
  }

  /** A logged-in Flight SQL client whose calls' gRPC statuses {@link #wire} records. */
  private TestServer.Client client(TestServer server) {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().intercept(wire).build();
    FlightClient flight = FlightGrpcUtils.createFlightClient(allocator, channel, new ArrayList<>());
    CallOption auth = flight.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
    return new TestServer.Client(flight, new FlightSqlClient(flight), auth);
  }

  /** Records the gRPC status every call ends with. */
  private static final class WireStatuses implements ClientInterceptor {
    final List<Status> statuses = new CopyOnWriteArrayList<>();

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
            @Override
            public void onClose(Status status, Metadata trailers) {
              statuses.add(status);
              super.onClose(status, trailers);
            }
          }, headers);
        }
      };
    }
  }

  private static Outcome run(TestServer.Client client, String sql) {
    try {
      client.sql().executeUpdate(sql, client.auth());
      return new Outcome(sql, null);
    } catch (FlightRuntimeException e) {
      return new Outcome(sql, e);
    }
  }

  private static void update(TestServer.Client client, String sql) {
    client.sql().executeUpdate(sql, client.auth());
  }

  /** The table's rows as the catalog's current snapshot has them, by id; fails on a repeated id. */
  private Map<Integer, Integer> values() {
    Table table = rest.backend().loadTable(TableIdentifier.of("app", "t"));
    Map<Integer, Integer> values = new HashMap<>();
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
}

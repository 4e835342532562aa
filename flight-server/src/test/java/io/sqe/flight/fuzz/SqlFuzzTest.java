package io.sqe.flight.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.sqe.flight.fuzz.StatementRunner.Path;
import io.sqe.flight.testing.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A grammar- and type-aware SQL fuzzer (issue 22): generated statements ({@link
 * StatementGenerator}), some deliberately ill-typed, some broken token by token ({@link
 * SqlMutator}), and session statements, run through a real server with the Flight SQL client
 * (plain and prepared) and the Flight SQL JDBC driver. Any error with a category (INVALID_ARGUMENT,
 * NOT_FOUND, UNIMPLEMENTED, ...) is fine and is counted by its class; the test fails on INTERNAL,
 * UNKNOWN, a broken stream, an answer the client cannot read, a statement with no answer within
 * its statement timeout plus a grace period, a server that stops serving, and Arrow memory still
 * held after a batch of statements. Failures of {@link KnownFailures} are reported only.
 *
 * <p>The seed is printed; {@code -Dsqe.fuzz.seed=...} replays it, {@code -Dsqe.fuzz.statements=N}
 * sets how many statements run (CI's round: 1,500), {@code -Dsqe.fuzz.first=i} starts at
 * statement i, {@code -Dsqe.fuzz.strict=true} fails on known failures too and {@code
 * -Dsqe.fuzz.verbose=true} prints every error class. See docs/testing.md.
 */
class SqlFuzzTest {
  private static final int STATEMENTS = Integer.getInteger("sqe.fuzz.statements", 1_500);
  private static final int FIRST = Integer.getInteger("sqe.fuzz.first", 0);
  private static final boolean STRICT = Boolean.getBoolean("sqe.fuzz.strict");
  private static final boolean VERBOSE = Boolean.getBoolean("sqe.fuzz.verbose");
  private static final boolean TRACE = Boolean.getBoolean("sqe.fuzz.trace");
  /** The server's statement timeout ({@code query.max-run-time}). */
  private static final Duration TIMEOUT = Duration.ofSeconds(3);
  /** How much longer than its timeout a statement may take to answer before it counts as hung. */
  private static final Duration GRACE = Duration.ofSeconds(12);
  /** Statements between two health checks. */
  private static final int BATCH = 100;
  /** Statements between two rebuilds of the scratch table; replays start at a multiple of it. */
  static final int SCRATCH_LIFE = 200;
  private static final int SHRINK_TRIES = 150;
  private static final int SHRINK_CLASSES = 12;
  private static final long F_ROWS = 10;

  @TempDir java.nio.file.Path dir;

  @Test
  void generatedStatementsNeverFailInternallyHangOrStopTheServer() throws Exception {
    long seed = Long.getLong("sqe.fuzz.seed", System.nanoTime());
    System.out.printf("SqlFuzzTest seed: %d (replay with -Dsqe.fuzz.seed=%d -Dsqe.fuzz.statements=%d -Dsqe.fuzz.first=%d)%n",
        seed, seed, STATEMENTS, FIRST);
    long started = System.nanoTime();
    long cpuStarted = cpuNanos();
    FuzzReport report = new FuzzReport(seed, STRICT);
    try (BufferAllocator allocator = new RootAllocator();
        TestServer server = TestServer.start(dir, Map.of("query.max-run-time", TIMEOUT.toMillis() + "ms"));
        StatementRunner runner = new StatementRunner(server, allocator, TIMEOUT.plus(GRACE))) {
      for (String sql : FuzzTables.create()) {
        fixture(runner, sql);
      }
      for (int i = FIRST; i < FIRST + STATEMENTS; i++) {
        if (i == FIRST || i % SCRATCH_LIFE == 0) {
          for (String sql : FuzzTables.reset()) {
            fixture(runner, sql);
          }
        }
        for (FuzzCase c : FuzzCase.of(i, seed)) {
          Outcome outcome = c.mode().equals("session") ? runner.inOtherSession(c.sql()) : runner.run(c.sql(), c.update(), c.path());
          if (TRACE) {
            System.out.printf("#%d %s %s %s %d ms | %s%n", c.index(), c.mode(), c.path(), outcome.errorClass(),
                outcome.elapsed().toMillis(), FuzzReport.abbreviate(c.sql()));
          }
          report.record(c, outcome);
        }
        if ((i + 1 - FIRST) % BATCH == 0 || i + 1 == FIRST + STATEMENTS) {
          healthCheck(server, allocator, i, report);
        }
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      double cpuSeconds = (cpuNanos() - cpuStarted) / 1e9;
      report.print(seconds, cpuSeconds, shrink(runner, report.failures()), VERBOSE);
    }
    assertThat(report.newFailures())
        .as("statements that failed with INTERNAL, UNKNOWN, a broken stream or no answer in time (seed %d); see the report above", seed)
        .isEmpty();
  }

  private static void fixture(StatementRunner runner, String sql) {
    Outcome outcome = runner.run(sql, true, Path.FLIGHT);
    assertThat(outcome.code()).as("fixture statement %s: %s", FuzzReport.abbreviate(sql), outcome.message()).isEqualTo(Outcome.OK);
  }

  /**
   * After each batch: gRPC health says SERVING, a new client logs in and reads the fixture table
   * whole, and no Arrow memory is still held once the batch's statements are over. A server that
   * fails this stops the run, with the figures so far and the replay of the batch.
   */
  private static void healthCheck(TestServer server, BufferAllocator allocator, int last, FuzzReport report) throws Exception {
    try {
      ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
      try {
        assertThat(HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                .check(HealthCheckRequest.getDefaultInstance()).getStatus())
            .as("gRPC health after statement %d", last)
            .isEqualTo(ServingStatus.SERVING);
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      CallOption deadline = CallOptions.timeout(30, TimeUnit.SECONDS);
      try (TestServer.Client fresh = server.client(allocator)) {
        var info = fresh.sql().execute("SELECT count(*) FROM fz.f", fresh.auth(), deadline);
        try (FlightStream stream = fresh.sql().getStream(info.getEndpoints().get(0).getTicket(), fresh.auth(), deadline)) {
          assertThat(stream.next()).isTrue();
          assertThat(stream.getRoot().getVector(0).getObject(0)).as("rows of the fixture table after statement %d", last).isEqualTo(F_ROWS);
        }
      }
      long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (server.server().arrowAllocatedBytes() > 0 && System.nanoTime() < waitUntil) {
        Thread.sleep(20);
      }
      assertThat(server.server().arrowAllocatedBytes()).as("Arrow bytes the server still holds after statement %d", last).isZero();
    } catch (AssertionError | RuntimeException e) {
      System.out.printf("The server failed its health check after statement %d; replay with %s%n", last, report.replay(last));
      throw e;
    }
  }

  /** Shrinks the first failure of each class (new classes first; known ones too when verbose). */
  private static List<String> shrink(StatementRunner runner, List<FuzzReport.Failure> failures) {
    Map<String, FuzzReport.Failure> firsts = new LinkedHashMap<>();
    failures.stream().filter(f -> f.known() == null).forEach(f -> firsts.putIfAbsent(f.outcome().errorClass(), f));
    if (VERBOSE) {
      failures.stream().filter(f -> f.known() != null).forEach(f -> firsts.putIfAbsent(f.outcome().errorClass(), f));
    }
    List<String> reproducers = new ArrayList<>();
    for (FuzzReport.Failure failure : firsts.values().stream().limit(SHRINK_CLASSES).toList()) {
      FuzzCase c = failure.c();
      String smallest = c.sql();
      // A hang costs a whole deadline per try, and a session statement needs its session's state.
      if (!failure.outcome().code().equals(Outcome.CLIENT_DEADLINE) && !c.mode().equals("session")) {
        String errorClass = failure.outcome().errorClass();
        smallest = new Shrinker(
            candidate -> runner.run(candidate, c.update(), c.path()).errorClass().equals(errorClass), SHRINK_TRIES).shrink(c.sql());
      }
      reproducers.add(String.format("statement %d (%s, %s%s) %s%n    %s", c.index(), c.mode(), c.path(),
          failure.known() == null ? "" : ", known: " + failure.known().item(), failure.outcome().errorClass(),
          FuzzReport.abbreviate(smallest)));
    }
    return reproducers;
  }

  /** The CPU time of this JVM (server and clients), which a busy machine inflates less than wall time. */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}

package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A query over its {@code query.max-memory} fails with RESOURCE_EXHAUSTED, releases everything it
 * held, and the server goes on serving; the server's root allocator reports any leak on close.
 */
class MemoryLimitTest {
  private static final Schema NUMBERS =
      new Schema(
          Types.NestedField.required(1, "n", Types.LongType.get()),
          Types.NestedField.required(2, "label", Types.StringType.get()));
  private static final int ROWS = 20_000;
  private static final int BIG = 6 * ROWS;

  @TempDir Path dir;

  private static String label(long n) {
    return String.format("label-%094d", n);
  }

  /** A label of 1,500 characters: 4,096 of them, one batch, take 6 MB. */
  private static String wideLabel(long n) {
    return String.format("label-%01494d", n);
  }

  private TestServer start(String maxMemory) {
    TestServer server = TestServer.start(dir, Map.of("query.max-memory", maxMemory));
    create(server, "numbers", ROWS, MemoryLimitTest::label);
    return server;
  }

  private static void create(TestServer server, String table, int count, java.util.function.LongFunction<String> labels) {
    List<Record> rows = new ArrayList<>();
    for (long n = 0; n < count; n++) {
      Record r = GenericRecord.create(NUMBERS);
      r.setField("n", n);
      r.setField("label", labels.apply(n));
      rows.add(r);
    }
    TestTables.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", table, NUMBERS, rows, count);
  }

  @Test
  void aQueryOverItsLimitFailsAndTheServerKeepsServing() throws Exception {
    // 4 MiB: a columnar batch of 4,096 longs alone takes 64 KiB, a result batch up to 2 MB, one
    // batch of wide labels 6 MB.
    TestServer server = start("4m");
    create(server, "wide", 8192, MemoryLimitTest::wideLabel);
    create(server, "few", 100, MemoryLimitTest::label);
    try (RootAllocator allocator = new RootAllocator();
        TestServer.Client client = server.client(allocator)) {
      // 12 MB of labels, a batch of them more than the query may hold at once.
      FlightInfo info = client.sql().execute("select n, label from s.wide", client.auth());
      assertThatThrownBy(() -> drain(client, info))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
            assertThat(e.getMessage()).contains("exceeded its memory limit");
          });
      RunningQueries.awaitNone(server, Duration.ofSeconds(10));

      // The same server, right after: small results are fine.
      FlightInfo count = client.sql().execute("select count(*), sum(n) from s.numbers", client.auth());
      try (FlightStream stream = client.sql().getStream(count.getEndpoints().get(0).getTicket(), client.auth())) {
        assertThat(stream.next()).isTrue();
        assertThat(((BigIntVector) stream.getRoot().getVector(0)).get(0)).isEqualTo(ROWS);
        assertThat(((BigIntVector) stream.getRoot().getVector(1)).get(0)).isEqualTo((long) ROWS * (ROWS - 1) / 2);
      }
      FlightInfo few = client.sql().execute("select n, label from s.few order by n", client.auth());
      try (FlightStream stream = client.sql().getStream(few.getEndpoints().get(0).getTicket(), client.auth())) {
        long n = 0;
        while (stream.next()) {
          VarCharVector labels = (VarCharVector) stream.getRoot().getVector("label");
          for (int i = 0; i < stream.getRoot().getRowCount(); i++, n++) {
            assertThat(labels.getObject(i).toString()).isEqualTo(label(n));
          }
        }
        assertThat(n).isEqualTo(100);
      }
    }

    // Through JDBC the error is the same.
    try (Connection connection =
            DriverManager.getConnection(server.jdbcUrl() + "&user=admin&password=" + server.adminPassword());
        Statement statement = connection.createStatement()) {
      assertThatThrownBy(() -> {
            try (ResultSet rs = statement.executeQuery("select label from s.wide")) {
              while (rs.next()) {
                rs.getString(1);
              }
            }
          })
          // The driver wraps an error that ends the first batch in an SQLException, and lets one
          // that arrives mid-stream through as it is: either way it names the limit and the status.
          .satisfies(e -> {
            assertThat(e.getMessage()).contains("exceeded its memory limit");
            assertThat(e.toString() + e.getCause()).contains("RESOURCE_EXHAUSTED");
          });
      try (ResultSet rs = statement.executeQuery("select count(*) from s.numbers")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(ROWS);
      }
    }
    RunningQueries.awaitNone(server, Duration.ofSeconds(10));
    assertThatCode(server::close).doesNotThrowAnyException();
  }

  @Test
  void joinsOverTheLimitFailWhileAnotherSessionKeepsAnswering() throws Exception {
    // Each side of the join holds about 2 MB of labels: the build side cannot fit in 1 MiB.
    TestServer server = start("1m");
    String url = server.jdbcUrl() + "&user=admin&password=" + server.adminPassword();
    try (Connection other = DriverManager.getConnection(url);
        Statement reading = other.createStatement();
        Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      // Another session's query, started before the join and read to its end after it failed.
      try (ResultSet numbers = reading.executeQuery("select n from s.numbers")) {
        long rows = 0;
        long sum = 0;
        assertThat(numbers.next()).isTrue();
        rows++;
        sum += numbers.getLong(1);
        assertThatThrownBy(() -> {
              try (ResultSet rs = statement.executeQuery("select a.label, b.label from s.numbers a cross join s.numbers b")) {
                while (rs.next()) {
                  rs.getString(1);
                }
              }
            })
            .isInstanceOfSatisfying(SQLException.class, e -> {
              assertThat(e.getMessage()).contains("NestedLoopJoin build side exceeded query.max-memory (1 MiB)");
              assertThat(String.valueOf(e.getCause())).contains("RESOURCE_EXHAUSTED");
            });
        while (numbers.next()) {
          rows++;
          sum += numbers.getLong(1);
        }
        assertThat(rows).isEqualTo(ROWS);
        assertThat(sum).isEqualTo((long) ROWS * (ROWS - 1) / 2);
      }
      // The failed session goes on too.
      try (ResultSet rs = statement.executeQuery("select a.n, b.n from s.numbers a cross join s.numbers b where a.n < 3 and b.n < 4")) {
        int rows = 0;
        while (rs.next()) {
          rows++;
        }
        assertThat(rows).isEqualTo(12);
      }
    }
    RunningQueries.awaitNone(server, Duration.ofSeconds(10));
    assertThatCode(server::close).doesNotThrowAnyException();
  }

  @Test
  void anUpdateWhoseChangedRowsDoNotFitFailsAndLeavesTheTableAsItWas() throws Exception {
    // 4 MiB: each of the 120,000 updated rows holds its new value on the heap until the files
    // are rewritten, about 23 MB in all, which counts against the limit.
    TestServer server = start("4m");
    create(server, "big", BIG, MemoryLimitTest::label);
    String url = server.jdbcUrl() + "&user=admin&password=" + server.adminPassword();
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      assertThatThrownBy(() -> statement.executeUpdate("UPDATE s.big SET label = 'x'"))
          .isInstanceOfSatisfying(SQLException.class, e -> {
            assertThat(e.getMessage()).contains("UPDATE of").contains("query.max-memory");
            assertThat(e.toString() + e.getCause()).contains("RESOURCE_EXHAUSTED");
          });
      try (ResultSet rs = statement.executeQuery("select count(*), count_if(label = 'x'), sum(n) from s.big")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(BIG);
        assertThat(rs.getLong(2)).isZero();
        assertThat(rs.getLong(3)).isEqualTo((long) BIG * (BIG - 1) / 2);
      }
      // Under the same limit, an UPDATE of a few rows rewrites their file and commits.
      assertThat(statement.executeUpdate("UPDATE s.big SET label = 'x' WHERE n < 1000")).isEqualTo(1000);
      try (ResultSet rs = statement.executeQuery("select count(*), count_if(label = 'x') from s.big")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(BIG);
        assertThat(rs.getLong(2)).isEqualTo(1000);
      }
    }
    RunningQueries.awaitNone(server, Duration.ofSeconds(10));
    assertThatCode(server::close).doesNotThrowAnyException();
  }

  /** A table of {@code count} rows whose n is 7 in every row. */
  private static void createOneKey(TestServer server, String table, int count) {
    List<Record> rows = new ArrayList<>();
    for (long n = 0; n < count; n++) {
      Record r = GenericRecord.create(NUMBERS);
      r.setField("n", 7L);
      r.setField("label", label(n));
      rows.add(r);
    }
    TestTables.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", table, NUMBERS, rows, count);
  }

  @Test
  void aHashJoinSpillsAndOneThatCanNeverFitFailsWhileAnotherSessionKeepsAnswering() throws Exception {
    // 120,000 rows of 100-character labels, about 14 MB a side: far past 8 MiB.
    TestServer server = start("8m");
    create(server, "big", BIG, MemoryLimitTest::label);
    createOneKey(server, "same", BIG);
    String url = server.jdbcUrl() + "&user=admin&password=" + server.adminPassword();
    try (Connection other = DriverManager.getConnection(url);
        Statement reading = other.createStatement();
        Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      // Spilled by key to 16 partitions, each of which fits: every row once.
      try (ResultSet rs = statement.executeQuery("select a.n, a.label, b.label from s.big a join s.big b on a.n = b.n")) {
        long rows = 0;
        long sum = 0;
        while (rs.next()) {
          assertThat(rs.getString(3)).isEqualTo(rs.getString(2));
          rows++;
          sum += rs.getLong(1);
        }
        assertThat(rows).isEqualTo(BIG);
        assertThat(sum).isEqualTo((long) BIG * (BIG - 1) / 2);
      }
      // Every row of one key: splitting by key never makes it smaller, so it fails, and another
      // session's query, started before it, is read to its end after.
      try (ResultSet numbers = reading.executeQuery("select n from s.numbers")) {
        long rows = 0;
        assertThat(numbers.next()).isTrue();
        rows++;
        assertThatThrownBy(() -> {
              try (ResultSet rs = statement.executeQuery("select a.label, b.label from s.same a join s.same b on a.n = b.n")) {
                while (rs.next()) {
                  rs.getString(1);
                }
              }
            })
            .isInstanceOfSatisfying(SQLException.class, e -> {
              assertThat(e.getMessage()).contains("HashJoin build side exceeded query.max-memory (8 MiB)").contains("split 4 times by key");
              assertThat(String.valueOf(e.getCause())).contains("RESOURCE_EXHAUSTED");
            });
        while (numbers.next()) {
          rows++;
        }
        assertThat(rows).isEqualTo(ROWS);
      }
      try (ResultSet rs = statement.executeQuery("select count(*) from s.big")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(BIG);
      }
    }
    RunningQueries.awaitNone(server, Duration.ofSeconds(10));
    assertThatCode(server::close).doesNotThrowAnyException();
  }

  @Test
  void anAggregateThatCanNeitherFitNorSpillFailsWhileAnotherSessionKeepsAnswering() throws Exception {
    // 20,000 groups of 100-character labels take more than the aggregate's share of 4 MiB; their
    // rows take more than the 64 KiB the query may spill.
    TestServer server = TestServer.start(dir, Map.of("query.max-memory", "4m", "query.max-spill", "64k"));
    create(server, "numbers", ROWS, MemoryLimitTest::label);
    String url = server.jdbcUrl() + "&user=admin&password=" + server.adminPassword();
    try (Connection other = DriverManager.getConnection(url);
        Statement reading = other.createStatement();
        Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      try (ResultSet numbers = reading.executeQuery("select n from s.numbers")) {
        long rows = 0;
        long sum = 0;
        assertThat(numbers.next()).isTrue();
        rows++;
        sum += numbers.getLong(1);
        assertThatThrownBy(() -> {
              try (ResultSet rs = statement.executeQuery("select label, count(*), max(n) from s.numbers group by label")) {
                while (rs.next()) {
                  rs.getString(1);
                }
              }
            })
            .isInstanceOfSatisfying(SQLException.class, e -> {
              assertThat(e.getMessage()).contains("HashAggregate could not spill", "query.max-spill");
              assertThat(String.valueOf(e.getCause())).contains("RESOURCE_EXHAUSTED");
            });
        while (numbers.next()) {
          rows++;
          sum += numbers.getLong(1);
        }
        assertThat(rows).isEqualTo(ROWS);
        assertThat(sum).isEqualTo((long) ROWS * (ROWS - 1) / 2);
      }
      // The failed session goes on, and a smaller aggregate spills within the limits.
      try (ResultSet rs = statement.executeQuery("select n % 10, count(*) from s.numbers group by n % 10")) {
        int groups = 0;
        while (rs.next()) {
          assertThat(rs.getLong(2)).isEqualTo(ROWS / 10);
          groups++;
        }
        assertThat(groups).isEqualTo(10);
      }
    }
    RunningQueries.awaitNone(server, Duration.ofSeconds(10));
    try (java.util.stream.Stream<Path> spills = Files.list(dir.resolve("spill"))) {
      assertThat(spills).as("the failed query spilled, and left nothing").isEmpty();
    }
    assertThatCode(server::close).doesNotThrowAnyException();
  }

  @Test
  void closingTheServerReportsALeakedBuffer() {
    TestServer server = start("1m");
    // Left unreleased on purpose: once the allocator is closed, the buffer cannot go back to it.
    ArrowBuf leaked = server.server().allocator().buffer(64);
    assertThat(leaked.capacity()).isEqualTo(64);
    assertThatThrownBy(server::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Memory was leaked");
  }

  private static void drain(TestServer.Client client, FlightInfo info) throws Exception {
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      while (stream.next()) {
        // read everything
      }
    }
  }
}

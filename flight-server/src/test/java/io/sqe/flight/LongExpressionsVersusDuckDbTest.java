package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TpchHarness;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Long chains of AND, OR, {@code ||} and {@code +}, as BI tools write them by the thousand, plan
 * and answer as DuckDB does over the same Parquet files (TPC-H at scale 0.01), or as recomputed
 * here; deeper nesting fails with INVALID_ARGUMENT. Either way a statement writes at most a few
 * lines to the server's log, none with a stack trace. Before, a 500-term OR overflowed the stack
 * and logged each of its thousands of frames, several times over; the timeout only guards against
 * a hang.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LongExpressionsVersusDuckDbTest extends TpchHarness {
  /** "A few lines" of log per statement. */
  private static final int MAX_LOG_LINES = 3;

  private final BufferAllocator allocator = new RootAllocator();
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    open(dir, Map.of());
  }

  @AfterAll
  void stop() throws Exception {
    close();
    allocator.close();
  }

  @BeforeEach
  void captureLog() {
    log.list.clear();
    log.start();
    root().addAppender(log);
  }

  @AfterEach
  void stopCapture() {
    root().detachAppender(log);
    log.stop();
  }

  @Test
  void orChainsOfEqualitiesOnOneColumn() throws Exception {
    for (int terms : new int[] {500, 5_000}) {
      compare(terms + " ORs", "select count(*), sum(o_totalprice) from orders where " + chain(terms, " or ", i -> "o_custkey = " + (3 * i + 1)));
    }
    assertFewLogLines();
  }

  @Test
  void andChainsOfInequalities() throws Exception {
    for (int terms : new int[] {1_000, 5_000}) {
      compare(terms + " ANDs", "select count(*), sum(o_totalprice) from orders where " + chain(terms, " and ", i -> "o_custkey <> " + (2 * i + 1)));
    }
    assertFewLogLines();
  }

  @Test
  void orsOfConjunctionsOverSeveralColumns() throws Exception {
    IntFunction<String> pair = i -> "(o_custkey = " + (i + 1) + " and o_orderstatus = '" + "FOP".charAt(i % 3) + "')";
    for (int terms : new int[] {500, 5_000}) {
      compare(terms + " pairs", "select count(*), sum(o_totalprice) from orders where " + chain(terms, " or ", pair));
    }
    // As a value: TRUE, FALSE or NULL (a NULL key matching on the other column is unknown).
    compare("pairs as a value",
        "select o_orderkey, " + chain(2_000, " or ", i -> "(k = " + (i + 1) + " and o_orderstatus = '" + "FOP".charAt(i % 3) + "')")
            + " from (select o_orderkey, o_orderstatus, case when o_orderkey % 4 = 0 then null else o_custkey end as k from orders) t"
            + " order by o_orderkey limit 500");
    // Branches on different columns and ranges (at most 256 BETWEENs in a row).
    compare("mixed branches", "select count(*) from lineitem where "
        + chain(750, " or ", i -> i % 3 == 0 ? "l_partkey = " + i : i % 3 == 1 ? "l_suppkey = " + i : "l_orderkey between " + 20 * i + " and " + (20 * i + 3)));
    assertFewLogLines();
  }

  @Test
  void longArithmeticAndConcatenation() throws Exception {
    assertThat(rows("select " + chain(5_000, " + ", i -> "1"))).containsExactly(List.of(5_000L));
    assertThat(rows("select char_length(" + chain(3_000, " || ", i -> "'x'") + ")")).containsExactly(List.of(3_000L));
    // Not regrouped (columns), so as deep as it is long: 900 levels are allowed.
    List<List<Object>> expected = rows("select sum(o_orderkey) - 900 * count(*) from orders");
    assertThat(rows("select sum(o_orderkey" + " - 1".repeat(900) + ") from orders")).isEqualTo(expected);
    assertFewLogLines();
  }

  @Test
  void deeperNestingFailsWithInvalidArgument() throws Exception {
    try (TestServer.Client client = server.client(allocator)) {
      for (String sql : List.of(
          "select sum(o_orderkey" + " - 1".repeat(2_000) + ") from orders",
          "select " + "abs(".repeat(1_500) + "o_orderkey" + ")".repeat(1_500) + " from orders",
          "select " + "(".repeat(5_000) + "1" + ")".repeat(5_000),
          "select count(*) from orders where " + chain(15_000, " or ", i -> "o_custkey = " + i))) {
        log.list.clear();
        assertThatThrownBy(() -> client.sql().execute(sql, client.auth()))
            .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
              assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
              assertThat(e.getMessage()).containsAnyOf("levels deep", "operators in a row");
            });
        assertFewLogLines();
      }
    }
  }

  private static String chain(int terms, String operator, IntFunction<String> term) {
    return IntStream.range(0, terms).mapToObj(term).collect(Collectors.joining(operator));
  }

  private List<List<Object>> rows(String sql) throws Exception {
    try (Statement s = sqe.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return io.sqe.flight.testing.ResultComparison.rows(rs).stream()
          .map(row -> row.stream().map(v -> v instanceof java.math.BigDecimal ? (Object) ((java.math.BigDecimal) v).longValueExact() : v).toList())
          .toList();
    }
  }

  /** Every statement since the last check wrote at most a few lines to the log, none with a stack trace. */
  private void assertFewLogLines() {
    List<ILoggingEvent> events = List.copyOf(log.list);
    assertThat(events).as("log events").hasSizeLessThanOrEqualTo(MAX_LOG_LINES);
    assertThat(events).allSatisfy(e -> {
      assertThat(e.getThrowableProxy()).as("stack trace of %s", e.getFormattedMessage()).isNull();
      assertThat(e.getFormattedMessage().lines().count()).isEqualTo(1);
    });
    log.list.clear();
  }

  private static Logger root() {
    return ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }
}

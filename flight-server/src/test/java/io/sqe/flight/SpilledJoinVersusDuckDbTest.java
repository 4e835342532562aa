package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TpchHarness;
import io.sqe.flight.testing.TrailerCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hash joins whose build side is all of TPC-H 0.05's lineitem (300,000 rows), or most of it, under
 * a {@code query.max-memory} of 16 MiB, which they pass and so spill (the metric {@code
 * sqe_spill_bytes_total} grows, the trailers count the bytes): INNER, LEFT, RIGHT and FULL joins on
 * numeric and text keys, several keys, NULL keys and residual conditions give DuckDB's rows over
 * the same Parquet files, and the spill directory is empty after each query. SEMI and ANTI joins
 * under the same limit give DuckDB's rows too (JoinBatchesTest spills every type).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpilledJoinVersusDuckDbTest extends TpchHarness {
  /** lineitem with a NULL key in one row of every few, on the order and on the comment. */
  private static final String HOLED =
      "(select case when l_linenumber = 2 then null else l_orderkey end as k, "
          + "case when l_linenumber = 3 then null else l_comment end as c, "
          + "l_linenumber as n, l_quantity as q, l_extendedprice as p from lineitem)";

  private Path spill;

  /** Joins whose build side passes the operator's budget: they spill. */
  static Stream<String> spilling() {
    return Stream.of(
        // INNER on two numeric keys with a residual condition.
        "select count(*), sum(a.l_extendedprice), sum(b.l_quantity) from lineitem a join lineitem b"
            + " on a.l_orderkey = b.l_orderkey and a.l_linenumber = b.l_linenumber and a.l_partkey <> b.l_suppkey",
        // INNER on a text key and a numeric one, rows returned.
        "select a.l_orderkey, a.l_linenumber, b.l_orderkey, b.l_linenumber from lineitem a join lineitem b"
            + " on a.l_comment = b.l_comment and a.l_shipmode = b.l_shipmode and a.l_orderkey < b.l_orderkey"
            + " order by 1, 2, 3, 4",
        // LEFT with NULL keys on both sides and a residual condition.
        "select count(*), count(b.k), sum(b.q), sum(a.p) from " + HOLED + " a left join " + HOLED + " b"
            + " on a.k = b.k and a.n = b.n + 1 and b.q > 10",
        // FULL on a numeric key with NULLs.
        "select count(*), count(a.k), count(b.k), sum(a.q), sum(b.q) from " + HOLED + " a full join " + HOLED + " b"
            + " on a.k = b.k and a.n = b.n - 1",
        // RIGHT on a numeric key and a text key, both with NULLs.
        "select count(*), count(a.k), count(b.c), sum(a.q), sum(b.p) from " + HOLED + " a right join " + HOLED + " b"
            + " on a.k = b.k and a.c = b.c");
  }

  /**
   * Joins the planner gives a build side that fits (a semi or anti join keeps its keys alone, or
   * the planner reduces the other side first): the same rows as DuckDB's, spilled or not.
   */
  static Stream<String> others() {
    return Stream.of(
        // SEMI through IN, on a text key.
        "select count(*), sum(l_quantity) from lineitem where l_comment in"
            + " (select l_comment from lineitem where l_linenumber > 1)",
        // ANTI through NOT EXISTS, with a residual condition.
        "select count(*), sum(a.l_quantity) from lineitem a where not exists (select * from lineitem b"
            + " where b.l_orderkey = a.l_orderkey and b.l_linenumber = a.l_linenumber + 1"
            + " and b.l_quantity > a.l_quantity and b.l_comment <> a.l_comment)");
  }

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    spill = dir.resolve("spill");
    open(dir, Map.of("query.max-memory", "16m", "sample-data.tpch-scale", "0.05"));
  }

  @AfterAll
  void stop() throws Exception {
    close();
  }

  @ParameterizedTest
  @MethodSource("spilling")
  void spilledJoinMatchesDuckDbAndLeavesNoFile(String sql) throws Exception {
    double spilledBefore = spilledBytes();
    compare(sql, sql);
    assertThat(spilledBytesAbove(spilledBefore)).as(sql).isGreaterThan(spilledBefore);
    assertThat(entries()).as(sql).isEmpty();
  }


  @ParameterizedTest
  @MethodSource("others")
  void otherJoinsUnderTheLimitMatchDuckDb(String sql) throws Exception {
    compare(sql, sql);
    assertThat(entries()).as(sql).isEmpty();
  }

  @Test
  void trailersCountTheBytesSpilled() throws Exception {
    TrailerCapture trailers = new TrailerCapture();
    try (RootAllocator allocator = new RootAllocator();
        FlightClient flight = FlightClient.builder(allocator, server.server().location()).intercept(trailers).build()) {
      CallOption auth = flight.authenticateBasicToken("admin", server.adminPassword()).orElseThrow();
      FlightSqlClient client = new FlightSqlClient(flight);
      FlightInfo info = client.execute(
          "select count(*) from tpch.lineitem a join tpch.lineitem b on a.l_orderkey = b.l_orderkey and a.l_linenumber = b.l_linenumber",
          auth);
      try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(), auth)) {
        while (stream.next()) {
          // read everything
        }
      }
    }
    assertThat(Long.parseLong(trailers.lastDoGet().get("x-sqe-spilled-bytes"))).isPositive();
    assertThat(Long.parseLong(trailers.lastDoGet().get("x-sqe-spill-files"))).isPositive();
    assertThat(entries()).isEmpty();
  }


  private Stream<Path> entries() throws java.io.IOException {
    if (!Files.exists(spill)) {
      return Stream.of();
    }
    try (Stream<Path> entries = Files.list(spill)) {
      return entries.toList().stream();
    }
  }
}

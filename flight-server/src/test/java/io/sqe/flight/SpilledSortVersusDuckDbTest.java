package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TpchHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ORDER BYs of all of TPC-H 0.01's lineitem under a {@code query.max-memory} of 16 MiB, which the
 * columnar sort exceeds and spills (the metric {@code sqe_spill_bytes_total} grows): the rows match
 * DuckDB's, the spill directory under the data directory is empty after each query, and what a
 * crashed server left there is gone at start.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpilledSortVersusDuckDbTest extends TpchHarness {
  private Path spill;

  static Stream<String> queries() {
    return Stream.of(
        "select * from lineitem order by l_shipdate, l_orderkey, l_linenumber",
        "select * from lineitem order by l_comment, l_extendedprice desc, l_orderkey, l_linenumber");
  }

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    spill = dir.resolve("spill");
    Path leftover = Files.createDirectories(spill.resolve("query-crashed-1"));
    Files.writeString(leftover.resolve("run-1.arrow"), "rows of a crashed run");
    open(dir, Map.of("query.max-memory", "16m"));
    assertThat(leftover).doesNotExist();
  }


  @AfterAll
  void stop() throws Exception {
    close();
  }

  @ParameterizedTest
  @MethodSource("queries")
  void spilledSortMatchesDuckDbAndLeavesNoFile(String sql) throws Exception {
    double spilledBefore = spilledBytes();
    compare(sql, sql);
    assertThat(spilledBytesAbove(spilledBefore)).as(sql).isGreaterThan(spilledBefore);
    try (Stream<Path> entries = Files.list(spill)) {
      assertThat(entries).as(sql).isEmpty();
    }
  }
}

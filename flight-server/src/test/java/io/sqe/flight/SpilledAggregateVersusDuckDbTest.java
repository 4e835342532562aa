package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.ResultComparison;
import io.sqe.flight.testing.TestTables;
import io.sqe.flight.testing.TpchHarness;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * GROUP BYs of 200,000 and more groups (text and integer keys with NULLs) under a {@code
 * query.max-memory} of 16 MiB, which the columnar hash aggregate exceeds and spills (the metric
 * {@code sqe_spill_bytes_total} grows): the groups match DuckDB's over the same Parquet files, and
 * the spill directory under the data directory is empty after each query.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpilledAggregateVersusDuckDbTest extends TpchHarness {
  private static final int ROWS = 250_000;
  private static final int GROUPS = 200_000;
  private static final Schema KEYED = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "tkey", Types.StringType.get()),
      Types.NestedField.optional(3, "nkey", Types.IntegerType.get()),
      Types.NestedField.optional(4, "qty", Types.IntegerType.get()),
      Types.NestedField.optional(5, "amount", Types.DecimalType.of(12, 2)),
      Types.NestedField.optional(6, "price", Types.DoubleType.get()),
      Types.NestedField.optional(7, "label", Types.StringType.get()));
  private Path spill;

  static Stream<String> queries() {
    return Stream.of(
        "select tkey, nkey, count(*), count(qty), sum(qty), sum(amount), sum(price), min(label), max(label), min(amount), max(price)"
            + " from keyed group by tkey, nkey",
        "select id % 200000 as k, count(*), sum(amount), max(label) from keyed group by id % 200000",
        "select label, count(*), avg(price), min(nkey) from keyed group by label");
  }

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    spill = dir.resolve("spill");
    open(dir, Map.of("query.max-memory", "16m"));
    LakehouseCatalog catalog = server.server().catalogs().find("iceberg").orElseThrow();
    List<Record> rows = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      int g = n % GROUPS;
      Record r = GenericRecord.create(KEYED);
      r.setField("id", (long) n);
      r.setField("tkey", g % 101 == 0 ? null : "key-" + g / 7);
      r.setField("nkey", g % 103 == 0 ? null : g % 7);
      r.setField("qty", n % 17 == 0 ? null : n % 50);
      r.setField("amount", n % 19 == 0 ? null : BigDecimal.valueOf(n * 37L % 1_000_000, 2));
      r.setField("price", n % 23 == 0 ? null : n / 7.0);
      r.setField("label", n % 29 == 0 ? null : "label " + (n * 7919L % 1_000_003));
      rows.add(r);
    }
    Table table = TestTables.create(catalog, "tpch", "keyed", KEYED, rows, 100_000);
    viewInDuckDb("keyed", table, location -> location.replaceFirst("^file:", ""));
  }

  @AfterAll
  void stop() throws Exception {
    close();
  }

  @ParameterizedTest
  @MethodSource("queries")
  void spilledAggregateMatchesDuckDbAndLeavesNoFile(String sql) throws Exception {
    double spilledBefore = spilledBytes();
    List<List<Object>> expected = sortedByKeys(duckdb, sql);
    List<List<Object>> actual = sortedByKeys(sqe, sql);
    assertThat(expected.size()).as(sql).isGreaterThan(25_000);
    ResultComparison.assertSameRows(sql, actual, expected);
    assertThat(spilledBytesAbove(spilledBefore)).as(sql).isGreaterThan(spilledBefore);
    try (Stream<Path> entries = Files.list(spill)) {
      assertThat(entries).as(sql).isEmpty();
    }
  }

  /** The rows of {@code sql}, ordered by their key columns (those before the first count). */
  private static List<List<Object>> sortedByKeys(java.sql.Connection connection, String sql) throws Exception {
    int keys = sql.startsWith("select tkey, nkey") ? 2 : 1;
    List<List<Object>> rows;
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rows = new ArrayList<>(ResultComparison.rows(rs));
    }
    rows.sort(Comparator.comparing(row -> String.valueOf(row.subList(0, keys))));
    return rows;
  }

}

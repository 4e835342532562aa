package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.TestTables;
import io.sqe.flight.testing.TpchHarness;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * GROUP BYs of few short keys (dictionary-encoded text in the Parquet files, SMALLINT, BOOLEAN,
 * all with NULLs), which the columnar aggregate groups by their packed values, against DuckDB over
 * the same files: TPC-H Q1's shape, several key types together, 5,000 short keys (more than the
 * aggregate keeps packed) and text that grows longer than the first batch's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LowCardinalityAggregateVersusDuckDbTest extends TpchHarness {
  private static final int ROWS = 300_000;
  private static final Schema FLAGS = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "flag", Types.StringType.get()),
      Types.NestedField.optional(3, "status", Types.StringType.get()),
      Types.NestedField.optional(4, "small", Types.IntegerType.get()),
      Types.NestedField.optional(5, "flagged", Types.BooleanType.get()),
      Types.NestedField.required(6, "code", Types.StringType.get()),
      Types.NestedField.optional(7, "label", Types.StringType.get()),
      Types.NestedField.optional(8, "qty", Types.DecimalType.of(15, 2)),
      Types.NestedField.required(9, "price", Types.DecimalType.of(15, 2)),
      Types.NestedField.required(10, "disc", Types.DecimalType.of(15, 2)));

  static Stream<String> queries() {
    return Stream.of(
        "select flag, status, sum(qty) as sum_qty, sum(price) as sum_price, sum(price * (1 - disc)) as sum_disc_price,"
            + " sum(price * (1 - disc) * (1 + disc)) as sum_charge, avg(qty) as avg_qty, count(*) as n"
            + " from flags where id % 10 <> 3 group by flag, status order by flag nulls first, status nulls first",
        "select small, flag, flagged, count(*) as n, count(qty) as nq, sum(qty) as s, min(price) as lo, max(status) as hi"
            + " from flags group by small, flag, flagged order by small nulls first, flag nulls first, flagged nulls first",
        "select code, count(*) as n, sum(price) as s from flags group by code order by code",
        "select label, status, count(*) as n, sum(qty) as s from flags group by label, status order by label nulls first, status nulls first");
  }

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    open(dir, Map.of());
    LakehouseCatalog catalog = server.server().catalogs().find("iceberg").orElseThrow();
    String[] flags = {"A", "N", "R", ""};
    List<Record> rows = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      Record r = GenericRecord.create(FLAGS);
      r.setField("id", (long) n);
      r.setField("flag", n % 13 == 0 ? null : flags[n * 7 % 4]);
      r.setField("status", n % 17 == 0 ? null : n % 3 == 0 ? "O" : "F");
      r.setField("small", n % 11 == 0 ? null : n % 5 - 2);
      r.setField("flagged", n % 7 == 0 ? null : n % 2 == 0);
      r.setField("code", "c" + n * 7919 % 5000);
      // Short in the first file, longer than seven bytes in part of the later ones.
      r.setField("label", n % 19 == 0 ? null : n < 100_000 || n % 3 != 0 ? "x" + n % 3 : "a longer label " + n % 4);
      r.setField("qty", n % 23 == 0 ? null : BigDecimal.valueOf(n % 5000 + 100, 2));
      r.setField("price", BigDecimal.valueOf(n * 37L % 10_000_000 + 90_000, 2));
      r.setField("disc", BigDecimal.valueOf(n % 11, 2));
      rows.add(r);
    }
    Table table = TestTables.create(catalog, "tpch", "flags", FLAGS, rows, 100_000);
    viewInDuckDb("flags", table, location -> location.replaceFirst("^file:", ""));
  }

  @AfterAll
  void stop() throws Exception {
    close();
  }

  @ParameterizedTest
  @MethodSource("queries")
  void groupsOfPackedKeysMatchDuckDb(String sql) throws Exception {
    assertThat(explain(sql)).as(sql).contains("SqeAggregate").doesNotContain("Enumerable");
    compare(sql, sql);
  }
}

package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.TestQueries.Result;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.assertj.core.data.Percentage;

/** Runs statements on the columnar operators and on Calcite's row runtime and asserts the same rows. */
final class RowRuntimeComparison {
  private final QueryEngine engine;
  private final Session session;

  RowRuntimeComparison(QueryEngine engine, Session session) {
    this.engine = engine;
    this.session = session;
  }

  /** Asserts that {@code sql} plans only SQE nodes, among them {@code node}. */
  void assertColumnar(String sql, String node) {
    assertThat(TestQueries.plan(engine, session, sql)).as(sql).contains(node).doesNotContain("Enumerable");
  }

  /**
   * Runs {@code sql} on both runtimes; both give the same rows, in any order, floating-point
   * values equal to 10 significant digits (sums may add in another order).
   */
  Result matchesRowRuntime(String sql) {
    Result columnar = TestQueries.run(engine, session, sql);
    Result rows = TestQueries.run(engine, TestOptions.set(session, PlannerOptions.COLUMNAR, false), sql);
    List<List<Object>> expected = TestQueries.sorted(rows.rows());
    List<List<Object>> actual = TestQueries.sorted(columnar.rows());
    assertThat(actual).as(sql).hasSameSizeAs(expected);
    for (int r = 0; r < actual.size(); r++) {
      for (int c = 0; c < actual.get(r).size(); c++) {
        Object a = actual.get(r).get(c);
        Object e = expected.get(r).get(c);
        if (a instanceof Double x && e instanceof Double y && !x.equals(y)) {
          assertThat(x).as("%s row %s", sql, r).isCloseTo(y, Percentage.withPercentage(1e-8));
        } else {
          assertThat(a).as("%s row %s column %s", sql, r, c).isEqualTo(e);
        }
      }
    }
    return columnar;
  }

  /** Table {@code s.name} of {@code rows} {@link TypedRows}, in files of at most 6,000 rows. */
  static void typedTable(EmbeddedLake lake, String name, int from, int rows) {
    Table table = lake.catalog().iceberg().createTable(
        TableIdentifier.of("s", name), TypedRows.SCHEMA, PartitionSpec.unpartitioned(), Map.of("write.parquet.dict-size-bytes", "4096"));
    List<Record> records = new ArrayList<>();
    for (int n = from; n < from + rows; n++) {
      records.add(TypedRows.row(n));
      if (records.size() == 6000 || n == from + rows - 1) {
        TestTables.appendFile(table, records);
        records = new ArrayList<>();
      }
    }
  }
}

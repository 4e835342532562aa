package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sqe.engine.session.Session;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * INTERSECT, EXCEPT (ALL and DISTINCT) and UNION DISTINCT run on SQE's columnar operators and return
 * the rows of Calcite's row runtime: rows of several types, NULLs equal, duplicates counted, empty
 * inputs. The lake's allocator, closed after each test, fails on any buffer a query left behind.
 */
class ColumnarSetOperationsTest {
  private static final String COLUMNS = "b, i, color, amount, ship_day, stamp, code, bytes, d";

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;
  private RowRuntimeComparison runtimes;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("test");
    runtimes = new RowRuntimeComparison(engine, session);
    // Rows 0..8999 and 4000..11999: 5,000 in both, NULLs in every column but id in one row of seven.
    RowRuntimeComparison.typedTable(lake, "typed", 0, 9000);
    RowRuntimeComparison.typedTable(lake, "other", 4000, 8000);
  }

  @Test
  void exceptAndIntersectOfWholeRows() {
    for (String sql : List.of(
        "select " + COLUMNS + " from typed except select " + COLUMNS + " from other",
        "select " + COLUMNS + " from other except all select " + COLUMNS + " from typed",
        "select " + COLUMNS + " from typed intersect all select " + COLUMNS + " from other",
        "select label, f, rate, big, stamp_tz from typed except select label, f, rate, big, stamp_tz from other where id < 10000")) {
      runtimes.assertColumnar(sql, "SqeSetOperation");
      runtimes.matchesRowRuntime(sql);
    }
    String intersect = "select " + COLUMNS + " from typed intersect select " + COLUMNS + " from other";
    assertThat(TestQueries.plan(engine, session, intersect)).doesNotContain("Enumerable");
    // Rows 4000..8999, and the rows of NULLs, equal as set operations compare them.
    assertThat(runtimes.matchesRowRuntime(intersect).rows()).hasSize(5000 - 715 + 1);
  }

  @Test
  void allCountsDuplicates() {
    for (String sql : List.of(
        "select b, color from typed intersect all select b, color from other where id < 6000",
        "select b, color from typed except all select b, color from other",
        "select b, color from other except all select b, color from typed",
        "select color from typed except select color from other where color <> 'red'",
        "select b, color from typed union select b, color from other",
        "select ship_day from typed intersect all select ship_day from other intersect all select ship_day from typed where i > 0",
        "select ship_day from typed except all select ship_day from other where i < 5000 except all select ship_day from typed where i > 4000")) {
      runtimes.assertColumnar(sql, "SqeSetOperation");
      runtimes.matchesRowRuntime(sql);
    }
    // The multiplicities, against counts of the inputs' rows.
    long typed = count("select count(*) from typed where b and color = 'red'");
    long other = count("select count(*) from other where id < 6000 and b and color = 'red'");
    assertThat(typed).isGreaterThan(other).isGreaterThan(0);
    assertThat(count("select count(*) from (select b, color from typed intersect all select b, color from other where id < 6000)"
        + " where b and color = 'red'")).isEqualTo(other);
    assertThat(count("select count(*) from (select b, color from typed except all select b, color from other where id < 6000)"
        + " where b and color = 'red'")).isEqualTo(typed - other);
  }

  private long count(String sql) {
    return (Long) TestQueries.rows(engine, session, sql).get(0).get(0);
  }

  @Test
  void emptyInputs() {
    for (String sql : List.of(
        "select " + COLUMNS + " from typed where id < 0 except select " + COLUMNS + " from other",
        "select " + COLUMNS + " from typed except all select " + COLUMNS + " from other where id < 0",
        "select " + COLUMNS + " from typed intersect all select " + COLUMNS + " from other where id < 0",
        "select b, color from typed where id < 0 union select b, color from other where id < 0")) {
      runtimes.assertColumnar(sql, "SqeSetOperation");
      runtimes.matchesRowRuntime(sql);
    }
    assertThat(runtimes.matchesRowRuntime("select b from typed except all select b from other where id < 0").rows()).hasSize(9000);
  }

  @Test
  void aMemoryLimitFailsTheSetOperationWithResourceExhausted() {
    QueryEngine small = lake.engine(EngineConfig.DEFAULT.withMaxQueryMemoryBytes(96 * 1024));
    String sql = "select id, label from typed except all select id, label from other";
    assertThat(TestQueries.plan(small, session, sql)).contains("SqeSetOperation");
    SqeException error = catchThrowableOfType(SqeException.class, () -> TestQueries.run(small, session, sql));
    assertThat(error).isNotNull();
    assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(error.getMessage()).contains("EXCEPT");
  }
}

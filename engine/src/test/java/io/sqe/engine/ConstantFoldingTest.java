package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.session.Session;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Constant folding: a constant bound such as {@code DATE '2024-01-01' + INTERVAL '1' MONTH} is
 * computed while planning, so it reaches the Iceberg scan and prunes files; expressions that depend
 * on the clock, that involve timestamps (microseconds in SQE) or that fail are left for execution.
 *
 * <p>The table {@code s.events} has one Parquet file per month of 2024 (days 1..28, 10 rows a day),
 * so a scan that received both bounds of a one-month range opens exactly one file.
 */
class ConstantFoldingTest {
  private static final Schema EVENTS =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "day", Types.DateType.get()),
          Types.NestedField.required(3, "amount", Types.DecimalType.of(12, 2)),
          Types.NestedField.required(4, "ts", Types.TimestampType.withoutZone()));

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.empty();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    lake.catalog().namespaces().createNamespace(Namespace.of("s"));
    Table events = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "events"), EVENTS);
    long id = 0;
    for (int month = 1; month <= 12; month++) {
      List<Record> rows = new ArrayList<>();
      for (int day = 1; day <= 28; day++) {
        for (int i = 0; i < 10; i++) {
          Record r = GenericRecord.create(EVENTS);
          r.setField("id", id);
          r.setField("day", LocalDate.of(2024, month, day));
          r.setField("amount", BigDecimal.valueOf(i, 2)); // 0.00 .. 0.09
          r.setField("ts", LocalDateTime.of(2024, month, day, 12, 0, 0, 123_456_000));
          rows.add(r);
          id++;
        }
      }
      TestTables.appendFile(events, rows);
    }
    engine = lake.engine();
    session = EmbeddedLake.session("test");
  }

  @Test
  void aDateRangeWithIntervalArithmeticReachesTheScanAndPrunesFiles() {
    String sql =
        "select count(*), min(day), max(day) from s.events"
            + " where day >= date '2024-03-01' and day < date '2024-03-01' + interval '1' month";
    assertThat(TestQueries.plan(engine, session, sql))
        .contains("ref(name=\"day\") >= \"2024-03-01\"")
        .contains("ref(name=\"day\") < \"2024-04-01\"")
        .doesNotContain("INTERVAL");
    TestQueries.Result result = TestQueries.run(engine, session, sql);
    assertThat(result.rows()).isEqualTo(List.of(List.of(280L, epochDay(2024, 3, 1), epochDay(2024, 3, 28))));
    assertThat(result.stats().filesScanned()).isEqualTo(1);
  }

  @Test
  void decimalArithmeticOnConstantsIsExact() {
    // TPC-H Q6's shape: BETWEEN 0.06 - 0.01 AND 0.06 + 0.01.
    String sql = "select count(*) from s.events where amount between 0.06 - 0.01 and 0.06 + 0.01";
    assertThat(TestQueries.plan(engine, session, sql)).contains("0.05").contains("0.07");
    assertThat(TestQueries.rows(engine, session, sql)).isEqualTo(List.of(List.of(12L * 28 * 3)));
  }

  @Test
  void theClockIsNeverFoldedIntoAPlan() {
    // A cached plan runs again later: CURRENT_DATE must be read when the statement runs.
    String sql = "select count(*) from s.events where day < current_date + interval '1' day";
    assertThat(TestQueries.plan(engine, session, sql)).containsIgnoringCase("CURRENT_DATE");
    assertThat(TestQueries.rows(engine, session, sql)).isEqualTo(List.of(List.of(12L * 28 * 10)));
  }

  @Test
  void timestampArithmeticKeepsItsMicroseconds() {
    String sql =
        "select count(*) from s.events"
            + " where ts = timestamp '2024-03-04 11:00:00.123456' + interval '1' hour";
    assertThat(TestQueries.rows(engine, session, sql)).isEqualTo(List.of(List.of(10L)));
    assertThat(TestQueries.rows(engine, session, "select timestamp '2024-03-04 11:00:00.123456' + interval '1' hour"))
        .isEqualTo(List.of(List.of(LocalDateTime.of(2024, 3, 4, 12, 0, 0, 123_456_000))));
  }

  @Test
  void aConstantThatFailsStillFailsWhenTheStatementRuns() {
    assertThatThrownBy(() -> TestQueries.rows(engine, session, "select count(*) from s.events where id > 1 / 0"))
        .isInstanceOf(SqeException.class)
        .hasMessageContaining("zero");
  }

  /** A DATE as the engine's Arrow result holds it: days since 1970-01-01. */
  private static int epochDay(int year, int month, int day) {
    return (int) LocalDate.of(year, month, day).toEpochDay();
  }
}

package io.sqe.engine.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.EmbeddedLake;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.TestQueries;
import io.sqe.engine.TestTables;
import io.sqe.engine.session.Session;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Conditions on a date or time rounded to a unit plan and answer correctly: dates and timestamps
 * become ranges the scan prunes by; a TIME rounded to an hour, which Calcite's rule failed an
 * assertion on (found by the SQL fuzzer), is evaluated as written.
 */
class DateRangesTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "d", Types.DateType.get()),
          Types.NestedField.required(2, "tm", Types.TimeType.get()));

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;
  private final List<Record> records = new ArrayList<>();

  @BeforeEach
  void setUp() {
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "t"), SCHEMA);
    for (int n = 0; n < 1000; n++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("d", LocalDate.of(2022, 6, 1).plusDays(n));
      r.setField("tm", LocalTime.ofSecondOfDay(n * 86L));
      records.add(r);
    }
    TestTables.appendFile(table, records);
    engine = lake.engine();
    session = EmbeddedLake.session("test");
  }

  @Test
  void aTimeRoundedToAnHourIsComparedAsWritten() {
    long expected = records.stream().filter(r -> ((LocalTime) r.getField("tm")).getHour() == 10).count();
    assertThat(TestQueries.rows(engine, session, "select count(*) from t where floor(tm to hour) = time '10:00:00'"))
        .isEqualTo(List.of(List.of(expected)));
  }

  @Test
  void aYearOfADateBecomesARangeTheScanPrunesBy() {
    long expected = records.stream().filter(r -> ((LocalDate) r.getField("d")).getYear() == 2023).count();
    String sql = "select count(*) from t where extract(year from d) = 2023";
    assertThat(TestQueries.rows(engine, session, sql)).isEqualTo(List.of(List.of(expected)));
    assertThat(TestQueries.plan(engine, session, sql)).contains("filter=").contains("2023-01-01");
  }
}

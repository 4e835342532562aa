package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroVector;
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
 * Timestamps keep their microseconds through every kind of operator: values four microseconds
 * apart within one millisecond stay distinct when compared, grouped, joined, sorted and shifted.
 */
class MicrosecondTimestampsTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.IntegerType.get()),
          Types.NestedField.optional(2, "ts", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(3, "tz", Types.TimestampType.withZone()));
  private static final LocalDateTime BASE = LocalDateTime.of(2024, 3, 1, 10, 0, 0);
  /** Microseconds after BASE: three inside the first millisecond, one in the next. */
  private static final long[] OFFSETS = {1, 2, 999, 1_000};

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "t"), SCHEMA);
    for (int i = 0; i < OFFSETS.length; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", i);
      r.setField("ts", BASE.plusNanos(OFFSETS[i] * 1_000));
      r.setField("tz", BASE.plusNanos(OFFSETS[i] * 1_000).atOffset(ZoneOffset.UTC));
      TestTables.appendFile(table, List.of(r));
    }
    engine = lake.engine();
    session = EmbeddedLake.session("t");
  }

  private List<List<Object>> run(String sql, Object... parameters) {
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution exec = engine.execute(session, engine.prepare(session, sql), List.of(parameters), "q")) {
      while (exec.next()) {
        for (int r = 0; r < exec.root().getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : exec.root().getFieldVectors()) {
            row.add(v.isNull(r) ? null : v instanceof TimeStampMicroVector ? ((TimeStampMicroVector) v).getObject(r) : v.getObject(r));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  private static LocalDateTime at(long micros) {
    return BASE.plusNanos(micros * 1_000);
  }

  private static Object single(List<List<Object>> rows) {
    assertThat(rows).hasSize(1);
    return rows.get(0).get(0);
  }

  @Test
  void valuesComeBackExactly() {
    List<List<Object>> rows = run("select ts from t order by ts desc");
    assertThat(rows).extracting(r -> r.get(0)).containsExactly(at(1_000), at(999), at(2), at(1));
  }

  @Test
  void distinctGroupingAndJoinsSeeMicroseconds() {
    assertThat(single(run("select count(distinct ts) from t"))).isEqualTo(4L);
    assertThat(run("select ts, count(*) from t group by ts")).hasSize(4);
    assertThat(single(run("select count(*) from t a join t b on a.ts = b.ts"))).isEqualTo(4L);
    assertThat(single(run("select count(*) from t a join t b on a.tz = b.tz"))).isEqualTo(4L);
    assertThat(run("select min(ts), max(ts) from t").get(0)).containsExactly(at(1), at(1_000));
  }

  @Test
  void comparisonsWithLiteralsAndParametersAreExact() {
    assertThat(single(run("select count(*) from t where ts > timestamp '2024-03-01 10:00:00.000001'"))).isEqualTo(3L);
    assertThat(single(run("select count(*) from t where ts <= cast('2024-03-01 10:00:00.000999' as timestamp)"))).isEqualTo(3L);
    assertThat(run("select id from t where ts in (timestamp '2024-03-01 10:00:00.000002', timestamp '2024-03-01 10:00:00.001') order by id"))
        .extracting(r -> r.get(0)).containsExactly(1, 3);
    assertThat(single(run("select count(*) from t where ts between timestamp '2024-03-01 10:00:00.000002' and timestamp '2024-03-01 10:00:00.000999'")))
        .isEqualTo(2L);
    assertThat(single(run("select id from t where ts = ?", at(999)))).isEqualTo(2);
    assertThat(single(run("select id from t where tz = ?", OffsetDateTime.of(at(2), ZoneOffset.UTC).toInstant()))).isEqualTo(1);
    assertThat(single(run("select count(*) from t where ts < current_timestamp"))).isEqualTo(4L);
    assertThat(single(run("select count(*) from t where ts >= date '2024-03-01' and ts < date '2024-03-02'"))).isEqualTo(4L);
  }

  @Test
  void calendarFunctionsStillWork() {
    List<Object> row = run("select extract(hour from ts), cast(ts as date), date_trunc('hour', ts), ts + interval '1' day,"
        + " timestamp '2024-03-01 10:00:00.000007' - interval '1' month, cast(ts as varchar), datediff('day', ts, ts + interval '3' day)"
        + " from t where id = 0").get(0);
    assertThat(row.get(0)).isEqualTo(10L);
    assertThat(row.get(1)).isEqualTo(19783); // 2024-03-01 in days since the epoch
    assertThat(row.get(2)).isEqualTo(BASE);
    assertThat(row.get(3)).isEqualTo(at(1).plusDays(1));
    assertThat(row.get(4)).isEqualTo(at(7).minusMonths(1));
    assertThat(row.get(5).toString()).isEqualTo("2024-03-01 10:00:00.000001");
    assertThat(((Number) row.get(6)).longValue()).isEqualTo(3L);
  }

  @Test
  void valuesListsAndRangeWindowsKeepMicroseconds() {
    assertThat(run("select x from (values (timestamp '2024-03-01 10:00:00.000003'), (timestamp '2024-03-01 10:00:00.000004')) v(x) order by x"))
        .extracting(r -> r.get(0)).containsExactly(at(3), at(4));
    // A one-millisecond RANGE frame: each row sees the rows at most 1 ms earlier.
    assertThat(run("select id, count(*) over (order by ts range between interval '0.001' second preceding and current row) from t order by id"))
        .extracting(r -> r.get(1)).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void timestampFiltersPruneFiles() {
    try (QueryExecution exec = engine.execute(
        session, engine.prepare(session, "select id from t where ts = timestamp '2024-03-01 10:00:00.000999'"), List.of(), "q")) {
      int rows = 0;
      while (exec.next()) {
        rows += exec.root().getRowCount();
      }
      assertThat(rows).isEqualTo(1);
      assertThat(exec.context().stats().filesScanned()).isEqualTo(1);
    }
  }

  @Test
  void castsBetweenTimestampsWithAndWithoutTimeZoneKeepMicroseconds() {
    assertThat(run("select cast(ts as timestamp with local time zone) = tz, cast(tz as timestamp) = ts, cast(cast(ts as timestamptz) as timestamp) from t where id = 2").get(0))
        .containsExactly(true, true, at(999));
    assertThat(single(run("select count(*) from t where tz = cast('2024-03-01 10:00:00.000999' as timestamp with local time zone)"))).isEqualTo(1L);
    assertThat(single(run("select count(*) from t where tz < ts or tz > ts"))).isEqualTo(0L);
    // Text and TIMESTAMP values are times in the session's zone; timestamptz values are instants.
    session = new Session(Principal.of("t"), "lake", "s", ZoneOffset.ofHours(2));
    assertThat(single(run("select count(*) from t where tz = cast('2024-03-01 12:00:00.000999' as timestamptz)"))).isEqualTo(1L);
    assertThat(single(run("select cast(tz as timestamp) from t where id = 2"))).isEqualTo(at(999).plusHours(2));
    assertThat(single(run("select count(*) from t where cast(cast(ts as timestamptz) as timestamp) = ts"))).isEqualTo(4L);
  }
}

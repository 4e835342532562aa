package io.sqe.engine.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.EmbeddedLake;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeVersion;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Session;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The grammar's effect on queries that run: SQE's keywords as column names, and date_diff. */
class GrammarQueryEngineTest {
  /** Column names that are keywords of SQE's statements, or words Calcite reserves and PostgreSQL does not. */
  private static final List<String> KEYWORD_COLUMNS = List.of(
      "branch", "tag", "version", "partitioned", "properties", "comment", "data", "purge", "cascade", "tables",
      "columns", "use", "string", "target", "year", "month", "day", "hour", "minute", "second", "value", "result");

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    List<Types.NestedField> fields = new ArrayList<>();
    for (String name : KEYWORD_COLUMNS) {
      fields.add(Types.NestedField.optional(fields.size() + 1, name, Types.StringType.get()));
    }
    lake.catalog().iceberg().createTable(TableIdentifier.of("s", "tables"), new Schema(fields));
    engine = lake.engine();
    session = EmbeddedLake.session("t");
  }

  @Test
  void keywordsAreColumnAndTableNames() {
    String columns = String.join(", ", KEYWORD_COLUMNS);
    String sql = "select " + columns + ", t.comment as remark from tables as t"
        + " where comment = 'x' and branch is not null group by " + columns + " order by version, tag";
    try (QueryExecution exec = engine.execute(session, engine.prepare(session, sql), List.of(), "q")) {
      List<String> names = exec.root().getSchema().getFields().stream().map(f -> f.getName()).toList();
      assertThat(names.subList(0, KEYWORD_COLUMNS.size())).isEqualTo(KEYWORD_COLUMNS);
      assertThat(exec.next()).isFalse();
    }
  }

  @Test
  void dateDiffMatchesDatediffAndJavaTime() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < 10; i++) {
      LocalDate a = LocalDate.of(1990, 1, 1).plusDays(random.nextInt(20_000));
      LocalDate b = a.plusDays(random.nextInt(2_000) - 1_000);
      String sql = String.format(
          "select date_diff('day', date '%1$s', date '%2$s'), datediff('day', date '%1$s', date '%2$s'),"
              + " date_diff('month', date '%1$s', date '%2$s'), DATE_DIFF('years', date '%1$s', date '%2$s')",
          a, b);
      List<Object> row = row(sql);
      String context = "seed " + seed + ": " + sql;
      assertThat(row.get(0)).as(context).isEqualTo((int) ChronoUnit.DAYS.between(a, b));
      assertThat(row.get(1)).as(context).isEqualTo(row.get(0));
      assertThat(row.get(2)).as(context).isEqualTo((int) ChronoUnit.MONTHS.between(a, b));
      assertThat(row.get(3)).as(context).isEqualTo((int) ChronoUnit.YEARS.between(a, b));
    }
  }

  @Test
  void dateDiffErrorsNameTheFunction() {
    assertThatThrownBy(() -> engine.prepare(session, "select date_diff('fortnight', date '2020-01-01', date '2020-02-01')"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("Unknown unit 'fortnight'");
        });
    assertThatThrownBy(() -> engine.prepare(session, "select date_diff('day', date '2020-01-01')"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.getMessage()).isEqualTo("date_diff takes 3 arguments, not 2"));
  }

  @Test
  void stringIsVarchar() {
    assertThat(row("select cast(42 as string), cast('x' as string) || 'y'")).extracting(String::valueOf)
        .containsExactly("42", "xy");
  }

  @Test
  void timeUnitsThatAreAlsoColumnNamesStillWorkAsUnits() {
    String ts = "timestamp '2024-05-17 13:45:30'";
    assertThat(row("select extract(day from " + ts + "), year(" + ts + "), month(" + ts + "), hour(" + ts + "), minute(" + ts
            + "), second(" + ts + "), timestampadd(day, 1, date '2024-05-17'), timestampdiff(month, date '2024-01-31', date '2024-05-17'),"
            + " date '2024-05-17' + interval '2' day, floor(" + ts + " to hour) = timestamp '2024-05-17 13:00:00'"))
        .containsExactly(17L, 2024L, 5L, 13L, 45L, 30L, LocalDate.of(2024, 5, 18), 3, LocalDate.of(2024, 5, 19), true);
  }

  @Test
  void postgresCastsAreCasts() {
    assertThat(row("select '42'::integer + 1, 1.5::varchar || 'x', '2024-05-17'::date, ('7'::bigint)::text, -'3'::int"))
        .isEqualTo(row("select cast('42' as integer) + 1, cast(1.5 as varchar) || 'x', cast('2024-05-17' as date),"
            + " cast(cast('7' as bigint) as varchar), -cast('3' as int)"));
  }

  @Test
  void dateTruncStillWorks() {
    assertThat(row("select date_trunc('month', date '2024-05-17')")).containsExactly(LocalDate.of(2024, 5, 1));
  }

  @Test
  void aWhereMayFollowASelectListWithoutFrom() {
    // Trino's JDBC driver asks getPrimaryKeys so.
    String sql = "SELECT CAST(NULL AS varchar) TABLE_CAT, CAST(NULL AS smallint) KEY_SEQ WHERE false";
    try (QueryExecution exec = engine.execute(session, engine.prepare(session, sql), List.of(), "q")) {
      assertThat(exec.root().getSchema().getFields()).extracting(f -> f.getName()).containsExactly("table_cat", "key_seq");
      assertThat(exec.next()).isFalse();
    }
    assertThat(row("select 1 + 1 where 2 > 1")).containsExactly(2);
  }

  @Test
  void versionIsSqesVersion() {
    assertThat(row("select version()").get(0).toString()).isEqualTo(SqeVersion.VERSION);
  }

  private List<Object> row(String sql) {
    try (QueryExecution exec = engine.execute(session, engine.prepare(session, sql), List.of(), "q")) {
      assertThat(exec.next()).isTrue();
      List<Object> values = new ArrayList<>();
      for (FieldVector v : exec.root().getFieldVectors()) {
        values.add(v instanceof DateDayVector date ? LocalDate.ofEpochDay(date.get(0)) : v.getObject(0));
      }
      return values;
    }
  }
}

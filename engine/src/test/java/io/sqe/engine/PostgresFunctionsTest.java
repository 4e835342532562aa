package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The PostgreSQL functions dbt's macros write, checked against java.time and String: split_part
 * with a literal delimiter, to_date with lower-case patterns, TIMESTAMPDIFF at microsecond
 * precision, and current_catalog / current_schema.
 */
class PostgresFunctionsTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("t");
  }

  private List<Object> row(Session in, String sql) {
    try (QueryExecution exec = engine.execute(in, engine.prepare(in, sql), List.of(), "t")) {
      assertThat(exec.next()).isTrue();
      List<Object> values = new ArrayList<>();
      for (FieldVector v : exec.root().getFieldVectors()) {
        if (v.isNull(0)) {
          values.add(null);
        } else if (v instanceof DateDayVector) {
          values.add(LocalDate.ofEpochDay(((DateDayVector) v).get(0)));
        } else if (v instanceof TimeStampMicroVector) {
          values.add(((TimeStampMicroVector) v).getObject(0));
        } else {
          Object value = v.getObject(0);
          values.add(value == null ? null : value instanceof Number || value instanceof LocalDateTime ? value : value.toString());
        }
      }
      return values;
    }
  }

  private List<Object> row(String sql) {
    return row(session, sql);
  }

  /** PostgreSQL's split_part: plain-text delimiter, 1-based, negative from the end, '' past either end. */
  private static String splitPart(String s, String delimiter, int n) {
    List<String> fields = delimiter.isEmpty() ? List.of(s) : Arrays.asList(s.split(Pattern.quote(delimiter), -1));
    int index = n > 0 ? n - 1 : fields.size() + n;
    return index < 0 || index >= fields.size() ? "" : fields.get(index);
  }

  @Test
  void splitPartTakesTheDelimiterLiterally() {
    assertThat(row("select split_part('a|b|c', '|', 3), split_part('a|b|c', '|', 1), split_part('a.b', '.', 2), split_part('a|b|c', '|', -1)"))
        .containsExactly("c", "a", "b", "c");
    assertThat(row("select split_part('a|b|c', '|', 4), split_part('a|b|c', '|', -4), split_part('', '|', 1), split_part('abc', '', 1)"))
        .containsExactly("", "", "", "abc");
    assertThat(row("select split_part(cast(null as varchar), '|', 1), split_part('a', cast(null as varchar), 1)"))
        .containsExactly(null, null);
    long seed = System.nanoTime();
    Random random = new Random(seed);
    String[] delimiters = {"|", ".", "*", "ab", "$", "\\", "[", ", "};
    for (int i = 0; i < 30; i++) {
      String delimiter = delimiters[random.nextInt(delimiters.length)];
      StringBuilder s = new StringBuilder();
      for (int j = random.nextInt(6); j >= 0; j--) {
        s.append("xyz".substring(0, random.nextInt(3))).append(random.nextBoolean() ? delimiter : "");
      }
      int n = random.nextInt(9) - 4;
      if (n == 0) {
        continue;
      }
      String sql = String.format("select split_part('%s', '%s', %d)", s, delimiter, n);
      assertThat(row(sql).get(0)).as("seed %d: %s", seed, sql).isEqualTo(splitPart(s.toString(), delimiter, n));
    }
  }

  @Test
  void leftAndRightTakeAnyIntegerCount() {
    assertThat(row("select right('abcdef', 2), right('abcdef', cast(2 as bigint)), right('ab', 5), right('abcdef', 0), right('abcdef', -2),"
            + " left('abcdef', cast(2 as bigint)), left('abcdef', -2), left('ab', 5)"))
        .containsExactly("ef", "ef", "ab", "", "cdef", "ab", "abcd", "ab");
    assertThat(row("select right(s, n), left(s, n) from (values ('abcdef', cast(3 as bigint))) t(s, n)")).containsExactly("def", "abc");
  }

  @Test
  void splitPartRefusesFieldZero() {
    assertThatThrownBy(() -> row("select split_part('a|b', '|', 0)")).hasMessageContaining("zero");
  }

  @Test
  void toDateReadsPostgresPatternsInEitherCase() {
    assertThat(row("select to_date('09/12/2023', 'mm/dd/yyyy'), to_date('09/12/2023', 'MM/DD/YYYY'), to_date('2023-09-12', 'yyyy-mm-dd'),"
            + " to_date('2023-09-12', 'YYYY-MM-DD'), to_date('20230912', 'yyyymmdd')"))
        .containsOnly(LocalDate.of(2023, 9, 12));
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < 10; i++) {
      LocalDate date = LocalDate.of(1950, 1, 1).plusDays(random.nextInt(40_000));
      String sql = String.format("select to_date('%s', 'mm/dd/yyyy')", date.format(DateTimeFormatter.ofPattern("MM/dd/yyyy")));
      assertThat(row(sql).get(0)).as("seed %d: %s", seed, sql).isEqualTo(date);
    }
  }

  /** Trino's date(x), which dbt's snapshot tests write for dbt_valid_to_current: a cast to DATE. */
  @Test
  void dateIsACastToDate() {
    assertThat(row("select date('2099-12-31'), date(timestamp '2016-08-20 15:44:49.123456'), date(cast(null as varchar)),"
            + " date('2099-12-31') = cast('2099-12-31' as date)"))
        .containsExactly(LocalDate.of(2099, 12, 31), LocalDate.of(2016, 8, 20), null, "true");
    assertThat(row("select date(s) from (values ('2024-02-29')) t(s)")).containsExactly(LocalDate.of(2024, 2, 29));
    assertThatThrownBy(() -> row("select date('2099-12-31', 'x')")).hasMessageContaining("date takes 1 argument, not 2");
  }

  @Test
  void nowIsCurrentTimestamp() {
    List<Object> row = row("select now(), current_timestamp, now() = current_timestamp");
    assertThat(row.get(0)).isEqualTo(row.get(1));
    assertThat(row.get(2)).isEqualTo("true");
    assertThatThrownBy(() -> row("select now(1)")).hasMessageContaining("now takes no arguments, not 1");
  }

  @Test
  void timestampDiffCountsMicroseconds() {
    String a = "cast('1999-12-31 23:59:59.999999' as timestamp)";
    String b = "cast('2000-01-01 00:00:00.000000' as timestamp)";
    assertThat(row("select " + a)).containsExactly(LocalDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000));
    assertThat(row("select timestampdiff(microsecond, " + a + ", " + b + "), timestampdiff(microsecond, " + b + ", " + a + "),"
            + " datediff('microsecond', " + a + ", " + b + "), timestampdiff(millisecond, " + a + ", " + b + "),"
            + " timestampdiff(millisecond, date_trunc('millisecond', " + a + "), " + b + ")"))
        .containsExactly(1L, -1L, 1L, 0L, 1L);
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < 20; i++) {
      LocalDateTime x = LocalDateTime.of(2000, 1, 1, 0, 0).plusNanos(random.nextLong(1L << 50) * 1000);
      LocalDateTime y = x.plusNanos((random.nextLong(1L << 40) - (1L << 39)) * 1000);
      DateTimeFormatter format = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");
      String sql = String.format("select timestampdiff(microsecond, timestamp '%1$s', timestamp '%2$s'), timestampdiff(millisecond, timestamp '%1$s', timestamp '%2$s')",
          x.format(format), y.format(format));
      List<Object> row = row(sql);
      assertThat(row.get(0)).as("seed %d: %s", seed, sql).isEqualTo(ChronoUnit.MICROS.between(x, y));
      assertThat(row.get(1)).as("seed %d: %s", seed, sql).isEqualTo(ChronoUnit.MICROS.between(x, y) / 1000);
    }
  }

  @Test
  void currentCatalogAndSchemaAreTheSessions() {
    assertThat(row("select current_catalog, current_schema, current_schema()")).containsExactly("lake", "s", "s");
    Session noSchema = new Session(Principal.of("t"), "lake", null, ZoneOffset.UTC);
    assertThat(row(noSchema, "select current_catalog, current_schema")).containsExactly("lake", null);
  }
}

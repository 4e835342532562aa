package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** date_trunc, datediff and date_add against java.time on random dates. */
class DateTimeFunctionsTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.empty();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = new Session(Principal.of("t"), "lake", null, ZoneOffset.UTC);
  }

  private List<Object> row(String sql) {
    try (QueryExecution exec = engine.execute(session, engine.prepare(session, sql), List.of(), "t")) {
      assertThat(exec.next()).isTrue();
      List<Object> values = new ArrayList<>();
      for (FieldVector v : exec.root().getFieldVectors()) {
        values.add(v instanceof DateDayVector ? LocalDate.ofEpochDay(((DateDayVector) v).get(0)) : v.getObject(0));
      }
      return values;
    }
  }

  @Test
  void matchesJavaTime() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < 20; i++) {
      LocalDate a = LocalDate.of(1990, 1, 1).plusDays(random.nextInt(20_000));
      LocalDate b = a.plusDays(random.nextInt(2_000) - 1_000);
      int n = random.nextInt(40) - 20;
      String sql = String.format(
          "select date_trunc('month', date '%1$s'), date_trunc('week', date '%1$s'), date_trunc('quarter', date '%1$s'),"
              + " date_trunc('year', date '%1$s'), datediff('day', date '%1$s', date '%2$s'),"
              + " date_add('day', %3$d, date '%1$s'), date_add('month', %3$d, date '%1$s')",
          a, b, n);
      List<Object> row = row(sql);
      String context = "seed " + seed + ": " + sql;
      assertThat(row.get(0)).as(context).isEqualTo(a.withDayOfMonth(1));
      assertThat(row.get(1)).as(context).isEqualTo(a.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)));
      assertThat(row.get(2)).as(context).isEqualTo(LocalDate.of(a.getYear(), (a.getMonthValue() - 1) / 3 * 3 + 1, 1));
      assertThat(row.get(3)).as(context).isEqualTo(a.withDayOfYear(1));
      assertThat(((Number) row.get(4)).longValue()).as(context).isEqualTo(ChronoUnit.DAYS.between(a, b));
      assertThat(row.get(5)).as(context).isEqualTo(a.plusDays(n));
      assertThat(row.get(6)).as(context).isEqualTo(a.plusMonths(n));
    }
  }

  @Test
  void unknownUnitsNameTheChoices() {
    assertThatThrownBy(() -> engine.prepare(session, "select date_trunc('fortnight', date '2024-01-01')"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("fortnight").contains("month");
          assertThat(e.position()).isPresent();
        });
  }
}

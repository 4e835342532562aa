package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.command.QueryServices;
import io.sqe.engine.exec.RowStream;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import io.sqe.engine.sql.SqeParser;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A query with a columnar plan is planned without compiling its row-runtime form; when something
 * needs that form (here a write reading rows of a TIME column, which batches do not give as rows),
 * it is compiled on first use and gives the rows the row runtime's own plan gives.
 */
class DeferredCompileTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private final Session session = EmbeddedLake.session("test");
  private QueryServices queries;

  @BeforeEach
  void setUp() {
    queries = lake.queryServices(session);
    RowRuntimeComparison.typedTable(lake, "typed", 0, 15_000);
  }

  @Test
  void aColumnarPlansRowFormIsCompiledWhenFirstUsedAndGivesTheRowRuntimesRows() {
    for (String sql : List.of(
        "select id, clock, label, amount from typed where i > 0 and color in ('red', 'blue', 'green')",
        "select color, count(*), max(clock) from typed where stamp is not null group by color")) {
      PlannedQuery planned = queries.plan(session, SqeParser.parse(sql), sql, List.of());
      assertThat(planned.batchPlan()).as(sql).isNotNull();
      List<List<Object>> deferred = rows(session, planned, 2);

      Session rowSession = TestOptions.set(session, PlannerOptions.COLUMNAR, false);
      PlannedQuery rowPlan = queries.plan(rowSession, SqeParser.parse(sql), sql, List.of());
      assertThat(rowPlan.batchPlan()).as(sql).isNull();
      List<List<Object>> expected = rows(rowSession, rowPlan, 1);
      assertThat(expected).as(sql).isNotEmpty();
      assertThat(deferred).as(sql).isEqualTo(expected);
    }
  }

  /** The rows of {@code runs} runs of {@code planned}, each read as rows; the runs must agree. */
  private List<List<Object>> rows(Session as, PlannedQuery planned, int runs) {
    List<List<Object>> first = null;
    for (int run = 0; run < runs; run++) {
      List<List<Object>> rows = new ArrayList<>();
      try (RowStream stream = queries.rows(as, planned, List.of(), "run-" + run)) {
        while (stream.next()) {
          rows.add(Arrays.asList(stream.current().clone()));
        }
      }
      rows = TestQueries.sorted(rows);
      if (first == null) {
        first = rows;
      } else {
        assertThat(rows).isEqualTo(first);
      }
    }
    return first;
  }
}

package io.sqe.engine;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.exec.profile.ProfiledPlan;
import io.sqe.engine.plan.PlannedQuery;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code EXPLAIN ANALYZE query}: runs the planned query as any query runs (the same privileges,
 * row filters and column masks, planned in), discards its rows, and reports its plan with each
 * columnar operator's figures under its line, then the run's totals.
 */
final class ExplainAnalyze implements PreparedCommand {
  static final Schema SCHEMA = new Schema(List.of(new Field("plan", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of())));

  private final QueryEngine engine;
  private final PlannedQuery plan;

  ExplainAnalyze(QueryEngine engine, PlannedQuery plan) {
    this.engine = requireNonNull(engine, "engine is null");
    this.plan = requireNonNull(plan, "plan is null");
  }

  @Override
  public Optional<Schema> reportSchema() {
    return Optional.of(SCHEMA);
  }

  /** It changes nothing, so a transaction may run it, reading what the transaction staged. */
  @Override
  public boolean runsInTransaction() {
    return true;
  }

  @Override
  public CommandResult execute(CommandContext context, List<Object> parameters) {
    QueryStats stats;
    try (QueryExecution execution = engine.execute(context.session(), new Prepared.Query(plan), List.of(), context.queryId(), false)) {
      while (execution.next()) {
        // The rows are discarded: only the figures of producing them are wanted.
      }
      stats = execution.context().stats();
    }
    List<Object[]> rows = new ArrayList<>();
    ProfiledPlan profile = plan.profile();
    for (String line : profile.render(stats.operators())) {
      rows.add(new Object[] {line});
    }
    if (plan.batchPlan() == null || plan.trinoStatement() != null) {
      rows.add(new Object[] {"-- The query ran on the row runtime or on Trino: no figures per operator"});
    }
    rows.add(new Object[] {String.format(
        Locale.ROOT,
        "-- Planning: %s, Execution: %s, Output: %,d rows, Peak memory: %s",
        ProfiledPlan.duration(plan.planningNanos()),
        ProfiledPlan.duration(stats.executionNanos()),
        stats.rowsReturned(),
        ProfiledPlan.bytes(stats.peakMemoryBytes()))});
    return CommandResult.report(rows);
  }
}

package io.sqe.engine;

import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.offload.Placement;
import io.sqe.engine.plan.PlannedQuery;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.sql.SqlNode;

/** The rows EXPLAIN returns: a plan line each, in one text column. */
final class Explains {
  private static final Schema SCHEMA = new Schema(List.of(new Field("plan", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of())));

  private Explains() {}

  /**
   * A query's: where it runs when the Trino cluster runs it ({@code where}) and the statement sent
   * there, then the local plan (the fallback's, when offloaded), its reads' notes, and the
   * placement's line when there is a cluster.
   */
  static Prepared.Rows query(String sql, PlannedQuery plan, Optional<String> where, Placement placement) {
    List<String> lines = new ArrayList<>();
    if (plan.trinoStatement() != null) {
      lines.add(where.orElseThrow());
      lines.add(plan.trinoStatement().sql());
    }
    lines.addAll(List.of(plan.explain().split("\n")));
    plan.reads().notes().forEach(note -> lines.add("-- " + note));
    if (placement != null) {
      lines.add(placement.explainLine());
    }
    return rows(sql, lines);
  }

  /**
   * A statement that is not a query (its privileges already checked): prepared by the executor
   * that takes it, as running it would, then described by its command without running it;
   * NOT_SUPPORTED for a statement whose command gives no description.
   */
  static Prepared.Rows command(String sql, SqlNode statement, String name, CommandContext context, List<CommandExecutor> executors) {
    for (CommandExecutor executor : executors) {
      Optional<PreparedCommand> command = executor.prepare(context, statement);
      if (command.isPresent()) {
        Optional<List<String>> lines = command.get().explain(context);
        if (lines.isPresent()) {
          return rows(sql, lines.get());
        }
        break;
      }
    }
    throw new SqeException(ErrorCode.NOT_SUPPORTED, "EXPLAIN of " + name + " statements is not supported yet");
  }

  private static Prepared.Rows rows(String sql, List<String> lines) {
    List<Object[]> rows = new ArrayList<>();
    lines.forEach(line -> rows.add(new Object[] {line}));
    return new Prepared.Rows(sql, SCHEMA, rows);
  }
}

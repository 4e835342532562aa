package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.join.BuildSide;
import io.sqe.engine.exec.join.JoinProbe;
import io.sqe.engine.exec.join.JoinType;
import io.sqe.engine.exec.join.Matches;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A join without equality keys (a cross join, or a join on other conditions): the build (right)
 * input is read whole into batches counted against the query's memory limit (past it the query
 * fails with RESOURCE_EXHAUSTED naming this operator), then the probe (left) input opens and every
 * probe row is paired with every build row, the condition, if any, deciding ({@link JoinProbe}).
 */
public final class NestedLoopJoinBatches implements BatchOperator {
  static final String NAME = "NestedLoopJoin";

  /** Opens the probe input once the build side is read, so that its read-ahead holds no memory meanwhile. */
  private final Supplier<BatchOperator> probeInput;
  private final BatchOperator buildInput;
  private final JoinType type;
  private final Predicate condition;
  private final Schema probeSchema;
  private final Schema buildSchema;
  private final Schema outputSchema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private JoinProbe join;
  private BuildSide build;
  private boolean buildClosed;
  private boolean closed;

  /** @param condition over a probe row's columns, then a build row's; null for a cross join */
  public NestedLoopJoinBatches(
      Supplier<BatchOperator> probeInput,
      BatchOperator buildInput,
      JoinType type,
      Predicate condition,
      Schema probeSchema,
      Schema buildSchema,
      Schema outputSchema,
      QueryContext context,
      BufferAllocator allocator) {
    this.probeInput = requireNonNull(probeInput, "probeInput is null");
    this.buildInput = requireNonNull(buildInput, "buildInput is null");
    this.type = requireNonNull(type, "type is null");
    this.context = requireNonNull(context, "context is null");
    this.condition = condition == null ? null : condition.bind(context::get);
    this.probeSchema = requireNonNull(probeSchema, "probeSchema is null");
    this.buildSchema = requireNonNull(buildSchema, "buildSchema is null");
    this.outputSchema = requireNonNull(outputSchema, "outputSchema is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  @Override
  public VectorSchemaRoot next() {
    if (join == null) {
      try {
        build = BuildSide.read(buildInput, NAME, context, allocator, (batch, first) -> {});
      } finally {
        buildClosed = true;
        buildInput.close();
      }
      BatchOperator probe;
      try {
        probe = probeInput.get();
      } catch (RuntimeException | Error e) {
        build.close();
        build = null;
        throw e;
      }
      join = new JoinProbe(probe, build, new EveryRow(build.rowCount()), type, condition, probeSchema, buildSchema, outputSchema, context, allocator);
    }
    return join.next();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (join != null) {
        join.close();
      } else if (!buildClosed) {
        buildInput.close();
      }
    } finally {
      if (build != null) {
        build.close();
      }
    }
  }

  /** Every build row is a candidate for every probe row. */
  private record EveryRow(int rows) implements Matches {
    @Override
    public void probe(VectorSchemaRoot batch) {}

    @Override
    public int first(int probeRow) {
      return rows > 0 ? 0 : -1;
    }

    @Override
    public int next(int buildRow) {
      return buildRow + 1 < rows ? buildRow + 1 : -1;
    }
  }
}

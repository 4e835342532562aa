package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.join.BuildSide;
import io.sqe.engine.exec.join.JoinProbe;
import io.sqe.engine.exec.join.JoinType;
import io.sqe.engine.exec.join.Matches;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A join without equality keys (a cross join, or a join on other conditions): the build (right)
 * input is read whole into batches counted against the query's memory limit (past it the query
 * fails with RESOURCE_EXHAUSTED naming this operator), then every probe row is paired with every
 * build row and the condition, if any, decides ({@link JoinProbe}).
 */
public final class NestedLoopJoinBatches implements BatchOperator {
  static final String NAME = "NestedLoopJoin";

  private final BatchOperator probeInput;
  private final BatchOperator buildInput;
  private final JoinType type;
  private final Predicate condition;
  private final Schema probeSchema;
  private final Schema buildSchema;
  private final Schema outputSchema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private JoinProbe join;
  private boolean buildClosed;
  private boolean closed;

  /** @param condition over a probe row's columns, then a build row's; null for a cross join */
  public NestedLoopJoinBatches(
      BatchOperator probeInput,
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
      BuildSide build;
      try {
        build = BuildSide.read(buildInput, NAME, context, allocator, (batch, first) -> {});
      } finally {
        buildClosed = true;
        buildInput.close();
      }
      join = new JoinProbe(probeInput, build, new EveryRow(build.rowCount()), type, condition, probeSchema, buildSchema, outputSchema, context, allocator);
    }
    return join.next();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (join != null) {
      join.close();
      return;
    }
    try (probeInput) {
      if (!buildClosed) {
        buildInput.close();
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

package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.join.BuildSide;
import io.sqe.engine.exec.join.JoinProbe;
import io.sqe.engine.exec.join.JoinType;
import io.sqe.engine.exec.join.Matches;
import io.sqe.engine.exec.join.SharedBuild;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A join without equality keys (a cross join, or a join on other conditions): the build (right)
 * input is read whole into batches counted against the query's memory limit (past it the query
 * fails with RESOURCE_EXHAUSTED naming this operator), then the probe (left) input opens and every
 * probe row is paired with every build row, the condition, if any, deciding ({@link JoinProbe}).
 *
 * <p>Inside a parallel pipeline the parts' joins may share one build side ({@link SharedBuild}),
 * read by the first part to need it, each part pairing its own probe rows with it.
 */
public final class NestedLoopJoinBatches implements BatchOperator {
  static final String NAME = "NestedLoopJoin";

  /** Opens the probe input once the build side is read, so that its read-ahead holds no memory meanwhile. */
  private final Supplier<BatchOperator> probeInput;
  /** The build input, opened by this join, or by whichever part reads a shared build side. */
  private final Supplier<BatchOperator> buildInput;
  /** The build input this join opened, until it is read. */
  private BatchOperator openedBuild;
  private final SharedBuild<BuildSide> shared;
  private final JoinType type;
  private final Predicate condition;
  private final Schema probeSchema;
  private final Schema buildSchema;
  private final Schema outputSchema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private JoinProbe join;
  private BuildSide build;
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
    this(probeInput, () -> buildInput, null, type, condition, probeSchema, buildSchema, outputSchema, context, allocator);
    this.openedBuild = requireNonNull(buildInput, "buildInput is null");
  }

  /**
   * A join of one part of a parallel pipeline whose parts share {@code shared}: the part that reads
   * it opens {@code buildInput}, the others never do. The join type must decide each probe row
   * alone (not RIGHT or FULL): no part sees the others' matches.
   */
  public NestedLoopJoinBatches(
      Supplier<BatchOperator> probeInput,
      Supplier<BatchOperator> buildInput,
      SharedBuild<BuildSide> shared,
      JoinType type,
      Predicate condition,
      Schema probeSchema,
      Schema buildSchema,
      Schema outputSchema,
      QueryContext context,
      BufferAllocator allocator) {
    this.probeInput = requireNonNull(probeInput, "probeInput is null");
    this.buildInput = requireNonNull(buildInput, "buildInput is null");
    this.shared = shared;
    if (shared != null && type.returnsUnmatchedBuildRows()) {
      throw new IllegalArgumentException("A " + type + " join cannot share its build side between parts");
    }
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
      BatchOperator own = openedBuild;
      openedBuild = null;
      build = shared == null ? read(own) : shared.acquire(() -> read(buildInput.get()));
      BatchOperator probe = probeInput.get();
      join = new JoinProbe(probe, build, new EveryRow(build.rowCount()), type, condition, probeSchema, buildSchema, outputSchema, context, allocator);
    }
    return join.next();
  }

  /** Reads {@code input} whole, and closes it. */
  private BuildSide read(BatchOperator input) {
    try {
      return BuildSide.read(input, NAME, context, allocator, (batch, first) -> {});
    } finally {
      input.close();
    }
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
      } else if (openedBuild != null) {
        openedBuild.close();
      }
    } finally {
      if (shared != null) {
        shared.release();
      } else if (build != null) {
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

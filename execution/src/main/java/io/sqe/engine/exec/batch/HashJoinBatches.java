package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.join.HashBuild;
import io.sqe.engine.exec.join.JoinProbe;
import io.sqe.engine.exec.join.JoinType;
import io.sqe.engine.exec.join.KeyPublication;
import io.sqe.engine.exec.join.SharedBuild;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A join on equality keys: the build (right) input is read whole into batches, its keys into a
 * key table and each key's rows into a chain, all under the query's allocator (past
 * {@code query.max-memory} the query fails with RESOURCE_EXHAUSTED naming this operator); then the
 * probe (left) input opens, after a key column's values went to its scan if the plan wired a
 * dynamic filter ({@link KeyPublication}), and streams past it ({@link JoinProbe}). A NULL key
 * never matches: such build rows join nothing and stay out of the key table (a RIGHT or FULL join
 * still returns them), such probe rows find nothing. A semi or anti join without a residual
 * condition keeps the build side's keys only ({@link HashBuild}). Inside a parallel pipeline the
 * parts' joins may share one build side ({@link SharedBuild}), read by the first part to need it.
 */
public final class HashJoinBatches implements BatchOperator {
  static final String NAME = "HashJoin";

  /** Opens the probe input once the build side is read (and its keys published). */
  private final Supplier<BatchOperator> probeInput;
  private final KeyPublication publication;
  /** The build input, opened by this join, or by whichever part reads a shared build side. */
  private final Supplier<BatchOperator> buildInput;
  /** The build side the parts of a parallel pipeline share; null for this join's own. */
  private final SharedBuild shared;
  private final int[] probeKeys;
  private final int[] buildKeys;
  private final JoinType type;
  private final Predicate residual;
  private final Schema probeSchema;
  private final Schema buildSchema;
  private final Schema outputSchema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  /** This join's own build side, or the shared one while this join holds it. */
  private HashBuild build;
  private BatchOperator openedBuild;
  private JoinProbe join;
  private boolean closed;

  /**
   * @param probeKeys the probe input's key columns, equal pairwise to {@code buildKeys}' (same types)
   * @param residual a condition over a probe row's columns, then a build row's, that a matching pair must meet too; null for none
   * @param publication where to hand a key column's build values before the probe input opens; null for nowhere
   */
  public HashJoinBatches(
      Supplier<BatchOperator> probeInput,
      BatchOperator buildInput,
      int[] probeKeys,
      int[] buildKeys,
      JoinType type,
      Predicate residual,
      KeyPublication publication,
      Schema probeSchema,
      Schema buildSchema,
      Schema outputSchema,
      QueryContext context,
      BufferAllocator allocator) {
    this(probeInput, () -> buildInput, null, probeKeys, buildKeys, type, residual, publication, probeSchema, buildSchema, outputSchema, context, allocator);
    this.openedBuild = requireNonNull(buildInput, "buildInput is null");
  }

  /**
   * A join of one part of a parallel pipeline whose parts share {@code shared}: the part that reads
   * it opens {@code buildInput}, the others never do, and its keys are published for the whole
   * execution, so every part's scan reads them. The join type must decide each probe row alone
   * (not RIGHT or FULL): no part sees the others' matches.
   */
  public HashJoinBatches(
      Supplier<BatchOperator> probeInput,
      Supplier<BatchOperator> buildInput,
      SharedBuild shared,
      int[] probeKeys,
      int[] buildKeys,
      JoinType type,
      Predicate residual,
      KeyPublication publication,
      Schema probeSchema,
      Schema buildSchema,
      Schema outputSchema,
      QueryContext context,
      BufferAllocator allocator) {
    this.probeInput = requireNonNull(probeInput, "probeInput is null");
    this.buildInput = requireNonNull(buildInput, "buildInput is null");
    this.shared = shared;
    this.probeKeys = probeKeys.clone();
    this.buildKeys = buildKeys.clone();
    if (this.probeKeys.length == 0 || this.probeKeys.length != this.buildKeys.length) {
      throw new IllegalArgumentException("A hash join needs as many probe keys as build keys, at least one");
    }
    this.type = requireNonNull(type, "type is null");
    if (shared != null && type.returnsUnmatchedBuildRows()) {
      throw new IllegalArgumentException("A " + type + " join cannot share its build side between parts");
    }
    this.context = requireNonNull(context, "context is null");
    this.residual = residual == null ? null : residual.bind(context::get);
    this.publication = publication;
    this.probeSchema = requireNonNull(probeSchema, "probeSchema is null");
    this.buildSchema = requireNonNull(buildSchema, "buildSchema is null");
    this.outputSchema = requireNonNull(outputSchema, "outputSchema is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  @Override
  public VectorSchemaRoot next() {
    if (join == null) {
      build();
    }
    return join.next();
  }

  private void build() {
    BatchOperator own = openedBuild;
    // Read (and closed) by read() whatever happens.
    openedBuild = null;
    build = shared == null ? read(own, context) : shared.acquire(() -> read(buildInput.get(), context.whole()));
    BatchOperator probe = probeInput.get();
    join = new JoinProbe(probe, build.rows(), build.matches(probeKeys), type, residual, probeSchema, buildSchema, outputSchema, context, allocator);
  }

  private HashBuild read(BatchOperator input, QueryContext publishIn) {
    boolean keysOnly = (type == JoinType.SEMI || type == JoinType.ANTI) && residual == null;
    return HashBuild.read(input, buildKeys, buildSchema, keysOnly, publication, publishIn, NAME, context, allocator);
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
}

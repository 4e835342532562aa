package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.join.HashBuild;
import io.sqe.engine.exec.join.JoinProbe;
import io.sqe.engine.exec.join.JoinType;
import io.sqe.engine.exec.join.KeyPublication;
import io.sqe.engine.exec.join.SharedBuild;
import io.sqe.engine.exec.join.SpilledPartitions;
import io.sqe.engine.exec.spill.SpilledRun;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A join on equality keys: the build (right) input is read whole into batches, its keys into a
 * key table and each key's rows into a chain, all under the query's allocator ({@link HashBuild});
 * then the probe (left) input opens, after a key column's values went to its scan if the plan
 * wired a dynamic filter ({@link KeyPublication}), and streams past it ({@link JoinProbe}). A NULL
 * key never matches: such build rows join nothing and stay out of the key table (a RIGHT or FULL
 * join still returns them), such probe rows find nothing. A semi or anti join without a residual
 * condition keeps the build side's keys only.
 *
 * <p>A build side past the operator's budget (a quarter of the query's memory limit, or less when
 * the query's other operators leave less) is a grace hash join: its rows, and then the probe side's,
 * go to {@value #PARTITIONS} spill partitions by a hash of their keys, and each pair of partitions
 * is joined as above, one after the other; a build partition that still does not fit is split
 * again with another hash, at most {@value #MAX_DEPTH} times, past which the query fails with
 * RESOURCE_EXHAUSTED naming this operator. The dynamic filter still gets every build key.
 *
 * <p>Inside a parallel pipeline the parts' joins may share one build side ({@link SharedBuild}),
 * read by the first part to need it. A shared build side that spills is partitioned once; each
 * part then partitions its own probe side with the same hash and joins each of its probe
 * partitions with the shared build partition, which every part reads for itself and none
 * deletes (the last part to let go of the build side deletes its runs).
 */
public final class HashJoinBatches implements BatchOperator {
  static final String NAME = "HashJoin";
  /** Partitions a spilled side splits into: a build side 16 times its budget splits into parts that fit. */
  static final int PARTITIONS = 16;
  /** Splits at most on the way to one partition: 16^4 parts, past which it is one key's rows. */
  static final int MAX_DEPTH = 4;

  /** Opens the probe input once the build side is read (and its keys published). */
  private final Supplier<BatchOperator> probeInput;
  private final KeyPublication publication;
  /** The build input, opened by this join, or by whichever part reads a shared build side. */
  private final Supplier<BatchOperator> buildInput;
  /** The build side the parts of a parallel pipeline share; null for this join's own. */
  private final SharedBuild<HashBuild> shared;
  private final int[] probeKeys;
  private final int[] buildKeys;
  private final JoinType type;
  private final Predicate residual;
  /** The residual condition as given, for the joins of spilled partitions, which bind it themselves. */
  private final Predicate unboundResidual;
  private final Schema probeSchema;
  private final Schema buildSchema;
  private final Schema outputSchema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  /** How many times the rows of this join were split into partitions on the way to it: 0 for the plan's own join. */
  private final int depth;
  /** This join's own build side, or the shared one while this join holds it. */
  private HashBuild build;
  private BatchOperator openedBuild;
  private JoinProbe join;
  private boolean closed;

  /** The build side's runs once it spilled, and the probe side's. */
  private HashBuild.Spilled buildRuns;
  private SpilledRun[] probeRuns;
  /** The next partition to join, and the join of the one before it while it returns rows. */
  private int partition;
  private HashJoinBatches partitionJoin;

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
    this(probeInput, buildInput, probeKeys, buildKeys, type, residual, publication, probeSchema, buildSchema, outputSchema, context, allocator, 0);
  }

  private HashJoinBatches(
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
      BufferAllocator allocator,
      int depth) {
    this(probeInput, () -> buildInput, null, probeKeys, buildKeys, type, residual, publication, probeSchema, buildSchema, outputSchema, context, allocator, depth);
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
      SharedBuild<HashBuild> shared,
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
    this(probeInput, buildInput, shared, probeKeys, buildKeys, type, residual, publication, probeSchema, buildSchema, outputSchema, context, allocator, 0);
  }

  private HashJoinBatches(
      Supplier<BatchOperator> probeInput,
      Supplier<BatchOperator> buildInput,
      SharedBuild<HashBuild> shared,
      int[] probeKeys,
      int[] buildKeys,
      JoinType type,
      Predicate residual,
      KeyPublication publication,
      Schema probeSchema,
      Schema buildSchema,
      Schema outputSchema,
      QueryContext context,
      BufferAllocator allocator,
      int depth) {
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
    this.unboundResidual = residual;
    this.residual = residual == null ? null : residual.bind(context::get);
    this.publication = publication;
    this.probeSchema = requireNonNull(probeSchema, "probeSchema is null");
    this.buildSchema = requireNonNull(buildSchema, "buildSchema is null");
    this.outputSchema = requireNonNull(outputSchema, "outputSchema is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.depth = depth;
  }

  @Override
  public VectorSchemaRoot next() {
    if (join == null && probeRuns == null) {
      build();
    }
    if (join != null) {
      return join.next();
    }
    try {
      return nextOfPartitions();
    } catch (OutOfMemoryException e) {
      throw HashBuild.exceeded(NAME, depth, context, allocator, e);
    }
  }

  private void build() {
    BatchOperator own = openedBuild;
    // Read (and closed) by read() whatever happens.
    openedBuild = null;
    build = shared == null ? read(own, context, spilling()) : shared.acquire(() -> read(buildInput.get(), context.whole(), spilling()));
    if (build.spilled() != null) {
      buildRuns = build.spilled();
      partitionProbeSide();
      return;
    }
    BatchOperator probe = probeInput.get();
    join = new JoinProbe(probe, build.rows(), build.matches(probeKeys), type, residual, probeSchema, buildSchema, outputSchema, context, allocator);
  }

  private HashBuild read(BatchOperator input, QueryContext publishIn, HashBuild.Spilling spilling) {
    boolean keysOnly = (type == JoinType.SEMI || type == JoinType.ANTI) && residual == null;
    return HashBuild.read(input, buildKeys, buildSchema, keysOnly, publication, publishIn, NAME, spilling, context, allocator);
  }

  /** How this join's own build side spills: each level splits by another hash, so rows that shared a partition above part. */
  private HashBuild.Spilling spilling() {
    return new HashBuild.Spilling(PARTITIONS, seed(), type.returnsUnmatchedBuildRows(), depth, MAX_DEPTH);
  }

  private long seed() {
    return 0x9E3779B97F4A7C15L * (depth + 1);
  }

  /** Writes the probe side to partitions as the build side's, then closes it. */
  private void partitionProbeSide() {
    boolean unmatchedProbeRows = type == JoinType.LEFT || type == JoinType.FULL || type == JoinType.ANTI;
    try (SpilledPartitions partitions = new SpilledPartitions(
            context.spill(), probeSchema, probeKeys, PARTITIONS, seed(), unmatchedProbeRows, allocator.getLimit() / 16, allocator);
        BatchOperator probe = probeInput.get()) {
      for (VectorSchemaRoot batch = probe.next(); batch != null; batch = probe.next()) {
        try (VectorSchemaRoot owned = batch) {
          partitions.add(owned);
        }
        context.checkCancelled();
      }
      probeRuns = partitions.finish();
    } catch (OutOfMemoryException e) {
      throw HashBuild.exceeded(NAME, depth, context, allocator, e);
    }
  }

  /** The next batch of the joins of the partition pairs, one pair after the other; null after the last. */
  private VectorSchemaRoot nextOfPartitions() {
    while (true) {
      if (partitionJoin == null) {
        if (partition == PARTITIONS) {
          return null;
        }
        SpilledRun buildRun = buildRuns.run(partition);
        SpilledRun probeRun = probeRuns[partition];
        partition++;
        partitionJoin = new HashJoinBatches(
            () -> new RunBatches(probeRun, allocator),
            new RunBatches(buildRun, allocator, shared == null),
            probeKeys,
            buildRuns.keys(),
            type,
            unboundResidual,
            null,
            probeSchema,
            buildRuns.schema(),
            outputSchema,
            context,
            allocator,
            depth + 1);
      }
      VectorSchemaRoot out = partitionJoin.next();
      if (out != null) {
        return out;
      }
      closePartitionJoin();
      context.checkCancelled();
    }
  }

  private void closePartitionJoin() {
    int done = partition - 1;
    try {
      partitionJoin.close();
    } finally {
      partitionJoin = null;
      // The probe run was never opened when the build partition had no row to match. A shared
      // build side's runs are the other parts' too: they go when the last part lets go of it.
      if (shared == null) {
        buildRuns.delete(done);
      }
      deleteProbeRun(done);
    }
  }

  private void deleteProbeRun(int index) {
    if (probeRuns != null && probeRuns[index] != null) {
      probeRuns[index].delete();
      probeRuns[index] = null;
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (partitionJoin != null) {
        closePartitionJoin();
      }
      if (join != null) {
        join.close();
      } else if (openedBuild != null) {
        openedBuild.close();
      }
    } finally {
      try {
        if (shared != null) {
          shared.release();
        } else if (build != null) {
          // Releases the rows and key table, or deletes the build runs not joined yet.
          build.close();
        }
      } finally {
        for (int p = 0; p < PARTITIONS; p++) {
          deleteProbeRun(p);
        }
      }
    }
  }
}

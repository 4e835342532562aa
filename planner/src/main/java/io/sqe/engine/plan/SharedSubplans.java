package io.sqe.engine.plan;

import io.sqe.engine.iceberg.IcebergTableScan;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptLattice;
import org.apache.calcite.plan.RelOptMaterialization;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.RepeatUnion;
import org.apache.calcite.rel.core.Spool;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.sql.SqlExplainLevel;
import org.apache.calcite.tools.Program;
import org.apache.calcite.util.Pair;

/**
 * Computes a subplan that the physical plan holds more than once only once per execution: TPC-H
 * Q15's view, joined and also aggregated for its maximum, and the dimension filters a semi-join
 * reduction repeats (Q20). Subplans are the same when their operators, attributes and row types
 * are; each occurrence of one worth sharing is wrapped in a {@link SharedSubplan}, whose first
 * run stores the rows for the others ({@link io.sqe.engine.exec.SharedRows}).
 *
 * <p>A subplan is shared only if its rows are the same wherever and whenever it runs in one
 * execution: no correlation variables, only deterministic calls, no part of a split scan or of a
 * parallel pipeline's shared build side unless its own parallel gather is in the subplan too, and
 * no scans other than Iceberg's (a recursive query's transient table changes between reads). It
 * must be worth storing: more than a bare scan, estimated to cost at least {@link
 * PlannerOptions#sharedSubplanMinCost()} rows of work, and estimated to return at most {@link
 * PlannerOptions#sharedSubplanMaxRows()} rows. That bound holds at run
 * time too: a subplan that returns more is not kept (its first consumer streams the rest, the
 * others compute their own), so an estimate that was too low costs time, never memory. The largest shared subplans are chosen first, so a subplan repeated only inside a shared
 * one is not stored again.
 *
 * <p>Runs last, on the finished physical plan (parallel parts included), so the plan's shape and
 * costs are what they would be without it. {@link PlannerOptions#sharedSubplans()} turns it on
 * and off.
 */
final class SharedSubplans implements Program {
  static final SharedSubplans INSTANCE = new SharedSubplans();

  private static final AtomicLong KEYS = new AtomicLong();

  private SharedSubplans() {}

  @Override
  public RelNode run(
      RelOptPlanner planner,
      RelNode rel,
      RelTraitSet requiredOutputTraits,
      List<RelOptMaterialization> materializations,
      List<RelOptLattice> lattices) {
    PlannerOptions options = PlannerOptions.of(planner);
    if (!options.sharedSubplans()) {
      return rel;
    }
    return new Rewrite(rel, options.sharedSubplanMaxRows(), options.sharedSubplanMinCost()).run();
  }

  /** One plan's rewrite. */
  private static final class Rewrite {
    private final RelNode root;
    private final RelMetadataQuery mq;
    /** Each node's key (the same node object may appear at several places). */
    private final Map<RelNode, String> keys = new IdentityHashMap<>();
    private final Map<RelNode, Integer> sizes = new IdentityHashMap<>();
    private final Map<String, Integer> counts = new HashMap<>();
    /** The keys of the subplans to share, with their number in the plan. */
    private final Map<String, Integer> shared = new HashMap<>();
    private final Map<String, String> runtimeKeys = new HashMap<>();
    private final long maxRows;
    private final double minCost;

    Rewrite(RelNode root, long maxRows, double minCost) {
      this.root = root;
      this.maxRows = maxRows;
      this.minCost = minCost;
      this.mq = root.getCluster().getMetadataQuery();
    }

    RelNode run() {
      List<RelNode> occurrences = new ArrayList<>();
      collect(root, occurrences);
      boolean repeated = false;
      for (RelNode node : occurrences) {
        repeated |= counts.merge(key(node), 1, Integer::sum) > 1;
      }
      if (!repeated) {
        return root;
      }
      // Largest first: a subplan is decided before the subplans inside it.
      List<RelNode> bySize = new ArrayList<>(occurrences);
      bySize.sort(Comparator.comparingInt((RelNode node) -> sizes.get(node)).reversed());
      Set<String> rejected = new HashSet<>();
      for (RelNode node : bySize) {
        String key = key(node);
        int count = counts.get(key);
        if (count < 2 || shared.containsKey(key) || rejected.contains(key)) {
          continue;
        }
        if (!worthSharing(node)) {
          rejected.add(key);
          continue;
        }
        shared.put(key, shared.size());
        runtimeKeys.put(key, "subplan-" + KEYS.incrementAndGet());
        // Run once, its copies no longer repeat what is inside them.
        List<RelNode> inside = new ArrayList<>();
        for (RelNode input : node.getInputs()) {
          collect(input, inside);
        }
        for (RelNode descendant : inside) {
          counts.merge(key(descendant), -(count - 1), Integer::sum);
        }
      }
      return shared.isEmpty() ? root : rewrite(root);
    }

    private void collect(RelNode node, List<RelNode> into) {
      into.add(node);
      for (RelNode input : node.getInputs()) {
        collect(input, into);
      }
    }

    private RelNode rewrite(RelNode node) {
      List<RelNode> inputs = new ArrayList<>();
      boolean changed = false;
      for (RelNode input : node.getInputs()) {
        RelNode rewritten = rewrite(input);
        changed |= rewritten != input;
        inputs.add(rewritten);
      }
      RelNode copy = changed ? node.copy(node.getTraitSet(), inputs) : node;
      String key = key(node);
      Integer ordinal = shared.get(key);
      if (ordinal == null) {
        return copy;
      }
      return new SharedSubplan(node.getCluster(), node.getTraitSet(), copy, ordinal, runtimeKeys.get(key), maxRows);
    }

    /** The node's operators, attributes and row types, its inputs' included; equal keys compute equal rows. */
    private String key(RelNode node) {
      String known = keys.get(node);
      if (known != null) {
        return known;
      }
      StringBuilder text = new StringBuilder();
      text.append(node.getRelTypeName()).append('(');
      int size = 1;
      for (RelNode input : node.getInputs()) {
        key(input);
        size += sizes.get(input);
      }
      node.explain(new KeyWriter(text));
      text.append(")->").append(node.getRowType().getFullTypeString());
      String key = text.toString();
      keys.put(node, key);
      sizes.put(node, size);
      return key;
    }

    private boolean worthSharing(RelNode node) {
      if (node instanceof IcebergTableScan || node instanceof SharedSubplan || !sameRowsEverywhere(node, false)) {
        return false;
      }
      Double rows = mq.getRowCount(node);
      RelOptCost cost = mq.getCumulativeCost(node);
      return rows != null && rows <= maxRows && cost != null && !cost.isInfinite() && cost.getRows() >= minCost;
    }

    /**
     * Whether {@code node} returns the same rows wherever and whenever it runs in one execution.
     *
     * @param gathered whether a parallel gather above it, inside the subplan, runs it as parts
     */
    private static boolean sameRowsEverywhere(RelNode node, boolean gathered) {
      if (node instanceof IcebergTableScan) {
        // A split scan's rows are its part's; a gather inside the subplan collects all of them.
        return gathered || !((IcebergTableScan) node).isPartitioned();
      }
      if (node instanceof TableScan || node instanceof Spool || node instanceof RepeatUnion
          || node instanceof Correlate || !node.getVariablesSet().isEmpty()) {
        return false;
      }
      if (node instanceof SharedInput && !gathered) {
        // Shared by the parts of a pipeline the subplan is only a piece of.
        return false;
      }
      if (!PlanInspection.repeatableExpressions(node)) {
        return false;
      }
      boolean inputsGathered = gathered || node instanceof ParallelGather;
      for (RelNode input : node.getInputs()) {
        if (!sameRowsEverywhere(input, inputsGathered)) {
          return false;
        }
      }
      return true;
    }

    /** Writes a node's attributes, and its inputs as their keys, into a key. */
    private final class KeyWriter implements RelWriter {
      private final StringBuilder text;

      KeyWriter(StringBuilder text) {
        this.text = text;
      }

      @Override
      public void explain(RelNode rel, List<Pair<String, Object>> valueList) {
        throw new UnsupportedOperationException();
      }

      @Override
      public SqlExplainLevel getDetailLevel() {
        return SqlExplainLevel.DIGEST_ATTRIBUTES;
      }

      @Override
      public RelWriter item(String term, Object value) {
        text.append(term).append('=');
        if (value instanceof RelNode) {
          text.append('[').append(key((RelNode) value)).append(']');
        } else {
          text.append(value);
        }
        text.append(", ");
        return this;
      }

      @Override
      public RelWriter done(RelNode node) {
        return this;
      }
    }
  }
}

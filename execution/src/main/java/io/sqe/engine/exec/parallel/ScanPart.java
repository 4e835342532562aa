package io.sqe.engine.exec.parallel;

import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import org.apache.calcite.DataContext;

/**
 * What a pipeline sees while it runs as one part of a parallel pipeline: the state its parts share
 * (a split scan's files, planned once from one snapshot, and the next file to claim; the rows of a
 * hash join's build side, read once).
 */
public interface ScanPart {
  /** The part that {@code dataContext} runs, or null outside a parallel pipeline. */
  static ScanPart of(DataContext dataContext) {
    Object part = dataContext.get(PartContext.PART_KEY);
    return part instanceof ScanPart ? (ScanPart) part : null;
  }

  /** Which part this is, from 0. */
  int index();

  /** How many parts the pipeline runs. */
  int parts();

  /**
   * The state under {@code key} that all parts of this pipeline share in this execution, made by
   * {@code create} for the first part that asks; the others wait for it. A failure of {@code
   * create} is every part's.
   */
  <T> T shared(Object key, Supplier<T> create);

  /**
   * This part's own per-execution state (as {@code QueryContext.runtimeState()} is the query's):
   * the state of the generated code that each part runs for itself, such as a join's dynamic
   * filter and the keys it publishes to the part's scan.
   */
  ConcurrentMap<Object, Object> runtimeState();

  /**
   * Whether part {@code index} of this pipeline waits to hand a batch over to the pipeline's
   * consumer (its gather's queue is full): it reads nothing until that consumer takes a batch.
   */
  boolean handingOver(int index);

  /** The part this part's pipeline runs inside (a parallel pipeline in a shared build side), or null. */
  ScanPart outer();
}

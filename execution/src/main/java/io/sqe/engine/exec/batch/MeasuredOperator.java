package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.profile.OperatorStats;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * An operator that counts what another returns into its {@link OperatorStats}: a clock read and a
 * few additions a batch, so every columnar plan runs measured.
 */
public final class MeasuredOperator implements BatchOperator {
  private final BatchOperator operator;
  private final OperatorStats stats;

  private MeasuredOperator(BatchOperator operator, OperatorStats stats) {
    this.operator = requireNonNull(operator, "operator is null");
    this.stats = requireNonNull(stats, "stats is null");
  }

  /** {@code plan}, whose operators count into the run's figures of plan node {@code nodeId}. */
  public static BatchPlan measured(int nodeId, BatchPlan plan) {
    requireNonNull(plan, "plan is null");
    return (context, allocator) -> {
      OperatorStats stats = context.stats().operators().operator(nodeId);
      long start = System.nanoTime();
      BatchOperator operator = plan.open(context, allocator);
      stats.returned(-1, 0, System.nanoTime() - start);
      return new MeasuredOperator(operator, stats);
    };
  }

  @Override
  public VectorSchemaRoot next() {
    long start = System.nanoTime();
    VectorSchemaRoot batch = operator.next();
    long nanos = System.nanoTime() - start;
    if (batch == null) {
      stats.returned(-1, 0, nanos);
    } else {
      long bytes = 0;
      for (FieldVector vector : batch.getFieldVectors()) {
        bytes += vector.getBufferSize();
      }
      stats.returned(batch.getRowCount(), bytes, nanos);
    }
    return batch;
  }

  @Override
  public void close() {
    if (operator instanceof HoldsMemory holder) {
      stats.peakMemory(holder.peakMemoryBytes());
    }
    operator.close();
  }
}

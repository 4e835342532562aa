package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.RowSourceBatches;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Values;

/** Literal rows (VALUES, and the empty result of a condition that is always false), as one batch. */
public final class SqeValues extends Values implements SqeRel {
  /** The rows' values in the engine's run-time representation, in Calcite's row shape. */
  private final List<Object> rows;

  SqeValues(RelTraitSet traits, Values values, List<Object> rows) {
    super(values.getCluster(), values.getRowType(), values.getTuples(), traits);
    // A one-column row is its bare value, which may be null: no List.copyOf.
    this.rows = Collections.unmodifiableList(new ArrayList<>(rows));
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeValues(traitSet, this, rows);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw);
  }

  @Override
  public BatchPlan implement() {
    Schema schema = batchSchema();
    List<Object> values = rows;
    return (context, allocator) -> new RowSourceBatches(Linq4j.asEnumerable(values), schema, context, allocator);
  }
}

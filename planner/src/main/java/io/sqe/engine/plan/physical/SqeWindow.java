package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.WindowBatches;
import io.sqe.engine.exec.expr.RowComparator;
import io.sqe.engine.exec.window.WindowEvaluator;
import io.sqe.engine.exec.window.WindowFrame;
import io.sqe.engine.exec.window.WindowFunction;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rel.type.RelDataType;

/**
 * One window group over its input sorted by the group's PARTITION BY then ORDER BY keys: the
 * input's columns followed by the group's function values ({@link WindowBatches}).
 */
public final class SqeWindow extends SingleRel implements SqeRel {
  private final Window.Group group;
  private final RowComparator partition;
  private final RowComparator order;
  private final WindowFrame frame;
  private final List<WindowFunction> functions;
  private final RelDataType outputType;

  SqeWindow(
      RelTraitSet traits,
      RelNode input,
      Window.Group group,
      RowComparator partition,
      RowComparator order,
      WindowFrame frame,
      List<WindowFunction> functions,
      RelDataType outputType) {
    super(input.getCluster(), traits, input);
    this.group = group;
    this.partition = partition;
    this.order = order;
    this.frame = frame;
    this.functions = List.copyOf(functions);
    this.outputType = outputType;
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeWindow(traitSet, sole(inputs), group, partition, order, frame, functions, outputType);
  }

  @Override
  protected RelDataType deriveRowType() {
    return outputType;
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("window", group);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan in = SqeRel.implement(input);
    Schema schema = batchSchema();
    int inputColumns = input.getRowType().getFieldCount();
    RowComparator partitionKeys = partition;
    RowComparator orderKeys = order;
    WindowFrame rows = frame;
    List<WindowFunction> calls = functions;
    return (context, allocator) -> new WindowBatches(
        in.open(context, allocator), partitionKeys, new WindowEvaluator(calls, orderKeys, rows), schema, inputColumns, context, allocator);
  }
}

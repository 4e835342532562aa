package io.sqe.engine.plan.physical;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.SetOperationBatches;
import io.sqe.engine.exec.hash.KeyTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Intersect;
import org.apache.calcite.rel.core.Minus;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlKind;

/**
 * INTERSECT, EXCEPT (ALL or DISTINCT) and UNION DISTINCT: the inputs' rows counted by row in one
 * hash table ({@link SetOperationBatches}), NULLs equal as set operations compare rows.
 */
public final class SqeSetOperation extends SetOp implements SqeRel {
  private SqeSetOperation(RelTraitSet traits, List<RelNode> inputs, SqlKind kind, boolean all) {
    super(inputs.get(0).getCluster(), traits, List.of(), inputs, kind, all);
  }

  /**
   * {@code setOp} over its lowered inputs, or null when an input does not lower, its columns are not
   * of the result's Arrow types, or a column is of a type the hash table cannot key (nested types).
   */
  static SqeSetOperation of(SetOp setOp) {
    if (!(setOp instanceof Intersect || setOp instanceof Minus || setOp instanceof Union)) {
      return null;
    }
    List<RelDataTypeField> fields = setOp.getRowType().getFieldList();
    for (Field field : CalciteTypeMapping.toArrowSchema(setOp.getRowType()).getFields()) {
      if (!KeyTable.supports(field)) {
        return null;
      }
    }
    List<RelNode> inputs = new ArrayList<>();
    for (RelNode input : setOp.getInputs()) {
      for (int i = 0; i < fields.size(); i++) {
        if (!SourceLowering.sameArrowType(fields.get(i).getType(), input.getRowType().getFieldList().get(i).getType())) {
          return null;
        }
      }
      SqeRel lowered = ColumnarLowering.lower(input);
      if (lowered == null) {
        return null;
      }
      inputs.add(lowered);
    }
    return new SqeSetOperation(setOp.getTraitSet().replace(SqeRel.CONVENTION), inputs, setOp.kind, setOp.all);
  }

  @Override
  public SetOp copy(RelTraitSet traitSet, List<RelNode> inputs, boolean all) {
    return new SqeSetOperation(traitSet, inputs, kind, all);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("kind", kind);
  }

  @Override
  public BatchPlan implement() {
    List<BatchPlan> plans = new ArrayList<>();
    for (RelNode input : getInputs()) {
      plans.add(SqeRel.implement(input));
    }
    Schema schema = batchSchema();
    SetOperationBatches.Kind operation = switch (kind) {
      case INTERSECT -> SetOperationBatches.Kind.INTERSECT;
      case EXCEPT -> SetOperationBatches.Kind.EXCEPT;
      case UNION -> SetOperationBatches.Kind.UNION;
      default -> throw new IllegalStateException("Not a set operation: " + kind);
    };
    boolean keepDuplicates = all;
    return (context, allocator) -> new SetOperationBatches(plans, operation, keepDuplicates, schema, context, allocator);
  }
}

package io.sqe.engine.plan.physical;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.rex.RexVisitorImpl;

/**
 * Computes once a projection's output that its other outputs contain: TPC-H Q1's {@code
 * l_extendedprice * (1 - l_discount)} is an output and a factor of the next one, each a 128-bit
 * decimal product over every row. A projection below appends such outputs to its input's columns
 * (which it passes on without copying), and the projection above reads them there.
 */
final class CommonExpressions {
  private CommonExpressions() {}

  /** The projection of {@code projects} over {@code input}, its shared outputs computed once; null when the evaluator cannot compute it. */
  static SqeProject project(RelTraitSet traits, SqeRel input, List<RexNode> projects, RelDataType rowType) {
    List<RexNode> shared = shared(projects);
    if (shared.isEmpty()) {
      return SqeProject.ofExpressions(traits, input, projects, rowType);
    }
    RexBuilder rexBuilder = input.getCluster().getRexBuilder();
    RelDataTypeFactory.Builder belowType = input.getCluster().getTypeFactory().builder();
    List<RexNode> below = new ArrayList<>();
    for (RelDataTypeField field : input.getRowType().getFieldList()) {
      below.add(rexBuilder.makeInputRef(field.getType(), field.getIndex()));
      belowType.add(field);
    }
    int first = below.size();
    for (int k = 0; k < shared.size(); k++) {
      below.add(shared.get(k));
      belowType.add("$common" + k, shared.get(k).getType());
    }
    SqeProject computed = SqeProject.ofExpressions(traits, input, below, belowType.uniquify().build());
    if (computed == null) {
      return SqeProject.ofExpressions(traits, input, projects, rowType);
    }
    RexShuttle reuse = new RexShuttle() {
      @Override
      public RexNode visitCall(RexCall call) {
        int index = shared.indexOf(call);
        return index >= 0 ? rexBuilder.makeInputRef(call.getType(), first + index) : super.visitCall(call);
      }
    };
    List<RexNode> above = new ArrayList<>();
    for (RexNode project : projects) {
      above.add(project.accept(reuse));
    }
    return SqeProject.ofExpressions(traits, computed, above, rowType);
  }

  /** The outputs (calls the same every time they run) that another output contains. */
  private static List<RexNode> shared(List<RexNode> projects) {
    List<RexNode> shared = new ArrayList<>();
    for (int i = 0; i < projects.size(); i++) {
      RexNode candidate = projects.get(i);
      if (!(candidate instanceof RexCall) || !RexUtil.isDeterministic(candidate) || shared.contains(candidate)) {
        continue;
      }
      for (int j = 0; j < projects.size(); j++) {
        if (j != i && !projects.get(j).equals(candidate) && contains(projects.get(j), candidate)) {
          shared.add(candidate);
          break;
        }
      }
    }
    return shared;
  }

  private static boolean contains(RexNode expression, RexNode part) {
    boolean[] found = new boolean[1];
    expression.accept(new RexVisitorImpl<Void>(true) {
      @Override
      public Void visitCall(RexCall call) {
        if (call.equals(part)) {
          found[0] = true;
          return null;
        }
        return super.visitCall(call);
      }
    });
    return found[0];
  }
}

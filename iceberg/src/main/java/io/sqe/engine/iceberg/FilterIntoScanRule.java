package io.sqe.engine.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.plan.RelOptCostImpl;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelVisitor;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.tools.Program;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexPermuteInputsShuttle;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.ImmutableIntList;
import org.apache.calcite.util.mapping.Mappings;
import org.apache.iceberg.expressions.Expression;
import org.immutables.value.Value;

/**
 * Gives a scan the part of the Filter above it that Iceberg can use to skip files, and the
 * conjuncts it evaluates exactly on the rows it reads ({@code column [NOT] LIKE 'pattern'} on a
 * STRING column), which leave the Filter: their column is then read only where the scan needs it.
 */
@Value.Enclosing
public final class FilterIntoScanRule extends RelRule<FilterIntoScanRule.Config> {

  private static final double LIKE_SELECTIVITY = 0.25;

  /** Whether this instance only moves LIKE conjuncts (before fields are trimmed), leaving the rest to the full rule. */
  private final boolean likesOnly;

  FilterIntoScanRule(Config config) {
    this(config, false);
  }

  private FilterIntoScanRule(Config config, boolean likesOnly) {
    super(config);
    this.likesOnly = likesOnly;
  }

  /**
   * A program that moves LIKE conjuncts into the scans before unused fields are trimmed, so that a
   * column only they read is not returned by the scan: filters and join conditions are first pushed
   * as far down as Calcite's rules take them (as the planner does later anyway).
   */
  public static Program likesIntoScans() {
    HepProgram program =
        new HepProgramBuilder()
            .addRuleCollection(
                List.of(
                    CoreRules.FILTER_INTO_JOIN,
                    CoreRules.JOIN_CONDITION_PUSH,
                    CoreRules.FILTER_MERGE,
                    new FilterIntoScanRule(Config.DEFAULT, true)))
            .build();
    return (planner, rel, requiredOutputTraits, materializations, lattices) -> {
      if (!hasLike(rel)) {
        return rel;
      }
      HepPlanner hep = new HepPlanner(program, null, true, null, RelOptCostImpl.FACTORY);
      hep.setRoot(rel);
      return hep.findBestExp();
    };
  }

  /** Whether a filter or join condition in the plan calls LIKE or NOT LIKE. */
  private static boolean hasLike(RelNode rel) {
    boolean[] found = new boolean[1];
    new RelVisitor() {
      @Override
      public void visit(RelNode node, int ordinal, RelNode parent) {
        RexNode condition = node instanceof Filter ? ((Filter) node).getCondition() : node instanceof Join ? ((Join) node).getCondition() : null;
        if (condition != null
            && (RexUtil.findOperatorCall(SqlStdOperatorTable.LIKE, condition) != null
                || RexUtil.findOperatorCall(SqlStdOperatorTable.NOT_LIKE, condition) != null)) {
          found[0] = true;
        }
        if (!found[0]) {
          super.visit(node, ordinal, parent);
        }
      }
    }.go(rel);
    return found[0];
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Filter filter = call.rel(0);
    IcebergTableScan scan = call.rel(1);
    if (scan.limit() != null) {
      return;
    }
    RexBuilder rexBuilder = filter.getCluster().getRexBuilder();
    Optional<Expression> pushed =
        likesOnly || scan.hasFilter()
            ? Optional.empty()
            : new IcebergFilterConverter(scan, rexBuilder).convert(filter.getCondition());
    List<LikePredicate> likes = new ArrayList<>();
    List<RexNode> rest = new ArrayList<>();
    for (RexNode conjunct : RelOptUtil.conjunctions(filter.getCondition())) {
      LikePredicate like = like(scan, conjunct);
      if (like != null) {
        likes.add(like);
      } else {
        rest.add(conjunct);
      }
    }
    if (pushed.isEmpty() && likes.isEmpty()) {
      return;
    }
    IcebergTableScan newScan = pushed.isPresent() ? scan.withFilter(pushed.get()) : scan;
    if (!likes.isEmpty()) {
      // Calcite's guess for a LIKE (and for any NOT), but most rows pass a NOT LIKE (Q13, Q16).
      double selectivity = scan.likeSelectivity();
      for (LikePredicate like : likes) {
        selectivity *= like.negated() ? 1 - LIKE_SELECTIVITY : LIKE_SELECTIVITY;
      }
      List<LikePredicate> all = new ArrayList<>(scan.likes());
      all.addAll(likes);
      newScan = newScan.withLikes(all, selectivity);
    }
    if (rest.isEmpty()) {
      call.transformTo(newScan);
      return;
    }
    // The rest of the filter stays, and is where it is evaluated per row: the scan uses the
    // expression to skip files and row groups, and does not drop rows for it (IcebergScan relies on this).
    call.transformTo(filter.copy(filter.getTraitSet(), newScan, RexUtil.composeConjunction(rexBuilder, rest)));
  }

  /** The conjunct as a predicate the scan evaluates exactly, or null. */
  private static LikePredicate like(IcebergTableScan scan, RexNode conjunct) {
    boolean negated = false;
    RexNode node = conjunct;
    if (node.getKind() == SqlKind.NOT) {
      negated = true;
      node = ((RexCall) node).getOperands().get(0);
    }
    if (!(node instanceof RexCall) || node.getKind() != SqlKind.LIKE) {
      return null;
    }
    RexCall call = (RexCall) node;
    // ILIKE, RLIKE and the like share LIKE's kind; only LIKE and NOT LIKE are evaluated here.
    if (call.getOperator() == SqlStdOperatorTable.NOT_LIKE) {
      negated = !negated;
    } else if (call.getOperator() != SqlStdOperatorTable.LIKE) {
      return null;
    }
    List<RexNode> operands = call.getOperands();
    if (!(operands.get(0) instanceof RexInputRef)) {
      return null;
    }
    int index = ((RexInputRef) operands.get(0)).getIndex();
    if (index >= scan.getRowType().getFieldCount() || scan.isMetadataColumn(index)) {
      return null;
    }
    Types.NestedField column = scan.column(index);
    if (column.type().typeId() != Type.TypeID.STRING) {
      return null;
    }
    String pattern = literalString(operands.get(1));
    if (pattern == null) {
      return null;
    }
    Character escape = null;
    if (operands.size() == 3) {
      String text = literalString(operands.get(2));
      if (text == null || text.length() != 1) {
        return null;
      }
      escape = text.charAt(0);
    }
    return LikePredicate.of(column, pattern, escape, negated);
  }

  private static String literalString(RexNode node) {
    RexNode stripped = node;
    while (stripped.getKind() == SqlKind.CAST && ((RexCall) stripped).getOperands().get(0) instanceof RexLiteral) {
      stripped = ((RexCall) stripped).getOperands().get(0);
    }
    if (!(stripped instanceof RexLiteral) || ((RexLiteral) stripped).isNull()) {
      return null;
    }
    SqlTypeName type = ((RexLiteral) stripped).getTypeName();
    if (type != SqlTypeName.CHAR && type != SqlTypeName.VARCHAR) {
      return null;
    }
    return ((RexLiteral) stripped).getValueAs(String.class);
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = false)
  public interface Config extends RelRule.Config {
    Config DEFAULT =
        ImmutableFilterIntoScanRule.Config.builder()
            .build()
            .withOperandSupplier(
                b0 -> b0.operand(Filter.class).oneInput(b1 -> b1.operand(IcebergTableScan.class).noInputs()))
            .as(Config.class);

    @Override
    default FilterIntoScanRule toRule() {
      return new FilterIntoScanRule(this);
    }
  }
}

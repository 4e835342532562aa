package io.sqe.engine.plan;

import io.sqe.engine.sql.functions.TimestampMicros;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.DataContexts;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.hep.HepMatchOrder;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.rel.metadata.DefaultRelMetadataProvider;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexExecutor;
import org.apache.calcite.rex.RexExecutorImpl;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;
import org.apache.calcite.tools.Program;
import org.apache.calcite.tools.Programs;

/**
 * Constant folding: expressions without column references, such as {@code DATE '1996-01-01' +
 * INTERVAL '3' MONTH} or {@code 0.06 - 0.01}, are computed once while planning instead of once per
 * row. A folded bound is a literal, so it also reaches the Iceberg scan as a pushed filter (row-group
 * pruning and the filters on the vectors); before, only the other bound of such a range did.
 *
 * <p>Calcite's {@code ReduceExpressionsRule} finds the constant expressions; this executor decides
 * which of them it is safe to compute now and leaves the rest as they are:
 *
 * <ul>
 *   <li>nothing that depends on when or where the statement runs: dynamic functions ({@code
 *       CURRENT_TIMESTAMP}, {@code CURRENT_DATE}, {@code USER}...) and non-deterministic ones ({@code
 *       RAND}) stay, because a cached plan is run again later and by other users;
 *   <li>nothing that touches a TIMESTAMP or TIME value: SQE represents timestamps as microseconds
 *       ({@link MicrosecondTimestamps}), which Calcite's literal conversion would read as
 *       milliseconds;
 *   <li>no user-defined function, whose code may not be safe to run while planning;
 *   <li>an expression that fails (a division by zero, a bad cast) or runs too long (a regular
 *       expression that backtracks: see {@link io.sqe.engine.exec.Checkpoint#of}) is left for
 *       execution, where it fails with the statement's usual error or stops at its timeout.
 * </ul>
 *
 * <p>Expressions are computed with the implementations the compiled plan has ({@link
 * OperatorImplementations}), so a folded value is the one execution would compute.</p>
 */
final class ConstantFolding implements RexExecutor {
  /**
   * Value types whose Calcite literal is exactly the value the generated code computes ({@link
   * SqlTypeName#getFamily} puts every numeric type in NUMERIC).
   */
  private static final Set<SqlTypeFamily> EXACT_FAMILIES =
      EnumSet.of(
          SqlTypeFamily.NUMERIC,
          SqlTypeFamily.BOOLEAN,
          SqlTypeFamily.CHARACTER,
          SqlTypeFamily.DATE,
          SqlTypeFamily.INTERVAL_YEAR_MONTH,
          SqlTypeFamily.INTERVAL_DAY_TIME);

  private final RexExecutor delegate = new RexExecutorImpl(DataContexts.EMPTY);

  /** Installs the executor on the planner (Calcite's reduction rules do nothing without one). */
  static void install(RelOptPlanner planner) {
    planner.setExecutor(new ConstantFolding());
  }

  /** The planning step: folds constants in filters, projections and join conditions. */
  static Program program() {
    HepProgram hep =
        new HepProgramBuilder()
            .addMatchOrder(HepMatchOrder.BOTTOM_UP)
            .addRuleCollection(
                List.of(
                    CoreRules.FILTER_REDUCE_EXPRESSIONS,
                    CoreRules.PROJECT_REDUCE_EXPRESSIONS,
                    CoreRules.JOIN_REDUCE_EXPRESSIONS))
            .build();
    Program fold = Programs.of(hep, true, DefaultRelMetadataProvider.INSTANCE);
    return (planner, rel, traits, materializations, lattices) ->
        planner.getExecutor() instanceof ConstantFolding
            ? fold.run(planner, rel, traits, materializations, lattices)
            : rel;
  }

  @Override
  public void reduce(RexBuilder rexBuilder, List<RexNode> constExps, List<RexNode> reducedValues) {
    List<RexNode> safe = new ArrayList<>();
    for (RexNode e : constExps) {
      if (foldable(e)) {
        safe.add(e);
      }
    }
    List<RexNode> executable = new ArrayList<>();
    for (RexNode e : safe) {
      executable.add(OperatorImplementations.rewrite(rexBuilder, e));
    }
    List<RexNode> folded = new ArrayList<>();
    if (!safe.isEmpty()) {
      delegate.reduce(rexBuilder, executable, folded);
    }
    // safe is a subsequence of constExps: walk both in step.
    int next = 0;
    for (RexNode e : constExps) {
      if (next < safe.size() && safe.get(next) == e) {
        RexNode value = folded.get(next);
        if (value == executable.get(next++)) {
          // Not folded (it failed, or took too long): the original stays for execution.
          reducedValues.add(e);
          continue;
        }
        reducedValues.add(value.getType().equals(e.getType()) ? value : rexBuilder.makeCast(e.getType(), value, true, false));
      } else {
        reducedValues.add(e);
      }
    }
  }

  private static boolean foldable(RexNode e) {
    if (!exactType(e)) {
      return false;
    }
    if (e instanceof RexLiteral) {
      return true;
    }
    if (!(e instanceof RexCall call)) {
      return false;
    }
    SqlOperator op = call.getOperator();
    if (op.isDynamicFunction()
        || !op.isDeterministic()
        || op instanceof SqlUserDefinedFunction
        || TimestampMicros.isOurs(op)) {
      return false;
    }
    for (RexNode operand : call.getOperands()) {
      if (!foldable(operand)) {
        return false;
      }
    }
    return true;
  }

  private static boolean exactType(RexNode e) {
    SqlTypeName name = e.getType().getSqlTypeName();
    if (name == SqlTypeName.NULL) {
      return true;
    }
    SqlTypeFamily family = name.getFamily();
    return family != null && EXACT_FAMILIES.contains(family);
  }
}

package io.sqe.engine.plan;

import io.sqe.engine.sql.functions.ArithmeticFunctions;
import io.sqe.engine.sql.functions.BoundedFunctions;
import io.sqe.engine.sql.functions.ConditionalFunctions;
import io.sqe.engine.sql.functions.LambdaFunctions;
import io.sqe.engine.sql.functions.LikeFunctions;
import io.sqe.engine.sql.functions.RegexFunctions;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.adapter.enumerable.EnumerableWindow;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Calc;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLambda;
import org.apache.calcite.rex.RexLocalRef;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * Puts SQE's implementations in place of Calcite's for the operators whose run-time code Calcite
 * generates unsafely for hostile input: LIKE and ILIKE (a backtracking regular expression) run on
 * {@link io.sqe.engine.sql.functions.LikePattern}; SIMILAR TO, {@code regexp_like} and {@code
 * regexp_replace} on {@link RegexFunctions}, which a statement timeout interrupts; integer +, -, *,
 * /, negation and {@code abs} on {@link ArithmeticFunctions}, which fail on overflow instead of
 * wrapping around, and so does the running total of SUM in a window ({@link CheckedSums}); {@code
 * lpad}, {@code rpad}, {@code repeat}, {@code replace}, {@code overlay}, {@code ||} (on text, binary
 * values and arrays), {@code concat}, {@code concat_ws}, {@code array_concat}, {@code array_join}
 * and {@code array_to_string} on {@link BoundedFunctions}, which refuse a result over the query's
 * limit on one value before allocating it; the JSON constructors' and formatters' text is checked
 * against that limit once built ({@link BoundedFunctions#CHECKED}). Trino's {@code try(x)} becomes {@code sqe_try(() -> x)},
 * which computes x where it can catch x's error.
 *
 * <p>It rewrites only what is compiled, as the last step before code generation (and the constant
 * expressions the planner folds): planner rules, the scans' pushed predicates and EXPLAIN all see
 * Calcite's operators. Each call becomes one call of the same operands and type, in lambda bodies
 * too.
 */
public final class OperatorImplementations {
  /**
   * SQE's implementations of Calcite's operators by identity (operators of one name and class are
   * equal, as the 3- and 4-operand {@code regexp_replace} are).
   */
  private static final Map<SqlOperator, SqlOperator> REPLACED = new IdentityHashMap<>();

  /**
   * The functions that build JSON text, by name (Calcite's SQL/JSON constructors and Trino's
   * formatters): their result is checked against the query's limit once built ({@link
   * BoundedFunctions#CHECKED}).
   */
  private static final Set<String> CHECKED_AFTER = Set.of(
      "json_object", "json_array", "json_pretty", "json_set", "json_insert", "json_replace", "json_format", "json_parse");

  static {
    REPLACED.put(SqlLibraryOperators.REGEXP_LIKE, RegexFunctions.REGEXP_LIKE);
    REPLACED.put(SqlLibraryOperators.REGEXP_REPLACE_PG_3, RegexFunctions.REGEXP_REPLACE);
    REPLACED.put(SqlLibraryOperators.REGEXP_REPLACE_PG_4, RegexFunctions.REGEXP_REPLACE);
    REPLACED.put(SqlLibraryOperators.ARRAY_JOIN, BoundedFunctions.ARRAY_TO_STRING);
    REPLACED.put(SqlLibraryOperators.ARRAY_TO_STRING, BoundedFunctions.ARRAY_TO_STRING);
    REPLACED.put(SqlLibraryOperators.ARRAY_CONCAT, BoundedFunctions.ARRAY_CONCAT);
    REPLACED.put(SqlLibraryOperators.CONCAT_FUNCTION_WITH_NULL, BoundedFunctions.CONCAT_FUNCTION);
  }

  /** Replacements of Calcite's operators that also take binary or array operands: for text only. */
  private static final Map<SqlOperator, SqlOperator> REPLACED_FOR_TEXT = new IdentityHashMap<>();

  static {
    REPLACED_FOR_TEXT.put(SqlLibraryOperators.LPAD, BoundedFunctions.LPAD);
    REPLACED_FOR_TEXT.put(SqlLibraryOperators.RPAD, BoundedFunctions.RPAD);
    REPLACED_FOR_TEXT.put(SqlLibraryOperators.REPEAT, BoundedFunctions.REPEAT);
    REPLACED_FOR_TEXT.put(SqlStdOperatorTable.REPLACE, BoundedFunctions.REPLACE);
    REPLACED_FOR_TEXT.put(SqlStdOperatorTable.CONCAT, BoundedFunctions.CONCAT);
    REPLACED_FOR_TEXT.put(SqlStdOperatorTable.OVERLAY, BoundedFunctions.OVERLAY);
  }

  /** Replacements of the same operators for binary operands. */
  private static final Map<SqlOperator, SqlOperator> REPLACED_FOR_BINARY = new IdentityHashMap<>();

  static {
    REPLACED_FOR_BINARY.put(SqlLibraryOperators.LPAD, BoundedFunctions.BINARY_LPAD);
    REPLACED_FOR_BINARY.put(SqlLibraryOperators.RPAD, BoundedFunctions.BINARY_RPAD);
    REPLACED_FOR_BINARY.put(SqlStdOperatorTable.CONCAT, BoundedFunctions.BINARY_CONCAT);
    REPLACED_FOR_BINARY.put(SqlStdOperatorTable.OVERLAY, BoundedFunctions.BINARY_OVERLAY);
  }

  private final Calls calls;
  private final Map<RelNode, RelNode> done = new IdentityHashMap<>();

  private OperatorImplementations(RexBuilder rexBuilder) {
    this.calls = new Calls(rexBuilder, null);
  }

  /** The plan with SQE's implementations; a node that occurs twice stays one node. */
  static RelNode rewrite(RelNode plan) {
    return new OperatorImplementations(plan.getCluster().getRexBuilder()).rel(plan);
  }

  /** The expression with SQE's implementations. */
  public static RexNode rewrite(RexBuilder rexBuilder, RexNode expression) {
    return expression.accept(new Calls(rexBuilder, null));
  }

  private RelNode rel(RelNode rel) {
    RelNode rewritten = done.get(rel);
    if (rewritten != null) {
      return rewritten;
    }
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = false;
    for (RelNode input : rel.getInputs()) {
      RelNode converted = rel(input);
      changed |= converted != input;
      inputs.add(converted);
    }
    RelNode current = changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    rewritten = current.accept(current instanceof Calc calc ? new Calls(calls.rexBuilder, calc.getProgram()) : calls);
    if (rewritten instanceof EnumerableWindow) {
      rewritten = new CheckedSums(rewritten.getCluster(), rewritten.getTraitSet(), rewritten);
    }
    done.put(rel, rewritten);
    return rewritten;
  }

  /** Replaces the calls of one expression, operands first. */
  private static final class Calls extends RexShuttle {
    private final RexBuilder rexBuilder;
    private final RexProgram program;

    /** @param program the program of the Calc whose expressions these are; null for full expressions */
    Calls(RexBuilder rexBuilder, RexProgram program) {
      this.rexBuilder = rexBuilder;
      this.program = program;
    }

    @Override
    public RexNode visitCall(RexCall call) {
      if (call.getOperator() == ConditionalFunctions.TRY) {
        // The operand is computed inside the call that catches its error. In a Calc it is expanded
        // from its local reference: a lambda's body must not share the Calc's other expressions, as
        // they are computed outside it (and Calcite's shuttles keep a lambda's body as it is, so
        // its references would not follow a renumbering of the program).
        RexNode operand = call.getOperands().get(0);
        if (operand instanceof RexLocalRef ref && program != null) {
          operand = program.expandLocalRef(ref);
        }
        RexNode body = operand.accept(this);
        return rexBuilder.makeCall(call.getType(), LambdaFunctions.TRY_EVALUATION, List.of(rexBuilder.makeLambdaCall(body, List.of())));
      }
      RexNode visited = super.visitCall(call);
      if (!(visited instanceof RexCall)) {
        return visited;
      }
      RexCall rewritten = (RexCall) visited;
      RexNode division = ArithmeticFunctions.exactDivision(rexBuilder, rewritten);
      if (division != null) {
        return division;
      }
      SqlOperator replacement = replacement(rewritten);
      if (replacement != null) {
        return rexBuilder.makeCall(rewritten.getType(), replacement, rewritten.getOperands());
      }
      String function = rewritten.getOperator().getName().toLowerCase(Locale.ROOT);
      if (CHECKED_AFTER.contains(function) && SqlTypeUtil.inCharFamily(rewritten.getType())) {
        return rexBuilder.makeCall(
            rewritten.getType(), BoundedFunctions.CHECKED, List.of(rewritten, rexBuilder.makeLiteral(function)));
      }
      return rewritten;
    }

    @Override
    public RexNode visitLambda(RexLambda lambda) {
      // RexShuttle visits a lambda's body but keeps the old one; transform(a, x -> x + 1) and
      // try(...), whose expression is a lambda, need the checked operators as much as the rest.
      RexNode body = lambda.getExpression().accept(this);
      return body == lambda.getExpression() ? lambda : rexBuilder.makeLambdaCall(body, lambda.getParameters());
    }

    private static SqlOperator replacement(RexCall call) {
      SqlOperator operator = call.getOperator();
      SqlOperator arithmetic = ArithmeticFunctions.replacement(call);
      if (arithmetic != null) {
        return arithmetic;
      }
      if (operator.getKind() == SqlKind.LIKE && operator instanceof SqlLikeOperator) {
        SqlLikeOperator like = (SqlLikeOperator) operator;
        if (like.isCaseSensitive()) {
          return like.isNegated() ? LikeFunctions.NOT_LIKE : LikeFunctions.LIKE;
        }
        return like.isNegated() ? LikeFunctions.NOT_ILIKE : LikeFunctions.ILIKE;
      }
      if (operator.getKind() == SqlKind.SIMILAR && operator instanceof SqlLikeOperator) {
        return ((SqlLikeOperator) operator).isNegated() ? RegexFunctions.NOT_SIMILAR : RegexFunctions.SIMILAR;
      }
      if (REPLACED_FOR_TEXT.containsKey(operator) && SqlTypeUtil.inCharFamily(call.getType())) {
        return REPLACED_FOR_TEXT.get(operator);
      }
      if (REPLACED_FOR_BINARY.containsKey(operator) && SqlTypeUtil.isBinary(call.getType())) {
        return REPLACED_FOR_BINARY.get(operator);
      }
      if (operator == SqlStdOperatorTable.CONCAT && SqlTypeUtil.isArray(call.getType())) {
        return BoundedFunctions.ARRAY_CONCAT_OPERATOR;
      }
      if (operator == SqlLibraryOperators.CONCAT_WS_POSTGRESQL && concatWsOperandsAreTextOrArrays(call)) {
        return BoundedFunctions.CONCAT_WS;
      }
      return REPLACED.get(operator);
    }

    /**
     * Whether Calcite passes {@code concat_ws}'s operands as {@link BoundedFunctions#concatWs}
     * takes them: strings and arrays (after the validator's casts, any other type is one of these).
     */
    private static boolean concatWsOperandsAreTextOrArrays(RexCall call) {
      return call.getOperands().stream()
          .allMatch(o -> SqlTypeUtil.inCharFamily(o.getType()) || SqlTypeUtil.isArray(o.getType()) || SqlTypeUtil.isNull(o.getType()));
    }
  }
}

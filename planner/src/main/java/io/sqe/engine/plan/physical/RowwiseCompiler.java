package io.sqe.engine.plan.physical;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.expr.Rowwise;
import io.sqe.engine.exec.expr.ScalarExpression;
import io.sqe.engine.plan.OperatorImplementations;
import java.util.List;
import org.apache.calcite.DataContexts;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexExecutorImpl;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.Sarg;

/**
 * Compiles what {@link ExpressionCompiler} and {@link PredicateCompiler} cannot into {@link
 * Rowwise} code: Calcite's generated code for the row runtime, run a row at a time inside a
 * columnar plan, so the function library's long tail keeps a plan columnar. The expression is
 * compiled as the row runtime compiles it (with SQE's operator implementations), so it computes
 * the same values and fails with the same errors. Expressions over columns the generated code
 * cannot read (times, intervals, nested values) or of such a type, sub-queries, windows,
 * correlation, and very large expressions (whose generated method could pass the JVM's size
 * limit) are refused: their plans keep the row runtime.
 *
 * <p>Compiling takes Janino milliseconds per expression, which a plan the plan cache does not keep
 * would pay on every run: compiled code is kept by what determines it (the expression's digest and
 * its input and result types), and shared, since the generated code keeps no state between rows.
 */
final class RowwiseCompiler {
  /** The largest expression compiled, in nodes (a SEARCH counts its ranges). */
  private static final int MAX_NODES = 256;
  /** Compiled expressions kept, by {@link #key}: bounded, since each holds a generated class. */
  private static final int MAX_COMPILED = 2048;

  private static final Cache<String, Rowwise.Code> COMPILED = Caffeine.newBuilder().maximumSize(MAX_COMPILED).build();

  private RowwiseCompiler() {}

  /** {@code expression} over rows of {@code rowType}, computed a row at a time, or null when refused. */
  static ScalarExpression expression(RexNode expression, RelDataType rowType, RexBuilder rexBuilder) {
    Rowwise.Code code = compile(expression, rowType, rexBuilder);
    return code == null ? null : Rowwise.expression(code, CalciteTypeMapping.toArrow("value", expression.getType()));
  }

  /** {@code condition} over rows of {@code rowType}, evaluated a row at a time, or null when refused. */
  static Predicate predicate(RexNode condition, RelDataType rowType, RexBuilder rexBuilder) {
    Rowwise.Code code = compile(condition, rowType, rexBuilder);
    return code == null ? null : Rowwise.predicate(code);
  }

  /** The code computing {@code expression} over rows of {@code rowType}, compiled or kept from before; null when refused. */
  static Rowwise.Code compile(RexNode expression, RelDataType rowType, RexBuilder rexBuilder) {
    if (!readable(expression.getType())) {
      return null;
    }
    ImmutableBitSet columns = RelOptUtil.InputFinder.bits(expression);
    for (int column : columns) {
      if (!readable(rowType.getFieldList().get(column).getType())) {
        return null;
      }
    }
    Size size = new Size();
    expression.accept(size);
    if (size.refused || size.nodes > MAX_NODES) {
      return null;
    }
    String key = key(expression, rowType);
    Rowwise.Code cached = COMPILED.getIfPresent(key);
    if (cached != null) {
      return cached;
    }
    try {
      RexNode executable = OperatorImplementations.rewrite(rexBuilder, expression);
      var compiled = new RexExecutorImpl(DataContexts.EMPTY).getExecutable(rexBuilder, List.of(executable), rowType);
      Rowwise.Code code = new Rowwise.Code(compiled.getFunction(), rowType.getFieldCount(), columns.toArray());
      COMPILED.put(key, code);
      return code;
    } catch (RuntimeException e) {
      // Calcite cannot generate this expression's code outside a Calc: the row runtime runs it.
      return null;
    }
  }

  /**
   * What the generated code depends on: the expression's digest (its calls, inputs and literals,
   * a literal's type where it is not the default), its result type, and the types of the input
   * row, whose fields the code reads by position and converts by type.
   */
  static String key(RexNode expression, RelDataType rowType) {
    return expression + "\n" + expression.getType().getFullTypeString() + "\n" + rowType.getFullTypeString();
  }

  private static boolean readable(RelDataType type) {
    try {
      return Rowwise.readable(CalciteTypeMapping.toArrow("value", type).getType());
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Counts an expression's nodes, and notes what row-wise code cannot take. */
  private static final class Size extends RexVisitorImpl<Void> {
    int nodes;
    boolean refused;

    Size() {
      super(true);
    }

    @Override
    public Void visitCall(RexCall call) {
      nodes++;
      if (call instanceof RexOver) {
        refused = true;
      }
      if (call.getKind() == SqlKind.SEARCH && call.getOperands().get(1) instanceof RexLiteral literal) {
        Sarg<?> sarg = literal.getValueAs(Sarg.class);
        nodes += sarg == null ? MAX_NODES : sarg.rangeSet.asRanges().size();
      }
      return super.visitCall(call);
    }

    @Override
    public Void visitSubQuery(RexSubQuery subQuery) {
      refused = true;
      return null;
    }

    @Override
    public Void visitCorrelVariable(RexCorrelVariable variable) {
      refused = true;
      return null;
    }

    @Override
    public Void visitFieldAccess(RexFieldAccess fieldAccess) {
      refused = true;
      return null;
    }

    @Override
    public Void visitLiteral(RexLiteral literal) {
      nodes++;
      return null;
    }
  }
}

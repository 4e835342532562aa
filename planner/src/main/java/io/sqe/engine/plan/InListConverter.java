package io.sqe.engine.plan;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlUtil;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.apache.calcite.sql2rel.StandardConvertletTable;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;

/**
 * Calcite's converter, with {@code x [NOT] IN (literal, ...)} converted straight into a search of
 * a set of values ({@code SEARCH(x, Sarg[...])}, negated for NOT IN). Calcite converts the list
 * into an OR of equalities, one per value, which its simplifier then has to fold into a Sarg again:
 * for IN that is merely slow, for NOT IN (an AND of inequalities after the negation is pushed
 * inside) it simplifies each term against all the others, and 1,000 values did not finish in a
 * minute. The Sarg is the same one the simplifier would have made from the OR, so the statement's
 * meaning (NULLs included) is unchanged; lists with non-literal values or values that would change
 * when converted to {@code x}'s type are left to Calcite. Large lists come as samples of their
 * values (see {@link LargeInLists}) and are converted whole here.
 */
final class InListConverter extends SqlToRelConverter {
  /** Lists shorter than this convert as Calcite converts them (quickly enough). */
  static final int MIN_VALUES = 20;

  InListConverter(
      RelOptTable.ViewExpander viewExpander,
      SqlValidator validator,
      Prepare.CatalogReader catalogReader,
      RelOptCluster cluster,
      SqlRexConvertletTable convertletTable,
      Config config) {
    super(viewExpander, validator, catalogReader, cluster, convertletTable, config);
  }

  @Override
  protected RexNode convertExtendedExpression(SqlNode node, Blackboard bb) {
    if (node.getKind() != SqlKind.IN && node.getKind() != SqlKind.NOT_IN) {
      return null;
    }
    SqlCall call = (SqlCall) node;
    SqlNode left = call.operand(0);
    if (call.operand(1) instanceof LargeInLists.Sample) {
      return search(call, (LargeInLists.Sample) call.operand(1), bb);
    }
    if (!(call.operand(1) instanceof SqlNodeList) || left.getKind() == SqlKind.ROW) {
      return null;
    }
    SqlNodeList values = call.operand(1);
    if (values.size() < MIN_VALUES) {
      return null;
    }
    RexNode arg = bb.convertExpression(left);
    RelDataType type = rexBuilder.getTypeFactory().createTypeWithNullability(arg.getType(), false);
    List<RexNode> points = new ArrayList<>(values.size());
    boolean withNull = false;
    for (SqlNode value : values) {
      RexNode converted = bb.convertExpression(value);
      if (!(converted instanceof RexLiteral)) {
        return null;
      }
      if (((RexLiteral) converted).isNull()) {
        withNull = true;
        continue;
      }
      RexNode point = rexBuilder.makeCast(type, converted, true, false);
      if (!(point instanceof RexLiteral) || !sameValue((RexLiteral) converted, (RexLiteral) point)) {
        return null;
      }
      points.add(point);
    }
    return points.isEmpty() ? null : in(call, arg, points, withNull);
  }

  /**
   * {@code arg [NOT] IN (points)}: a search of the points, and where the list holds a NULL, OR
   * NULL inside the negation, as SQL defines IN: TRUE for a match, else NULL rather than FALSE.
   */
  private RexNode in(SqlCall call, RexNode arg, List<RexNode> points, boolean withNull) {
    RexNode in = rexBuilder.makeIn(arg, points);
    if (withNull) {
      RelDataType nullableBoolean =
          rexBuilder.getTypeFactory().createTypeWithNullability(rexBuilder.getTypeFactory().createSqlType(SqlTypeName.BOOLEAN), true);
      in = rexBuilder.makeCall(SqlStdOperatorTable.OR, in, rexBuilder.makeNullLiteral(nullableBoolean));
    }
    RexNode result = call.getKind() == SqlKind.IN ? in : rexBuilder.makeCall(SqlStdOperatorTable.NOT, in);
    return StandardConvertletTable.castToValidatedType(
        call.getParserPosition(), call, result, Objects.requireNonNull(validator, "validator"), rexBuilder, false);
  }

  /** The search of the whole list of a sample, whose values are numbers or strings. */
  private RexNode search(SqlCall call, LargeInLists.Sample sample, Blackboard bb) {
    RexNode arg = bb.convertExpression(call.operand(0));
    RelDataType type = rexBuilder.getTypeFactory().createTypeWithNullability(arg.getType(), false);
    List<RexNode> points = new ArrayList<>(sample.values().size());
    boolean withNull = false;
    for (SqlLiteral value : sample.values()) {
      if (SqlUtil.isNullLiteral(value, false)) {
        withNull = true;
      } else {
        points.add(point(value, type));
      }
    }
    sample.converted();
    return in(call, arg, points, withNull);
  }

  /** {@code value} as a literal of {@code type}, exactly, or INVALID_ARGUMENT at its place. */
  private RexLiteral point(SqlLiteral value, RelDataType type) {
    RexLiteral literal;
    if (value instanceof SqlNumericLiteral) {
      BigDecimal number = value.getValueAs(BigDecimal.class);
      literal = ((SqlNumericLiteral) value).isExact() ? rexBuilder.makeExactLiteral(number) : rexBuilder.makeApproxLiteral(number);
    } else {
      String text = value.getValueAs(String.class);
      literal = rexBuilder.makeLiteral(text);
      if (SqlTypeUtil.isNumeric(type)) {
        try {
          literal = rexBuilder.makeExactLiteral(new BigDecimal(text.trim()));
        } catch (NumberFormatException e) {
          literal = null;
        }
      } else if (type.getSqlTypeName() == SqlTypeName.DATE) {
        try {
          literal = rexBuilder.makeDateLiteral(new DateString(text.trim()));
        } catch (IllegalArgumentException e) {
          literal = null;
        }
      }
    }
    RexNode point = literal == null ? null : rexBuilder.makeCast(type, literal, true, false);
    if (!(point instanceof RexLiteral) || !sameValue(literal, (RexLiteral) point)) {
      SqlParserPos pos = value.getParserPosition();
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "The IN list's value " + value + " is not exactly a value of its left side's type " + type.getFullTypeString()
              + "; write the values as literals of that type",
          pos.getLineNum() > 0 ? new SqeException.SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null,
          null);
    }
    return (RexLiteral) point;
  }

  /** Whether converting {@code original} to the column's type kept its value. */
  private static boolean sameValue(RexLiteral original, RexLiteral converted) {
    Comparable<?> a = original.getValue();
    Comparable<?> b = converted.getValue();
    if (a instanceof BigDecimal && b instanceof BigDecimal) {
      return ((BigDecimal) a).compareTo((BigDecimal) b) == 0;
    }
    if (a instanceof NlsString && b instanceof NlsString) {
      return ((NlsString) a).getValue().equals(((NlsString) b).getValue());
    }
    return Objects.equals(a, b);
  }
}

package io.sqe.write.dml;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlShuttle;

/** Builds the queries DML statements run, from parts of the statements as parsed; copies statements' trees for validation. */
public final class SqlTrees {
  private static final SqlParserPos ZERO = SqlParserPos.ZERO;

  private SqlTrees() {}

  /**
   * A deep copy that keeps positions. Calcite's validator rewrites the trees it validates in
   * place, so every planning of a statement's parts gets fresh copies.
   */
  @SuppressWarnings("unchecked")
  public static <T extends SqlNode> T copy(T node) {
    return node == null ? null : (T) node.accept(new Copier());
  }

  static SqlIdentifier identifier(String... names) {
    return new SqlIdentifier(List.of(names), ZERO);
  }

  static SqlNode as(SqlNode node, String alias) {
    return SqlStdOperatorTable.AS.createCall(ZERO, node, identifier(alias));
  }

  static SqlSelect select(List<SqlNode> columns, SqlNode from, SqlNode where) {
    return new SqlSelect(ZERO, null, new SqlNodeList(columns, ZERO), from, where, null, null, null, null, null, null, null, null);
  }

  static SqlNode and(SqlNode... operands) {
    SqlNode result = null;
    for (SqlNode operand : operands) {
      if (operand != null) {
        result = result == null ? operand : SqlStdOperatorTable.AND.createCall(ZERO, result, operand);
      }
    }
    return result == null ? SqlLiteral.createBoolean(true, ZERO) : result;
  }

  static SqlNode isNull(SqlNode operand) {
    return SqlStdOperatorTable.IS_NULL.createCall(ZERO, operand);
  }

  static SqlNode isNotNull(SqlNode operand) {
    return SqlStdOperatorTable.IS_NOT_NULL.createCall(ZERO, operand);
  }

  static SqlNode integer(int value) {
    return SqlLiteral.createExactNumeric(Integer.toString(value), ZERO);
  }

  static SqlNode trueLiteral() {
    return SqlLiteral.createBoolean(true, ZERO);
  }

  static SqlNode nullLiteral() {
    return SqlLiteral.createNull(ZERO);
  }

  /** {@code CASE WHEN w1 THEN t1 ... ELSE e END}. */
  static SqlNode caseWhen(List<SqlNode> whens, List<SqlNode> thens, SqlNode otherwise) {
    return SqlStdOperatorTable.CASE.createCall(
        ZERO, null, new SqlNodeList(whens, ZERO), new SqlNodeList(thens, ZERO), otherwise);
  }

  static SqlNode equal(SqlNode left, SqlNode right) {
    return SqlStdOperatorTable.EQUALS.createCall(ZERO, left, right);
  }

  static SqlNode greaterThanOrEqual(SqlNode left, SqlNode right) {
    return SqlStdOperatorTable.GREATER_THAN_OR_EQUAL.createCall(ZERO, left, right);
  }

  static SqlNode or(SqlNode left, SqlNode right) {
    return SqlStdOperatorTable.OR.createCall(ZERO, left, right);
  }

  static SqlNode star(String qualifier) {
    return qualifier == null ? SqlIdentifier.star(ZERO) : SqlIdentifier.star(List.of(qualifier, ""), ZERO, List.of(ZERO, ZERO));
  }

  /** The rows of a VALUES, each a ROW call's operands. */
  static List<List<SqlNode>> valuesRows(SqlNode values) {
    List<List<SqlNode>> rows = new ArrayList<>();
    for (SqlNode row : ((SqlCall) values).getOperandList()) {
      rows.add(new ArrayList<>(((SqlCall) row).getOperandList()));
    }
    return rows;
  }

  /** A VALUES like {@code values}, with these rows (positions kept). */
  static SqlNode values(SqlNode values, List<List<SqlNode>> rows) {
    List<SqlNode> rowCalls = new ArrayList<>();
    List<SqlNode> original = ((SqlCall) values).getOperandList();
    for (int i = 0; i < rows.size(); i++) {
      rowCalls.add(SqlStdOperatorTable.ROW.createCall(original.get(i).getParserPosition(), rows.get(i)));
    }
    return new SqlBasicCall(((SqlCall) values).getOperator(), rowCalls, values.getParserPosition());
  }

  private static final class Copier extends SqlShuttle {
    @Override
    public SqlNode visit(SqlCall call) {
      CallCopyingArgHandler handler = new CallCopyingArgHandler(call, true);
      call.getOperator().acceptCall(this, call, false, handler);
      return handler.result();
    }

    @Override
    public SqlNode visit(SqlNodeList list) {
      List<SqlNode> copies = new ArrayList<>(list.size());
      for (SqlNode node : list) {
        copies.add(node == null ? null : node.accept(this));
      }
      return new SqlNodeList(copies, list.getParserPosition());
    }

    @Override
    public SqlNode visit(SqlIdentifier id) {
      return id.clone(id.getParserPosition());
    }

    @Override
    public SqlNode visit(SqlLiteral literal) {
      return literal.clone(literal.getParserPosition());
    }

    @Override
    public SqlNode visit(SqlDataTypeSpec type) {
      return type.clone(type.getParserPosition());
    }

    @Override
    public SqlNode visit(SqlDynamicParam param) {
      return param.clone(param.getParserPosition());
    }

    @Override
    public SqlNode visit(SqlIntervalQualifier qualifier) {
      return qualifier.clone(qualifier.getParserPosition());
    }
  }
}

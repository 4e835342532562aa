package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * One WHEN clause of a {@link SqlMergeStatement}: which rows it applies to ({@link Match}), an
 * optional extra condition ({@code AND cond}), and what it does ({@link Action}).
 *
 * <ul>
 *   <li>{@code WHEN MATCHED [AND cond] THEN UPDATE SET c = e, ... | DELETE}
 *   <li>{@code WHEN NOT MATCHED [BY TARGET] [AND cond] THEN INSERT [(c, ...)] VALUES (e, ...)}
 *   <li>{@code WHEN NOT MATCHED BY SOURCE [AND cond] THEN UPDATE SET c = e, ... | DELETE}
 * </ul>
 *
 * For UPDATE, {@link #columns()} and {@link #values()} are the SET list's targets and expressions,
 * pairwise; for INSERT, the column list (empty when omitted) and the VALUES row; for DELETE both are
 * empty.
 */
public final class SqlMergeClause extends SqlCall {
  public static final SqlOperator OPERATOR = new Operator();

  /** The rows a clause applies to. */
  public enum Match {
    /** Target rows that have a matching source row. */
    MATCHED,
    /** Source rows without a matching target row ({@code NOT MATCHED [BY TARGET]}). */
    NOT_MATCHED,
    /** Target rows without a matching source row. */
    NOT_MATCHED_BY_SOURCE
  }

  /** What a clause does to the rows it applies to. */
  public enum Action {
    UPDATE,
    DELETE,
    INSERT
  }

  private SqlLiteral match;
  private SqlNode condition;
  private SqlLiteral action;
  private SqlNodeList columns;
  private SqlNodeList values;

  public SqlMergeClause(
      SqlParserPos pos, Match match, SqlNode condition, Action action, SqlNodeList columns, SqlNodeList values) {
    this(
        pos,
        SqlLiteral.createSymbol(requireNonNull(match, "match is null"), pos),
        condition,
        SqlLiteral.createSymbol(requireNonNull(action, "action is null"), pos),
        columns,
        values);
  }

  private SqlMergeClause(
      SqlParserPos pos, SqlLiteral match, SqlNode condition, SqlLiteral action, SqlNodeList columns, SqlNodeList values) {
    super(pos);
    this.match = match;
    this.condition = condition;
    this.action = action;
    this.columns = requireNonNull(columns, "columns is null");
    this.values = requireNonNull(values, "values is null");
    check();
  }

  private void check() {
    Match m = match();
    Action a = action();
    if ((m == Match.NOT_MATCHED) != (a == Action.INSERT)) {
      throw new IllegalArgumentException("WHEN " + m + " cannot " + a);
    }
    if (a == Action.UPDATE && (columns.isEmpty() || columns.size() != values.size())) {
      throw new IllegalArgumentException("UPDATE needs one value per column");
    }
    if (a == Action.INSERT && !columns.isEmpty() && columns.size() != values.size()) {
      throw SqlSyntaxErrors.error(
          values.getParserPosition(),
          "INSERT lists " + columns.size() + " columns but " + values.size() + " values");
    }
    if (a == Action.DELETE && !(columns.isEmpty() && values.isEmpty())) {
      throw new IllegalArgumentException("DELETE takes no columns or values");
    }
  }

  public Match match() {
    return match.getValueAs(Match.class);
  }

  /** The clause's AND condition, or null. */
  public SqlNode condition() {
    return condition;
  }

  public Action action() {
    return action.getValueAs(Action.class);
  }

  /** UPDATE's target columns or INSERT's column list (identifiers). */
  public SqlNodeList columns() {
    return columns;
  }

  /** UPDATE's new values or INSERT's VALUES row. */
  public SqlNodeList values() {
    return values;
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(match, condition, action, columns, values);
  }

  @Override
  public void setOperand(int i, SqlNode operand) {
    switch (i) {
      case 0 -> match = (SqlLiteral) requireNonNull(operand, "match is null");
      case 1 -> condition = operand;
      case 2 -> action = (SqlLiteral) requireNonNull(operand, "action is null");
      case 3 -> columns = (SqlNodeList) requireNonNull(operand, "columns is null");
      case 4 -> values = (SqlNodeList) requireNonNull(operand, "values is null");
      default -> throw new IndexOutOfBoundsException("operand " + i);
    }
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.newlineAndIndent();
    writer.keyword("WHEN");
    writer.keyword(
        switch (match()) {
          case MATCHED -> "MATCHED";
          case NOT_MATCHED -> "NOT MATCHED";
          case NOT_MATCHED_BY_SOURCE -> "NOT MATCHED BY SOURCE";
        });
    if (condition != null) {
      writer.keyword("AND");
      condition.unparse(writer, 0, 0);
    }
    writer.keyword("THEN");
    switch (action()) {
      case DELETE -> writer.keyword("DELETE");
      case UPDATE -> {
        writer.keyword("UPDATE SET");
        SqlWriter.Frame frame = writer.startList(SqlWriter.FrameTypeEnum.UPDATE_SET_LIST, "", "");
        for (int i = 0; i < columns.size(); i++) {
          writer.sep(",");
          columns.get(i).unparse(writer, 0, 0);
          writer.keyword("=");
          values.get(i).unparse(writer, 0, 0);
        }
        writer.endList(frame);
      }
      case INSERT -> {
        writer.keyword("INSERT");
        if (!columns.isEmpty()) {
          Unparsing.parenthesized(writer, columns);
        }
        writer.keyword("VALUES");
        Unparsing.parenthesized(writer, values);
      }
    }
  }

  private static final class Operator extends SqlSpecialOperator {
    Operator() {
      super("MERGE CLAUSE", SqlKind.OTHER);
    }

    @Override
    public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
      return new SqlMergeClause(
          pos, (SqlLiteral) operands[0], operands[1], (SqlLiteral) operands[2], (SqlNodeList) operands[3],
          (SqlNodeList) operands[4]);
    }
  }
}

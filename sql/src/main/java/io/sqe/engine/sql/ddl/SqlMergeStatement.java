package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
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
 * {@code MERGE INTO target [[AS] alias] USING source ON condition} followed by one or more {@link
 * SqlMergeClause}s in the order written; for each row the first clause whose match and condition
 * apply is the one that acts.
 *
 * <p>The source is a table reference as in FROM: a table, {@code (subquery)} or {@code (WITH ...
 * query)}, possibly with time travel, usually with an alias ({@code AS(source, alias)}).
 *
 * <p>Its kind is {@link SqlKind#MERGE}, so {@code isA(SqlKind.DML)} holds, but it is not Calcite's
 * {@code SqlMerge}, which allows only one UPDATE and one INSERT; do not hand it to Calcite's
 * validator as a whole.
 */
public final class SqlMergeStatement extends SqlCall {
  public static final SqlOperator OPERATOR = new Operator();

  private SqlIdentifier target;
  private SqlIdentifier alias;
  private SqlNode source;
  private SqlNode condition;
  private SqlNodeList clauses;

  public SqlMergeStatement(
      SqlParserPos pos, SqlIdentifier target, SqlIdentifier alias, SqlNode source, SqlNode condition, SqlNodeList clauses) {
    super(pos);
    this.target = requireNonNull(target, "target is null");
    this.alias = alias;
    this.source = requireNonNull(source, "source is null");
    this.condition = requireNonNull(condition, "condition is null");
    this.clauses = requireNonNull(clauses, "clauses is null");
    if (clauses.isEmpty()) {
      throw new IllegalArgumentException("MERGE needs at least one WHEN clause");
    }
  }

  /** The table written to. */
  public SqlIdentifier target() {
    return target;
  }

  /** The target's alias, or null. */
  public SqlIdentifier alias() {
    return alias;
  }

  public SqlNode source() {
    return source;
  }

  public SqlNode condition() {
    return condition;
  }

  /** The WHEN clauses in the order written. */
  public List<SqlMergeClause> clauses() {
    return clauses.stream().map(SqlMergeClause.class::cast).toList();
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(target, alias, source, condition, clauses);
  }

  @Override
  public void setOperand(int i, SqlNode operand) {
    switch (i) {
      case 0 -> target = (SqlIdentifier) requireNonNull(operand, "target is null");
      case 1 -> alias = (SqlIdentifier) operand;
      case 2 -> source = requireNonNull(operand, "source is null");
      case 3 -> condition = requireNonNull(operand, "condition is null");
      case 4 -> clauses = (SqlNodeList) requireNonNull(operand, "clauses is null");
      default -> throw new IndexOutOfBoundsException("operand " + i);
    }
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    // Not a SELECT frame (as Calcite's SqlMerge uses): inside one, a sub-query source would lose its parentheses.
    SqlWriter.Frame frame = writer.startList(SqlWriter.FrameTypeEnum.SIMPLE, "MERGE INTO", "");
    target.unparse(writer, 0, 0);
    if (alias != null) {
      writer.keyword("AS");
      alias.unparse(writer, 0, 0);
    }
    writer.newlineAndIndent();
    writer.keyword("USING");
    source.unparse(writer, 0, 0);
    writer.newlineAndIndent();
    writer.keyword("ON");
    condition.unparse(writer, 0, 0);
    for (SqlNode clause : clauses) {
      clause.unparse(writer, 0, 0);
    }
    writer.endList(frame);
  }

  private static final class Operator extends SqlSpecialOperator {
    Operator() {
      super("MERGE", SqlKind.MERGE);
    }

    @Override
    public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
      return new SqlMergeStatement(
          pos, (SqlIdentifier) operands[0], (SqlIdentifier) operands[1], operands[2], operands[3],
          (SqlNodeList) operands[4]);
    }
  }
}

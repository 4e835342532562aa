package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * A table reference with time travel, in Trino's syntax: {@code t FOR VERSION AS OF 8954597067493422955}
 * (a snapshot id), {@code t FOR VERSION AS OF 'audit'} (a branch or tag) or {@code t FOR TIMESTAMP AS
 * OF <timestamp expression>} (the snapshot current at that time).
 *
 * <p>It takes the place of the table's identifier in the FROM clause, inside any alias: {@code FROM t
 * FOR VERSION AS OF 1 AS x} is {@code AS(SqlTableVersion(t, VERSION, 1), x)}, the same shape as
 * Calcite's {@code SqlSnapshot} for {@code FOR SYSTEM_TIME AS OF}. Calcite's validator does not know
 * it: the planner replaces each one before validation with an identifier that resolves to the
 * Iceberg table pinned at that snapshot, as {@code DateTimeFunctions.standardize} rewrites calls.
 * Unlike statement nodes it survives a {@code SqlShuttle}, which rebuilds it through its operator.
 */
public final class SqlTableVersion extends SqlCall {
  public static final SqlOperator OPERATOR = new Operator();

  /** FOR VERSION AS OF or FOR TIMESTAMP AS OF. */
  public enum Kind {
    VERSION,
    TIMESTAMP
  }

  private SqlNode table;
  private SqlLiteral kind;
  private SqlNode value;

  public SqlTableVersion(SqlParserPos pos, SqlNode table, Kind kind, SqlNode value) {
    this(pos, table, SqlLiteral.createSymbol(requireNonNull(kind, "kind is null"), pos), value);
  }

  private SqlTableVersion(SqlParserPos pos, SqlNode table, SqlLiteral kind, SqlNode value) {
    super(pos);
    this.table = requireNonNull(table, "table is null");
    this.kind = kind;
    this.value = requireNonNull(value, "value is null");
    if (kind() == Kind.VERSION && !isVersion(value)) {
      throw SqlSyntaxErrors.error(
          value.getParserPosition(),
          "FOR VERSION AS OF takes a snapshot id (an integer) or a branch or tag name in quotes");
    }
  }

  private static boolean isVersion(SqlNode value) {
    return (value instanceof SqlNumericLiteral && ((SqlNumericLiteral) value).isInteger())
        || value instanceof SqlCharStringLiteral
        || value instanceof SqlDynamicParam;
  }

  /** The table: an identifier, or the identifier with hints. */
  public SqlNode table() {
    return table;
  }

  public Kind kind() {
    return kind.getValueAs(Kind.class);
  }

  /** The snapshot id, the branch or tag literal, the timestamp expression, or a dynamic parameter. */
  public SqlNode value() {
    return value;
  }

  /** For {@code FOR VERSION AS OF <integer>}, the snapshot id; otherwise null. */
  public Long snapshotId() {
    return value instanceof SqlNumericLiteral ? ((SqlNumericLiteral) value).longValue(true) : null;
  }

  /** For {@code FOR VERSION AS OF '<name>'}, the branch or tag; otherwise null. */
  public String ref() {
    return kind() == Kind.VERSION && value instanceof SqlCharStringLiteral
        ? ((SqlCharStringLiteral) value).getValueAs(String.class)
        : null;
  }

  /** The table's name, whether or not it has hints. */
  public SqlIdentifier tableName() {
    return table instanceof SqlIdentifier ? (SqlIdentifier) table : (SqlIdentifier) ((SqlCall) table).operand(0);
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(table, kind, value);
  }

  @Override
  public void setOperand(int i, SqlNode operand) {
    switch (i) {
      case 0 -> table = requireNonNull(operand, "table is null");
      case 1 -> kind = (SqlLiteral) requireNonNull(operand, "kind is null");
      case 2 -> value = requireNonNull(operand, "value is null");
      default -> throw new IndexOutOfBoundsException("operand " + i);
    }
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    table.unparse(writer, 0, 0);
    writer.keyword("FOR");
    writer.keyword(kind().name());
    writer.keyword("AS OF");
    value.unparse(writer, 0, 0);
  }

  private static final class Operator extends SqlSpecialOperator {
    Operator() {
      super("TABLE VERSION", SqlKind.OTHER);
    }

    @Override
    public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
      return new SqlTableVersion(pos, operands[0], (SqlLiteral) operands[1], operands[2]);
    }
  }
}

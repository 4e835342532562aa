package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * A column, possibly through an Iceberg partition transform, as written in PARTITIONED BY and
 * SORTED BY: {@code col}, {@code year(col)}, {@code month(col)}, {@code day(col)}, {@code
 * hour(col)}, {@code bucket(n, col)} or {@code truncate(w, col)}. Spark's plural names ({@code
 * days(ts)}) and Trino's argument order ({@code bucket(col, n)}) are accepted too.
 */
public final class SqlTransform extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("TRANSFORM", SqlKind.OTHER);

  /** Iceberg's transforms, by the name SQE writes them with. */
  public enum Kind {
    IDENTITY(false),
    YEAR(false),
    MONTH(false),
    DAY(false),
    HOUR(false),
    BUCKET(true),
    TRUNCATE(true);

    private final boolean takesArgument;

    Kind(boolean takesArgument) {
      this.takesArgument = takesArgument;
    }

    public boolean takesArgument() {
      return takesArgument;
    }
  }

  private final Kind kind;
  private final SqlIdentifier column;
  private final SqlNumericLiteral argument;

  public SqlTransform(SqlParserPos pos, Kind kind, SqlIdentifier column, SqlNumericLiteral argument) {
    super(pos);
    this.kind = requireNonNull(kind, "kind is null");
    this.column = requireNonNull(column, "column is null");
    if (kind.takesArgument() != (argument != null)) {
      throw new IllegalArgumentException(kind + (argument == null ? " needs" : " takes no") + " argument");
    }
    this.argument = argument;
  }

  /**
   * Builds a transform from what the parser saw: the function's name and its arguments, each an
   * identifier (the column) or an integer literal (bucket count or truncation width).
   */
  public static SqlTransform of(SqlParserPos pos, String name, List<SqlNode> arguments) {
    Kind kind = kind(pos, name);
    SqlIdentifier column = null;
    SqlNumericLiteral argument = null;
    for (SqlNode node : arguments) {
      if (node instanceof SqlIdentifier && column == null) {
        column = (SqlIdentifier) node;
      } else if (node instanceof SqlNumericLiteral && argument == null && kind.takesArgument()) {
        argument = (SqlNumericLiteral) node;
        if (!argument.isInteger() || argument.intValue(true) <= 0) {
          throw SqlSyntaxErrors.error(
              node.getParserPosition(), "The " + kind.name().toLowerCase(Locale.ROOT) + " width must be a positive integer");
        }
      } else {
        throw SqlSyntaxErrors.error(node.getParserPosition(), "Unexpected argument of " + describe(kind));
      }
    }
    if (column == null || (kind.takesArgument() && argument == null)) {
      throw SqlSyntaxErrors.error(pos, "Expected " + describe(kind));
    }
    return new SqlTransform(pos, kind, column, argument);
  }

  private static Kind kind(SqlParserPos pos, String name) {
    switch (name.toLowerCase(Locale.ROOT)) {
      case "identity":
        return Kind.IDENTITY;
      case "year":
      case "years":
        return Kind.YEAR;
      case "month":
      case "months":
        return Kind.MONTH;
      case "day":
      case "days":
        return Kind.DAY;
      case "hour":
      case "hours":
        return Kind.HOUR;
      case "bucket":
        return Kind.BUCKET;
      case "truncate":
        return Kind.TRUNCATE;
      default:
        throw SqlSyntaxErrors.error(
            pos, "Unknown partition transform '" + name + "'; use year, month, day, hour, bucket or truncate");
    }
  }

  private static String describe(Kind kind) {
    String name = kind.name().toLowerCase(Locale.ROOT);
    switch (kind) {
      case BUCKET:
        return "bucket(count, column)";
      case TRUNCATE:
        return "truncate(width, column)";
      default:
        return name + "(column)";
    }
  }

  public Kind kind() {
    return kind;
  }

  public SqlIdentifier column() {
    return column;
  }

  /** The bucket count or truncation width; null for the other transforms. */
  public Integer argument() {
    return argument == null ? null : argument.intValue(true);
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(column, argument);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    if (kind == Kind.IDENTITY) {
      column.unparse(writer, 0, 0);
      return;
    }
    // YEAR, MONTH, DAY, HOUR and TRUNCATE are reserved words, so the transform is written as a keyword call.
    writer.keyword(kind.name());
    SqlWriter.Frame frame = writer.startList("(", ")");
    if (argument != null) {
      writer.sep(",");
      argument.unparse(writer, 0, 0);
    }
    writer.sep(",");
    column.unparse(writer, 0, 0);
    writer.endList(frame);
  }
}

package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code EXECUTE name [USING value, ...]}, which runs a statement {@link SqlPrepare prepared} in
 * the session with its {@code ?} parameters replaced by the values in order, and {@code EXECUTE
 * IMMEDIATE 'statement' [USING value, ...]}, which does the same with a statement given as text.
 * Values are expressions; a typed literal such as {@code INTEGER '5'} (Trino's JDBC driver sends
 * every value so) is a cast of the text to the type.
 */
public final class SqlExecute extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("EXECUTE", SqlKind.OTHER);

  private final SqlIdentifier name;
  private final SqlLiteral immediate;
  private final List<SqlNode> arguments;

  /**
   * @param name the prepared statement's name; null for EXECUTE IMMEDIATE
   * @param immediate EXECUTE IMMEDIATE's statement text; null for a named statement
   */
  public SqlExecute(SqlParserPos pos, SqlIdentifier name, SqlLiteral immediate, List<SqlNode> arguments) {
    super(pos);
    if ((name == null) == (immediate == null)) {
      throw new IllegalArgumentException("EXECUTE names a prepared statement or gives one, not both or neither");
    }
    if (name != null && !name.isSimple()) {
      throw SqlSyntaxErrors.error(name.getParserPosition(), "A prepared statement's name is one identifier, not " + name);
    }
    this.name = name;
    this.immediate = immediate;
    this.arguments = List.copyOf(requireNonNull(arguments, "arguments is null"));
  }

  /** The prepared statement's name; null for EXECUTE IMMEDIATE. */
  public String name() {
    return name == null ? null : name.getSimple();
  }

  /** EXECUTE IMMEDIATE's statement text; null for a named statement. */
  public String immediateText() {
    return immediate == null ? null : immediate.getValueAs(String.class);
  }

  /** The USING values, in the order of the statement's parameters. */
  public List<SqlNode> arguments() {
    return arguments;
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    List<SqlNode> operands = new ArrayList<>();
    operands.add(name != null ? name : immediate);
    operands.addAll(arguments);
    return operands;
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("EXECUTE");
    if (name != null) {
      name.unparse(writer, 0, 0);
    } else {
      writer.keyword("IMMEDIATE");
      immediate.unparse(writer, 0, 0);
    }
    if (!arguments.isEmpty()) {
      writer.keyword("USING");
      SqlWriter.Frame frame = writer.startList("", "");
      for (SqlNode argument : arguments) {
        writer.sep(",");
        argument.unparse(writer, 0, 0);
      }
      writer.endList(frame);
    }
  }
}

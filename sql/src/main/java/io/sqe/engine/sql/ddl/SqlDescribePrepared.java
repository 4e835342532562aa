package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code DESCRIBE INPUT name} (the types of a prepared statement's parameters) and {@code DESCRIBE
 * OUTPUT name} (its result's columns), which Trino's JDBC driver asks for a PreparedStatement's
 * metadata.
 */
public final class SqlDescribePrepared extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("DESCRIBE", SqlKind.OTHER);

  private final boolean input;
  private final SqlIdentifier name;

  /** @param input true for DESCRIBE INPUT, false for DESCRIBE OUTPUT */
  public SqlDescribePrepared(SqlParserPos pos, boolean input, SqlIdentifier name) {
    super(pos);
    this.input = input;
    this.name = requireNonNull(name, "name is null");
    if (!name.isSimple()) {
      throw SqlSyntaxErrors.error(name.getParserPosition(), "A prepared statement's name is one identifier, not " + name);
    }
  }

  /** True for DESCRIBE INPUT, false for DESCRIBE OUTPUT. */
  public boolean input() {
    return input;
  }

  public String name() {
    return name.getSimple();
  }

  /** The name as written, for error positions. */
  public SqlIdentifier nameNode() {
    return name;
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return List.of(name);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword(input ? "DESCRIBE INPUT" : "DESCRIBE OUTPUT");
    name.unparse(writer, 0, 0);
  }
}

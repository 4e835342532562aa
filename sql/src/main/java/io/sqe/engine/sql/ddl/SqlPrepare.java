package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.sql.StatementText;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * {@code PREPARE name FROM statement}: keeps the statement's text in the session under the name,
 * for {@code EXECUTE name [USING ...]}, as Trino and its JDBC driver use it.
 */
public final class SqlPrepare extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("PREPARE", SqlKind.OTHER);

  private final SqlIdentifier name;
  private final SqlNode statement;
  private final SqlParserPos statementStart;

  /** @param statementStart where the statement's first token is, to take its text as written */
  public SqlPrepare(SqlParserPos pos, SqlIdentifier name, SqlNode statement, SqlParserPos statementStart) {
    super(pos);
    this.name = requireNonNull(name, "name is null");
    this.statement = requireNonNull(statement, "statement is null");
    this.statementStart = requireNonNull(statementStart, "statementStart is null");
    if (!name.isSimple()) {
      throw SqlSyntaxErrors.error(name.getParserPosition(), "A prepared statement's name is one identifier, not " + name);
    }
  }

  public String name() {
    return name.getSimple();
  }

  public SqlNode statement() {
    return statement;
  }

  /**
   * The statement's text as written in {@code sql}, the text this node was parsed from: from its
   * first token to the end, without a trailing semicolon.
   */
  public String statementText(String sql) {
    int offset = StatementText.offset(sql, statementStart.getLineNum(), statementStart.getColumnNum());
    String text = sql.substring(offset).strip();
    while (text.endsWith(";")) {
      text = text.substring(0, text.length() - 1).strip();
    }
    return text;
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name, statement);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("PREPARE");
    name.unparse(writer, 0, 0);
    writer.keyword("FROM");
    statement.unparse(writer, 0, 0);
  }
}

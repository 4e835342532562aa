package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * One {@code key = value} of a {@code WITH (...)}, {@code SET PROPERTIES} or {@code SET
 * TBLPROPERTIES} list. The key is a (possibly dotted) identifier, {@code write.format.default},
 * or a string, {@code 'write.format.default'}; the value is any expression, usually a literal.
 */
public final class SqlProperty extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("PROPERTY", SqlKind.OTHER);

  private final SqlNode key;
  private final SqlNode value;

  public SqlProperty(SqlParserPos pos, SqlNode key, SqlNode value) {
    super(pos);
    this.key = requireNonNull(key, "key is null");
    this.value = requireNonNull(value, "value is null");
  }

  /** The key as written: segments of an identifier joined by dots, or the string's value. */
  public String key() {
    return keyText(key);
  }

  public SqlNode keyNode() {
    return key;
  }

  public SqlNode value() {
    return value;
  }

  /** The value as text when it is a literal ({@code 'parquet'}, {@code 3}, {@code true}); null otherwise. */
  public String valueText() {
    if (value instanceof SqlCharStringLiteral) {
      return ((SqlCharStringLiteral) value).getValueAs(String.class);
    }
    if (value instanceof SqlLiteral) {
      return ((SqlLiteral) value).toValue();
    }
    return null;
  }

  static String keyText(SqlNode key) {
    if (key instanceof SqlIdentifier) {
      return String.join(".", ((SqlIdentifier) key).names);
    }
    return ((SqlCharStringLiteral) key).getValueAs(String.class);
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(key, value);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    key.unparse(writer, 0, 0);
    writer.keyword("=");
    value.unparse(writer, 0, 0);
  }
}

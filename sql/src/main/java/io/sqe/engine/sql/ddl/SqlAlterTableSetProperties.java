package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code ALTER TABLE name SET PROPERTIES k = v, ...} (also Spark's {@code SET TBLPROPERTIES (k = v, ...)}). */
public final class SqlAlterTableSetProperties extends SqlAlterTable {
  private final SqlNodeList properties;

  public SqlAlterTableSetProperties(SqlParserPos pos, boolean ifExists, SqlIdentifier name, SqlNodeList properties) {
    super(pos, ifExists, name);
    this.properties = requireNonNull(properties, "properties is null");
  }

  /** {@link SqlProperty}s. */
  public SqlNodeList properties() {
    return properties;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name(), properties);
  }

  @Override
  protected void unparseAlteration(SqlWriter writer) {
    writer.keyword("SET PROPERTIES");
    Unparsing.commaList(writer, properties);
  }
}

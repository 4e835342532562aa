package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * {@code ALTER TABLE name UNSET PROPERTIES k, ...} (also Spark's {@code UNSET TBLPROPERTIES [IF
 * EXISTS] ('k', ...)}). Keys are identifiers or strings, as in {@link SqlProperty}.
 */
public final class SqlAlterTableUnsetProperties extends SqlAlterTable {
  private final boolean propertiesIfExist;
  private final SqlNodeList keys;

  public SqlAlterTableUnsetProperties(
      SqlParserPos pos, boolean ifExists, SqlIdentifier name, boolean propertiesIfExist, SqlNodeList keys) {
    super(pos, ifExists, name);
    this.propertiesIfExist = propertiesIfExist;
    this.keys = requireNonNull(keys, "keys is null");
  }

  /** Whether a key the table does not have is ignored rather than an error. */
  public boolean propertiesIfExist() {
    return propertiesIfExist;
  }

  public List<String> keys() {
    return keys.stream().map(SqlProperty::keyText).toList();
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name(), keys);
  }

  @Override
  protected void unparseAlteration(SqlWriter writer) {
    writer.keyword("UNSET PROPERTIES");
    if (propertiesIfExist) {
      writer.keyword("IF EXISTS");
    }
    Unparsing.commaList(writer, keys);
  }
}

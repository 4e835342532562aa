package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.sql.ddl.SqlAlterTableCreateRef.RefKind;
import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code ALTER TABLE name DROP BRANCH|TAG [IF EXISTS] ref}. */
public final class SqlAlterTableDropRef extends SqlAlterTable {
  private final RefKind refKind;
  private final boolean refIfExists;
  private final SqlIdentifier ref;

  public SqlAlterTableDropRef(
      SqlParserPos pos, boolean ifExists, SqlIdentifier name, RefKind refKind, boolean refIfExists, SqlIdentifier ref) {
    super(pos, ifExists, name);
    this.refKind = requireNonNull(refKind, "refKind is null");
    this.refIfExists = refIfExists;
    this.ref = requireNonNull(ref, "ref is null");
  }

  public RefKind refKind() {
    return refKind;
  }

  public boolean refIfExists() {
    return refIfExists;
  }

  public String ref() {
    return ref.getSimple();
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name(), ref);
  }

  @Override
  protected void unparseAlteration(SqlWriter writer) {
    writer.keyword("DROP");
    writer.keyword(refKind.name());
    if (refIfExists) {
      writer.keyword("IF EXISTS");
    }
    ref.unparse(writer, 0, 0);
  }
}

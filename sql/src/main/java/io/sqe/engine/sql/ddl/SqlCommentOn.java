package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDdl;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * {@code COMMENT ON TABLE t IS 'x'}, {@code COMMENT ON VIEW v IS 'x'} or {@code COMMENT ON COLUMN
 * t.c IS 'x'}; {@code IS NULL} removes the comment.
 */
public final class SqlCommentOn extends SqlDdl {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("COMMENT", SqlKind.OTHER_DDL);

  /** What the comment is on. */
  public enum Target {
    TABLE,
    VIEW,
    COLUMN
  }

  private final Target target;
  private final SqlIdentifier name;
  private final SqlCharStringLiteral comment;

  public SqlCommentOn(SqlParserPos pos, Target target, SqlIdentifier name, SqlCharStringLiteral comment) {
    super(OPERATOR, pos);
    this.target = requireNonNull(target, "target is null");
    this.name = requireNonNull(name, "name is null");
    if (target == Target.COLUMN && name.names.size() < 2) {
      throw SqlSyntaxErrors.error(name.getParserPosition(), "COMMENT ON COLUMN needs table.column");
    }
    this.comment = comment;
  }

  public Target target() {
    return target;
  }

  /** The table or view: for a column comment, the name without its last segment. */
  public SqlIdentifier objectName() {
    return target == Target.COLUMN ? name.skipLast(1) : name;
  }

  /** For a column comment, the column (the last segment of the name); otherwise null. */
  public String column() {
    return target == Target.COLUMN ? name.names.get(name.names.size() - 1) : null;
  }

  public SqlIdentifier name() {
    return name;
  }

  /** The new comment, or null to remove it. */
  public String comment() {
    return comment == null ? null : comment.getValueAs(String.class);
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name, comment);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("COMMENT ON");
    writer.keyword(target.name());
    name.unparse(writer, leftPrec, rightPrec);
    writer.keyword("IS");
    if (comment == null) {
      writer.keyword("NULL");
    } else {
      comment.unparse(writer, 0, 0);
    }
  }
}

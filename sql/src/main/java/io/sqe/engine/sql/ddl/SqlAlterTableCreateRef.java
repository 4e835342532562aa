package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * {@code ALTER TABLE name CREATE [OR REPLACE] BRANCH|TAG [IF NOT EXISTS] ref [AS OF VERSION
 * snapshotId] [RETAIN n DAYS|HOURS|MINUTES]}. Without AS OF VERSION the ref points at the current
 * snapshot.
 */
public final class SqlAlterTableCreateRef extends SqlAlterTable {
  /** Iceberg's two kinds of named snapshot reference. */
  public enum RefKind {
    BRANCH,
    TAG
  }

  private final boolean replace;
  private final RefKind refKind;
  private final boolean ifNotExists;
  private final SqlIdentifier ref;
  private final SqlNumericLiteral snapshotId;
  private final SqlNumericLiteral retain;
  private final ChronoUnit retainUnit;

  public SqlAlterTableCreateRef(
      SqlParserPos pos,
      boolean ifExists,
      SqlIdentifier name,
      boolean replace,
      RefKind refKind,
      boolean ifNotExists,
      SqlIdentifier ref,
      SqlNumericLiteral snapshotId,
      SqlNumericLiteral retain,
      ChronoUnit retainUnit) {
    super(pos, ifExists, name);
    this.replace = replace;
    this.refKind = requireNonNull(refKind, "refKind is null");
    this.ifNotExists = ifNotExists;
    this.ref = requireNonNull(ref, "ref is null");
    this.snapshotId = snapshotId;
    if ((retain == null) != (retainUnit == null)) {
      throw new IllegalArgumentException("retain and retainUnit go together");
    }
    if (snapshotId != null && !snapshotId.isInteger()) {
      throw SqlSyntaxErrors.error(snapshotId.getParserPosition(), "A snapshot id is an integer");
    }
    if (retain != null && (!retain.isInteger() || retain.longValue(true) <= 0)) {
      throw SqlSyntaxErrors.error(retain.getParserPosition(), "RETAIN takes a positive whole number");
    }
    this.retain = retain;
    this.retainUnit = retainUnit;
  }

  public boolean replace() {
    return replace;
  }

  public RefKind refKind() {
    return refKind;
  }

  public boolean ifNotExists() {
    return ifNotExists;
  }

  /** The branch or tag name. */
  public String ref() {
    return ref.getSimple();
  }

  /** The snapshot of AS OF VERSION, or null for the table's current snapshot. */
  public Long snapshotId() {
    return snapshotId == null ? null : snapshotId.longValue(true);
  }

  /** How long to keep the ref (Iceberg's max ref age), or null for the table's default. */
  public Duration retain() {
    return retain == null ? null : Duration.of(retain.longValue(true), retainUnit);
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name(), ref, snapshotId, retain);
  }

  @Override
  protected void unparseAlteration(SqlWriter writer) {
    writer.keyword("CREATE");
    if (replace) {
      writer.keyword("OR REPLACE");
    }
    writer.keyword(refKind.name());
    if (ifNotExists) {
      writer.keyword("IF NOT EXISTS");
    }
    ref.unparse(writer, 0, 0);
    if (snapshotId != null) {
      writer.keyword("AS OF VERSION");
      snapshotId.unparse(writer, 0, 0);
    }
    if (retain != null) {
      writer.keyword("RETAIN");
      retain.unparse(writer, 0, 0);
      writer.keyword(retainUnit.name());
    }
  }
}

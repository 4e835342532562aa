package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.iceberg.IcebergMetadataTable;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * Loads tables for DDL and commits changes to them. Iceberg does not retry schema changes: one
 * made against metadata that another writer has since replaced fails with {@link
 * CommitFailedException}. The change is then checked and applied once more on a fresh load; a
 * second conflict is reported.
 */
final class TableCommits {
  private TableCommits() {}

  /** The table as the catalog has it now, bypassing the server's table cache. */
  static Optional<Table> load(ObjectName name) {
    try {
      return Optional.of(name.catalog().iceberg().loadTable(name.id()));
    } catch (NoSuchTableException e) {
      return Optional.empty();
    }
  }

  static Table loadExisting(ObjectName name) {
    return load(name).orElseThrow(() -> notFound(name));
  }

  static io.sqe.engine.SqeException notFound(ObjectName name) {
    if (isMetadataTable(name)) {
      return error(ErrorCode.INVALID_ARGUMENT, "'" + name.qualified() + "' is a metadata table; metadata tables are read-only", name.node());
    }
    String hint = isView(name) ? "; it is a view" : "";
    return error(ErrorCode.NOT_FOUND, "Table '" + name.qualified() + "' does not exist" + hint, name.node());
  }

  /** Whether the name is one of an existing table's metadata tables ({@code t$snapshots}). */
  static boolean isMetadataTable(ObjectName name) {
    return IcebergMetadataTable.Name.parse(name.id().name())
        .filter(parsed -> parsed.kind().isPresent())
        .map(parsed -> name.catalog().iceberg().tableExists(TableIdentifier.of(name.id().namespace(), parsed.table())))
        .orElse(false);
  }

  static boolean isView(ObjectName name) {
    return name.catalog().views().map(v -> v.viewExists(name.id())).orElse(false);
  }

  /**
   * Applies {@code change} (which checks the table and commits) to a fresh load of the table,
   * and once more to a second load if a concurrent commit got in between. A table that does not
   * exist is an error, or nothing to do with {@code ifExists}.
   */
  static void commit(ObjectName name, boolean ifExists, String statement, Consumer<Table> change) {
    try {
      try {
        apply(name, ifExists, change);
      } catch (CommitFailedException first) {
        try {
          apply(name, ifExists, change);
        } catch (CommitFailedException second) {
          second.addSuppressed(first);
          throw new io.sqe.engine.SqeException(
              ErrorCode.FAILED_PRECONDITION,
              statement + " on table '" + name.qualified() + "' conflicted twice with concurrent changes; retry the statement",
              DdlErrors.position(name.node()),
              second);
        }
      }
    } finally {
      name.catalog().invalidate(name.id());
    }
  }

  private static void apply(ObjectName name, boolean ifExists, Consumer<Table> change) {
    Optional<Table> table = load(name);
    if (table.isEmpty()) {
      if (ifExists) {
        return;
      }
      throw notFound(name);
    }
    change.accept(table.get());
  }
}

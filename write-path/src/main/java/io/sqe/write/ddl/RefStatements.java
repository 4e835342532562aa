package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.sql.ddl.SqlAlterTableCreateRef;
import io.sqe.engine.sql.ddl.SqlAlterTableCreateRef.RefKind;
import io.sqe.engine.sql.ddl.SqlAlterTableDropRef;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.apache.iceberg.ManageSnapshots;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;

/**
 * {@code ALTER TABLE t CREATE [OR REPLACE] BRANCH|TAG [IF NOT EXISTS] name [AS OF VERSION id]
 * [RETAIN n unit]} and {@code ALTER TABLE t DROP BRANCH|TAG [IF EXISTS] name}, through Iceberg's
 * {@link ManageSnapshots}. RETAIN is the ref's maximum age ({@code setMaxRefAgeMs}): snapshot
 * expiry drops a ref older than that, except {@code main}.
 */
final class RefStatements {
  private RefStatements() {}

  static PreparedCommand create(CommandContext context, SqlAlterTableCreateRef create) {
    ObjectName name = Names.object(context, create.name());
    Optional<Table> table = TableCommits.load(name);
    if (table.isEmpty()) {
      if (!create.ifExists()) {
        throw TableCommits.notFound(name);
      }
    } else {
      checkCreate(name, create, table.get());
    }
    String statement = "CREATE " + create.refKind();
    return (ctx, parameters) -> {
      try {
        TableCommits.commit(name, create.ifExists(), statement, t -> {
          if (checkCreate(name, create, t)) {
            commitCreate(create, t);
          }
        });
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, create.name());
      }
      return CommandResult.rows(0);
    };
  }

  /** Throws if the ref cannot be created; false when there is nothing to do (IF NOT EXISTS). */
  private static boolean checkCreate(ObjectName name, SqlAlterTableCreateRef create, Table table) {
    String ref = create.ref();
    SnapshotRef existing = table.refs().get(ref);
    if (existing != null) {
      RefKind existingKind = existing.isBranch() ? RefKind.BRANCH : RefKind.TAG;
      if (existingKind != create.refKind()) {
        throw error(
            ErrorCode.ALREADY_EXISTS,
            "Table '" + name.qualified() + "' has a " + kind(existingKind) + " named '" + ref + "'; a branch and a tag cannot share a name",
            create.name());
      }
      if (!create.replace()) {
        if (create.ifNotExists()) {
          return false;
        }
        throw error(
            ErrorCode.ALREADY_EXISTS,
            "Table '" + name.qualified() + "' already has a " + kind(create.refKind()) + " named '" + ref + "'",
            create.name());
      }
    }
    Long snapshotId = create.snapshotId();
    if (snapshotId != null && table.snapshot(snapshotId) == null) {
      throw error(ErrorCode.NOT_FOUND, "Table '" + name.qualified() + "' has no snapshot " + snapshotId, create.name());
    }
    if (snapshotId == null && table.currentSnapshot() == null && create.refKind() == RefKind.TAG) {
      throw error(
          ErrorCode.FAILED_PRECONDITION,
          "Table '" + name.qualified() + "' has no snapshot yet, so there is nothing for tag '" + ref + "' to name",
          create.name());
    }
    return true;
  }

  private static void commitCreate(SqlAlterTableCreateRef create, Table table) {
    String ref = create.ref();
    boolean exists = table.refs().containsKey(ref);
    Long snapshotId = create.snapshotId() != null
        ? create.snapshotId()
        : table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
    ManageSnapshots manage = table.manageSnapshots();
    if (create.refKind() == RefKind.BRANCH) {
      if (snapshotId == null) {
        // A branch of a table without snapshots starts from an empty one, as Iceberg makes it.
        manage.createBranch(ref);
      } else if (exists) {
        manage.replaceBranch(ref, snapshotId);
      } else {
        manage.createBranch(ref, snapshotId);
      }
    } else if (exists) {
      manage.replaceTag(ref, snapshotId);
    } else {
      manage.createTag(ref, snapshotId);
    }
    Duration retain = create.retain();
    if (retain != null) {
      manage.setMaxRefAgeMs(ref, retain.toMillis());
    }
    manage.commit();
  }

  static PreparedCommand drop(CommandContext context, SqlAlterTableDropRef drop) {
    ObjectName name = Names.object(context, drop.name());
    if (drop.refKind() == RefKind.BRANCH && SnapshotRef.MAIN_BRANCH.equals(drop.ref())) {
      throw error(
          ErrorCode.INVALID_ARGUMENT,
          "Cannot drop branch '" + SnapshotRef.MAIN_BRANCH + "': it is the table's current state",
          drop.name());
    }
    Optional<Table> table = TableCommits.load(name);
    if (table.isEmpty()) {
      if (!drop.ifExists()) {
        throw TableCommits.notFound(name);
      }
    } else {
      checkDrop(name, drop, table.get());
    }
    String statement = "DROP " + drop.refKind();
    return (ctx, parameters) -> {
      try {
        TableCommits.commit(name, drop.ifExists(), statement, t -> {
          if (checkDrop(name, drop, t)) {
            ManageSnapshots manage = t.manageSnapshots();
            if (drop.refKind() == RefKind.BRANCH) {
              manage.removeBranch(drop.ref());
            } else {
              manage.removeTag(drop.ref());
            }
            manage.commit();
          }
        });
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, drop.name());
      }
      return CommandResult.rows(0);
    };
  }

  /** Throws if the ref cannot be dropped; false when there is nothing to do (IF EXISTS). */
  private static boolean checkDrop(ObjectName name, SqlAlterTableDropRef drop, Table table) {
    SnapshotRef existing = table.refs().get(drop.ref());
    boolean matches = existing != null && (existing.isBranch() == (drop.refKind() == RefKind.BRANCH));
    if (matches) {
      return true;
    }
    if (drop.refIfExists()) {
      return false;
    }
    String hint = existing == null ? "" : " ('" + drop.ref() + "' is a " + (existing.isBranch() ? "branch" : "tag") + ")";
    throw error(
        ErrorCode.NOT_FOUND,
        "Table '" + name.qualified() + "' has no " + kind(drop.refKind()) + " named '" + drop.ref() + "'" + hint,
        drop.name());
  }

  private static String kind(RefKind kind) {
    return kind.name().toLowerCase(Locale.ROOT);
  }
}

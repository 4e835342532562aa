package io.sqe.engine.security;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.Session;
import io.sqe.engine.sql.ddl.SqlAlterTable;
import io.sqe.engine.sql.ddl.SqlAlterViewRename;
import io.sqe.engine.sql.ddl.SqlAnalyzeTable;
import io.sqe.engine.sql.ddl.SqlCallProcedure;
import io.sqe.engine.sql.ddl.SqlCommentOn;
import io.sqe.engine.sql.ddl.SqlCreateMaterializedView;
import io.sqe.engine.sql.ddl.SqlCreateSchema;
import io.sqe.engine.sql.ddl.SqlCreateTable;
import io.sqe.engine.sql.ddl.SqlCreateView;
import io.sqe.engine.sql.ddl.SqlDropMaterializedView;
import io.sqe.engine.sql.ddl.SqlDropSchema;
import io.sqe.engine.sql.ddl.SqlDropTable;
import io.sqe.engine.sql.ddl.SqlDropView;
import io.sqe.engine.sql.ddl.SqlMergeClause;
import io.sqe.engine.sql.ddl.SqlMergeStatement;
import io.sqe.engine.sql.ddl.SqlRefreshMaterializedView;
import io.sqe.engine.sql.ddl.SqlShowCreate;
import io.sqe.engine.sql.ddl.SqlTruncateTable;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlUpdate;

/**
 * Checks, when a statement is prepared, the privileges its kind needs on the object it writes or
 * changes. Tables a statement reads (queries, the sources of INSERT, CTAS and MERGE) are checked
 * where the planner resolves them.
 */
public final class StatementPrivileges {
  /** The procedure any user may call under a policy, on their own queries (an admin on anyone's). */
  public static final String CANCEL_QUERY = "system.cancel_query";
  public static final String KILL_QUERY = "system.kill_query";
  public static final String KILL_SESSION = "system.kill_session";
  /** The procedures that touch no table and check their caller themselves (own statement or session, or an admin). */
  private static final Set<String> SELF_CHECKED_PROCEDURES = Set.of(CANCEL_QUERY, KILL_QUERY, KILL_SESSION);

  private final AccessControl access;

  public StatementPrivileges(AccessControl access) {
    this.access = requireNonNull(access, "access is null");
  }

  /** Throws PERMISSION_DENIED, or NOT_FOUND for an object the principal may not see. */
  public void check(Session session, SqlNode statement) {
    if (statement instanceof SqlInsert) {
      SqlNode target = ((SqlInsert) statement).getTargetTable();
      if (target instanceof SqlIdentifier) {
        existing(session, (SqlIdentifier) target, EnumSet.of(Privilege.INSERT));
      }
    } else if (statement instanceof SqlDelete) {
      SqlDelete delete = (SqlDelete) statement;
      if (delete.getTargetTable() instanceof SqlIdentifier) {
        // A condition reads the rows, and the deleted count would tell what it matched.
        existing(session, (SqlIdentifier) delete.getTargetTable(),
            delete.getCondition() == null ? EnumSet.of(Privilege.DELETE) : EnumSet.of(Privilege.DELETE, Privilege.SELECT));
      }
    } else if (statement instanceof SqlUpdate) {
      SqlNode target = ((SqlUpdate) statement).getTargetTable();
      if (target instanceof SqlIdentifier) {
        existing(session, (SqlIdentifier) target, EnumSet.of(Privilege.UPDATE, Privilege.SELECT));
      }
    } else if (statement instanceof SqlMergeStatement) {
      SqlMergeStatement merge = (SqlMergeStatement) statement;
      Set<Privilege> needed = EnumSet.of(Privilege.SELECT);
      for (SqlMergeClause clause : merge.clauses()) {
        needed.add(Privilege.valueOf(clause.action().name()));
      }
      existing(session, merge.target(), needed);
    } else if (statement instanceof SqlCreateTable) {
      created(session, ((SqlCreateTable) statement).name(), "table");
    } else if (statement instanceof SqlCreateView) {
      created(session, ((SqlCreateView) statement).name(), "view");
    } else if (statement instanceof SqlCreateMaterializedView) {
      created(session, ((SqlCreateMaterializedView) statement).name(), "materialized view");
    } else if (statement instanceof SqlDropMaterializedView) {
      existing(session, ((SqlDropMaterializedView) statement).name(), EnumSet.of(Privilege.DROP));
    } else if (statement instanceof SqlRefreshMaterializedView) {
      // Trino's rule: refreshing changes the view's rows as an UPDATE would.
      existing(session, ((SqlRefreshMaterializedView) statement).name(), EnumSet.of(Privilege.UPDATE));
    } else if (statement instanceof SqlDropTable) {
      existing(session, ((SqlDropTable) statement).name(), EnumSet.of(Privilege.DROP));
    } else if (statement instanceof SqlDropView) {
      existing(session, ((SqlDropView) statement).name(), EnumSet.of(Privilege.DROP));
    } else if (statement instanceof SqlTruncateTable) {
      existing(session, ((SqlTruncateTable) statement).name(), EnumSet.of(Privilege.DELETE));
    } else if (statement instanceof SqlAlterTable) {
      existing(session, ((SqlAlterTable) statement).name(), EnumSet.of(Privilege.ALTER));
    } else if (statement instanceof SqlAlterViewRename) {
      SqlAlterViewRename rename = (SqlAlterViewRename) statement;
      existing(session, rename.name(), EnumSet.of(Privilege.ALTER));
      created(session, rename.newName(), "view");
    } else if (statement instanceof SqlAnalyzeTable) {
      existing(session, ((SqlAnalyzeTable) statement).name(), EnumSet.of(Privilege.ALTER));
    } else if (statement instanceof SqlCommentOn) {
      existing(session, ((SqlCommentOn) statement).objectName(), EnumSet.of(Privilege.ALTER));
    } else if (statement instanceof SqlShowCreate) {
      existing(session, ((SqlShowCreate) statement).name(), EnumSet.of(Privilege.SELECT));
    } else if (statement instanceof SqlCreateSchema) {
      schema(session, ((SqlCreateSchema) statement).name(), "create");
    } else if (statement instanceof SqlDropSchema) {
      schema(session, ((SqlDropSchema) statement).name(), "drop");
    } else if (statement instanceof SqlCallProcedure) {
      String procedure = String.join(".", ((SqlCallProcedure) statement).name().names);
      // Procedures that change tables do so in ways no table privilege describes: a policy refuses
      // them. cancel_query and its kin touch no table and check their caller themselves.
      if (access != AccessControl.ALLOW_ALL && !SELF_CHECKED_PROCEDURES.contains(procedure.toLowerCase(Locale.ROOT))) {
        throw denied(session, "CALL " + procedure + " under an access policy");
      }
    }
  }


  private void existing(Session session, SqlIdentifier name, Set<Privilege> needed) {
    List<String> object = resolve(session, name);
    if (object == null) {
      return;
    }
    TableAccess granted = access.tableAccess(session.principal(), object.get(0), object.get(1), object.get(2));
    if (!granted.visible()) {
      throw new SqeException(ErrorCode.NOT_FOUND, "Table " + String.join(".", object) + " does not exist");
    }
    for (Privilege privilege : needed) {
      if (!granted.has(privilege)) {
        throw denied(session, privilege + " on " + String.join(".", object));
      }
    }
  }

  private void created(Session session, SqlIdentifier name, String kind) {
    List<String> object = resolve(session, name);
    if (object != null && !access.tableAccess(session.principal(), object.get(0), object.get(1), object.get(2)).has(Privilege.CREATE)) {
      throw denied(session, "CREATE " + kind + " " + String.join(".", object));
    }
  }

  private void schema(Session session, SqlIdentifier name, String action) {
    List<String> parts = name.names;
    String catalog = parts.size() == 2 ? parts.get(0) : session.catalog();
    String schema = parts.get(parts.size() - 1);
    if (!access.ownsSchema(session.principal(), catalog, schema)) {
      throw denied(session, action + " schema " + catalog + "." + schema);
    }
  }

  private static SqeException denied(Session session, String what) {
    return new SqeException(ErrorCode.PERMISSION_DENIED, "Access denied: user '" + session.principal().user() + "' cannot " + what);
  }

  /** Catalog, schema and name as the statement means them; null when the name is incomplete (the statement reports that). */
  private static List<String> resolve(Session session, SqlIdentifier name) {
    List<String> parts = name.names;
    switch (parts.size()) {
      case 1:
        return session.schema() == null ? null : List.of(session.catalog(), session.schema(), parts.get(0));
      case 2:
        return List.of(session.catalog(), parts.get(0), parts.get(1));
      case 3:
        return List.copyOf(parts);
      default:
        return null;
    }
  }
}

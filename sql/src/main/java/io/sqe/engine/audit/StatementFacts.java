package io.sqe.engine.audit;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.session.Session;
import io.sqe.engine.sql.SqeParser;
import io.sqe.engine.sql.ddl.SqlAlterTable;
import io.sqe.engine.sql.ddl.SqlAnalyzeTable;
import io.sqe.engine.sql.ddl.SqlCommentOn;
import io.sqe.engine.sql.ddl.SqlCreateMaterializedView;
import io.sqe.engine.sql.ddl.SqlCreateTable;
import io.sqe.engine.sql.ddl.SqlCreateView;
import io.sqe.engine.sql.ddl.SqlDropMaterializedView;
import io.sqe.engine.sql.ddl.SqlDropTable;
import io.sqe.engine.sql.ddl.SqlDropView;
import io.sqe.engine.sql.ddl.SqlExecute;
import io.sqe.engine.sql.ddl.SqlMergeStatement;
import io.sqe.engine.sql.ddl.SqlRefreshMaterializedView;
import io.sqe.engine.sql.ddl.SqlShowCreate;
import io.sqe.engine.sql.ddl.SqlTableVersion;
import io.sqe.engine.sql.ddl.SqlTransactionStatement;
import io.sqe.engine.sql.ddl.SqlTruncateTable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlExplain;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSetOption;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.SqlWith;
import org.apache.calcite.sql.SqlWithItem;

/**
 * What an audit log says about a statement without its text: its kind ({@code SELECT}, {@code
 * INSERT}, {@code CREATE TABLE AS}, ...) and the tables and views it names, fully qualified with
 * the session's defaults, split into those it reads and those it writes or changes.
 *
 * <p>The tables are the ones the statement's text names (a view counts as the view, not the tables
 * inside it; CTE names are left out), as the parser sees them: the planner's checks decide what
 * the statement may touch, this only reports it.
 *
 * @param kind the statement's kind; null when the text does not parse
 * @param read tables and views read, in order of first mention
 * @param written tables and views written, created, dropped or altered
 */
public record StatementFacts(String kind, List<String> read, List<String> written) {
  /** What is known of a statement that does not parse. */
  public static final StatementFacts UNPARSED = new StatementFacts(null, List.of(), List.of());

  public StatementFacts {
    read = List.copyOf(read);
    written = List.copyOf(written);
  }

  /**
   * The facts of {@code sql} as {@code session} would run it; {@link #UNPARSED} if it does not
   * parse. An EXECUTE has the facts of the statement it runs.
   */
  public static StatementFacts of(Session session, String sql) {
    requireNonNull(session, "session is null");
    SqlNode node;
    try {
      node = SqeParser.parse(requireNonNull(sql, "sql is null"));
      if (node instanceof SqlExecute) {
        SqlExecute execute = (SqlExecute) node;
        String executed = execute.name() == null ? execute.immediateText() : session.preparedStatements().get(execute.name());
        if (executed == null) {
          return new StatementFacts("EXECUTE", List.of(), List.of());
        }
        node = SqeParser.parse(executed);
      }
    } catch (RuntimeException e) {
      return UNPARSED;
    }
    return of(session.catalog(), session.schema(), node);
  }

  /**
   * The facts of a parsed statement.
   *
   * @param catalog the default catalog of unqualified names
   * @param schema the default schema of unqualified names; null for none
   */
  public static StatementFacts of(String catalog, String schema, SqlNode statement) {
    Collector collector = new Collector(catalog, schema);
    String kind = collector.statement(statement);
    return new StatementFacts(kind, new ArrayList<>(collector.read), new ArrayList<>(collector.written));
  }

  private static final class Collector {
    private final String catalog;
    private final String schema;
    private final Set<String> read = new LinkedHashSet<>();
    private final Set<String> written = new LinkedHashSet<>();

    Collector(String catalog, String schema) {
      this.catalog = catalog;
      this.schema = schema;
    }

    String statement(SqlNode node) {
      if (node instanceof SqlExplain) {
        query(((SqlExplain) node).getExplicandum(), Set.of());
        return "EXPLAIN";
      }
      if (node.isA(SqlKind.QUERY)) {
        query(node, Set.of());
        return "SELECT";
      }
      if (node instanceof SqlInsert) {
        SqlInsert insert = (SqlInsert) node;
        table(insert.getTargetTable(), written);
        query(insert.getSource(), Set.of());
        return "INSERT";
      }
      if (node instanceof SqlUpdate) {
        SqlUpdate update = (SqlUpdate) node;
        table(update.getTargetTable(), written);
        expression(update.getSourceExpressionList(), Set.of());
        expression(update.getCondition(), Set.of());
        return "UPDATE";
      }
      if (node instanceof SqlDelete) {
        SqlDelete delete = (SqlDelete) node;
        table(delete.getTargetTable(), written);
        expression(delete.getCondition(), Set.of());
        return "DELETE";
      }
      if (node instanceof SqlMergeStatement) {
        SqlMergeStatement merge = (SqlMergeStatement) node;
        table(merge.target(), written);
        from(merge.source(), Set.of());
        expression(merge.condition(), Set.of());
        return "MERGE";
      }
      if (node instanceof SqlCreateTable) {
        SqlCreateTable create = (SqlCreateTable) node;
        table(create.name(), written);
        if (create.query() != null) {
          query(create.query(), Set.of());
          return "CREATE TABLE AS";
        }
        return "CREATE TABLE";
      }
      if (node instanceof SqlCreateView) {
        table(((SqlCreateView) node).name(), written);
        query(((SqlCreateView) node).query(), Set.of());
      } else if (node instanceof SqlCreateMaterializedView) {
        table(((SqlCreateMaterializedView) node).name(), written);
        query(((SqlCreateMaterializedView) node).query(), Set.of());
      } else if (node instanceof SqlDropMaterializedView) {
        table(((SqlDropMaterializedView) node).name(), written);
      } else if (node instanceof SqlRefreshMaterializedView) {
        table(((SqlRefreshMaterializedView) node).name(), written);
      } else if (node instanceof SqlDropTable) {
        table(((SqlDropTable) node).name(), written);
      } else if (node instanceof SqlDropView) {
        table(((SqlDropView) node).name(), written);
      } else if (node instanceof SqlTruncateTable) {
        table(((SqlTruncateTable) node).name(), written);
      } else if (node instanceof SqlAlterTable) {
        table(((SqlAlterTable) node).name(), written);
      } else if (node instanceof SqlAnalyzeTable) {
        table(((SqlAnalyzeTable) node).name(), written);
      } else if (node instanceof SqlCommentOn) {
        table(((SqlCommentOn) node).objectName(), written);
      } else if (node instanceof SqlShowCreate) {
        table(((SqlShowCreate) node).name(), read);
      } else if (node instanceof SqlTransactionStatement) {
        return ((SqlTransactionStatement) node).action().name().replace('_', ' ');
      } else if (node instanceof SqlSetOption) {
        return ((SqlSetOption) node).getValue() == null ? "RESET" : "SET";
      }
      return name(node);
    }

    /** What a statement is called: its operator's name (CREATE VIEW, USE), else its kind. */
    private static String name(SqlNode node) {
      if (node instanceof SqlCall) {
        String name = ((SqlCall) node).getOperator().getName();
        if (!name.isBlank()) {
          return name.toUpperCase(Locale.ROOT);
        }
      }
      return node.getKind().sql;
    }

    private void query(SqlNode node, Set<String> ctes) {
      if (node == null) {
        return;
      }
      if (node instanceof SqlWith) {
        SqlWith with = (SqlWith) node;
        Set<String> scope = new HashSet<>(ctes);
        for (SqlNode item : with.withList) {
          SqlWithItem withItem = (SqlWithItem) item;
          // A recursive CTE names itself inside its own query.
          scope.add(withItem.name.getSimple());
          query(withItem.query, scope);
        }
        query(with.body, scope);
      } else if (node instanceof SqlSelect) {
        SqlSelect select = (SqlSelect) node;
        from(select.getFrom(), ctes);
        expression(select.getSelectList(), ctes);
        expression(select.getWhere(), ctes);
        expression(select.getGroup(), ctes);
        expression(select.getHaving(), ctes);
        expression(select.getQualify(), ctes);
        expression(select.getOrderList(), ctes);
      } else if (node instanceof SqlOrderBy) {
        SqlOrderBy orderBy = (SqlOrderBy) node;
        query(orderBy.query, ctes);
        expression(orderBy.orderList, ctes);
      } else {
        // Set operations, VALUES and the like: their operands are queries or expressions.
        expression(node, ctes);
      }
    }

    private void from(SqlNode node, Set<String> ctes) {
      if (node == null) {
        return;
      }
      if (node instanceof SqlIdentifier) {
        SqlIdentifier id = (SqlIdentifier) node;
        if (!(id.isSimple() && ctes.contains(id.getSimple()))) {
          table(id, read);
        }
      } else if (node instanceof SqlJoin) {
        SqlJoin join = (SqlJoin) node;
        from(join.getLeft(), ctes);
        from(join.getRight(), ctes);
        expression(join.getCondition(), ctes);
      } else if (node instanceof SqlTableVersion) {
        SqlTableVersion version = (SqlTableVersion) node;
        from(version.getOperandList().get(0), ctes);
      } else if (node instanceof SqlCall && (node.getKind() == SqlKind.AS || node.getKind() == SqlKind.SNAPSHOT
          || node.getKind() == SqlKind.LATERAL || node.getKind() == SqlKind.TABLESAMPLE)) {
        SqlCall call = (SqlCall) node;
        from(call.operand(0), ctes);
        for (int i = 1; i < call.operandCount(); i++) {
          if (node.getKind() == SqlKind.SNAPSHOT) {
            expression(call.operand(i), ctes);
          }
        }
      } else if (node.isA(SqlKind.QUERY) || node instanceof SqlWith) {
        query(node, ctes);
      } else {
        // UNNEST, TABLE(f(...)), VALUES: only the queries inside name tables.
        expression(node, ctes);
      }
    }

    private void expression(SqlNode node, Set<String> ctes) {
      if (node == null) {
        return;
      }
      if (node instanceof SqlNodeList) {
        for (SqlNode item : (SqlNodeList) node) {
          expression(item, ctes);
        }
      } else if (node instanceof SqlSelect || node instanceof SqlWith || node instanceof SqlOrderBy) {
        query(node, ctes);
      } else if (node instanceof SqlCall) {
        for (SqlNode operand : ((SqlCall) node).getOperandList()) {
          expression(operand, ctes);
        }
      }
    }

    private void table(SqlNode node, Set<String> into) {
      if (!(node instanceof SqlIdentifier)) {
        if (node != null) {
          from(node, Set.of());
        }
        return;
      }
      List<String> names = ((SqlIdentifier) node).names;
      String name;
      switch (names.size()) {
        case 1:
          name = schema == null ? catalog + "." + names.get(0) : catalog + "." + schema + "." + names.get(0);
          break;
        case 2:
          name = catalog + "." + names.get(0) + "." + names.get(1);
          break;
        default:
          name = String.join(".", names);
          break;
      }
      into.add(name);
    }
  }
}

package io.sqe.write.reuse;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.sql.SqlDialect;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.validate.SqlNameMatchers;
import org.apache.calcite.util.Litmus;

/**
 * Whether a materialized view's query can be refreshed from the rows its sources appended, and
 * how: a SELECT over tables joined by inner (or comma) joins, filtered by any condition without
 * sub-queries, either returning rows (the delta's rows are appended) or grouping them with SUM,
 * COUNT, MIN, MAX and AVG (the delta's groups are merged into the stored ones; an average through
 * the sum and count {@link #withAverageParts} adds). Everything else refreshes in full.
 *
 * @param columns what each column of the query's result is, in order
 * @param tables the number of table references in FROM: the refresh needs each to be a distinct
 *     table, since the delta rule reads each source in one state per term
 * @param grouped whether the result has one row per group (GROUP BY, or aggregates without it)
 */
public record IncrementalQuery(List<Column> columns, int tables, boolean grouped) {
  /** What one result column is to a merge of groups. */
  public enum Column {
    /** A GROUP BY expression: with the other keys, it identifies the group. */
    KEY,
    /** A function of the keys (a literal, an expression of grouped columns): the same in every row of a group. */
    DEPENDENT,
    SUM,
    COUNT,
    MIN,
    MAX,
    /** An average: merged from its sum and count, which a grouped refresh keeps beside the storage table. */
    AVG
  }

  public IncrementalQuery {
    columns = List.copyOf(columns);
  }

  /** The analysis of a query: its shape when it can be refreshed incrementally, or why not. */
  public record Analysis(IncrementalQuery query, String whyNot) {
    static Analysis no(String whyNot) {
      return new Analysis(null, requireNonNull(whyNot, "whyNot is null"));
    }
  }

  /** The shape of {@code query} (as parsed, not validated) or why it refreshes in full. */
  public static Analysis analyze(SqlNode query) {
    if (!(query instanceof SqlSelect select)) {
      return Analysis.no("the query is not a single SELECT (it has ORDER BY, LIMIT, WITH or a set operation)");
    }
    if (select.isDistinct()) {
      return Analysis.no("the query is SELECT DISTINCT");
    }
    if (select.getHaving() != null) {
      return Analysis.no("the query has HAVING");
    }
    if (select.getFetch() != null || select.getOffset() != null || (select.getOrderList() != null && !select.getOrderList().isEmpty())) {
      return Analysis.no("the query has ORDER BY, LIMIT or OFFSET");
    }
    if (select.getWindowList() != null && !select.getWindowList().isEmpty()) {
      return Analysis.no("the query has a window");
    }
    int[] tables = {0};
    String from = checkFrom(select.getFrom(), tables);
    if (from != null) {
      return Analysis.no(from);
    }
    String where = checkScalar(select.getWhere(), "WHERE");
    if (where != null) {
      return Analysis.no(where);
    }
    SqlNodeList groupBy = select.getGroup();
    List<SqlNode> groups = groupBy == null ? List.of() : groupBy.getList();
    for (SqlNode group : groups) {
      if (group.getKind() == SqlKind.GROUPING_SETS || group.getKind() == SqlKind.ROLLUP || group.getKind() == SqlKind.CUBE
          || (group instanceof SqlNodeList list && list.isEmpty())) {
        return Analysis.no("the query groups by grouping sets, ROLLUP or CUBE");
      }
      String scalar = checkScalar(group, "GROUP BY");
      if (scalar != null) {
        return Analysis.no(scalar);
      }
    }
    List<Column> columns = new ArrayList<>();
    List<SqlNode> items = new ArrayList<>();
    boolean aggregates = false;
    for (SqlNode item : select.getSelectList()) {
      SqlNode expression = item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item;
      items.add(expression);
      if (expression instanceof SqlCall call && isAggregate(call.getOperator())) {
        String why = aggregateKind(call, columns);
        if (why != null) {
          return Analysis.no(why);
        }
        aggregates = true;
        continue;
      }
      if (containsAggregate(expression)) {
        return Analysis.no("a selected expression computes with aggregates: " + SqlDialect.toSql(expression));
      }
      String scalar = checkScalar(expression, "SELECT");
      if (scalar != null) {
        return Analysis.no(scalar);
      }
      columns.add(Column.DEPENDENT);
    }
    if (groups.isEmpty() && !aggregates) {
      return new Analysis(new IncrementalQuery(columns, tables[0], false), null);
    }
    for (SqlNode group : groups) {
      boolean found = false;
      for (int i = 0; i < items.size(); i++) {
        if (sameKey(group, items.get(i), i) && columns.get(i) == Column.DEPENDENT) {
          columns.set(i, Column.KEY);
          found = true;
        }
      }
      if (!found) {
        return Analysis.no("GROUP BY " + SqlDialect.toSql(group) + " is not one of the selected columns");
      }
    }
    return new Analysis(new IncrementalQuery(columns, tables[0], true), null);
  }

  /**
   * Whether GROUP BY item {@code group} is select item {@code item} (at 0-based {@code position}):
   * the same expression, or its ordinal. Not an alias: a name that is also a column of a source
   * groups by that column, so the alias's expression might not identify the group.
   */
  private static boolean sameKey(SqlNode group, SqlNode item, int position) {
    if (group.equalsDeep(item, Litmus.IGNORE)) {
      return true;
    }
    return group instanceof SqlNumericLiteral number && number.isExact() && number.intValue(false) == position + 1;
  }

  /** Whether the query has an AVG column, whose merge needs its sum and count. */
  public boolean averages() {
    return columns.contains(Column.AVG);
  }

  /**
   * {@code query} (one this class accepts, as parsed; changed in place) with, after its own
   * columns, {@code SUM(x)} and {@code COUNT(x)} of the argument of each {@code AVG(x)} in the
   * order of its columns: what a merge of averages adds.
   */
  public static SqlSelect withAverageParts(SqlNode query) {
    SqlSelect select = (SqlSelect) query;
    List<SqlNode> parts = new ArrayList<>();
    for (SqlNode item : select.getSelectList()) {
      SqlNode expression = item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item;
      if (expression instanceof SqlCall call && isAggregate(call.getOperator())
          && call.getOperator().getName().equalsIgnoreCase("AVG")) {
        SqlNode argument = call.operand(0);
        parts.add(SqlStdOperatorTable.SUM.createCall(SqlParserPos.ZERO, argument));
        parts.add(SqlStdOperatorTable.COUNT.createCall(SqlParserPos.ZERO, argument));
      }
    }
    List<SqlNode> items = new ArrayList<>(select.getSelectList().getList());
    items.addAll(parts);
    select.setSelectList(new SqlNodeList(items, select.getSelectList().getParserPosition()));
    return select;
  }

  /** Adds the column an aggregate call makes; or says why it refreshes in full. */
  private static String aggregateKind(SqlCall call, List<Column> columns) {
    SqlLiteral quantifier = call.getFunctionQuantifier();
    if (quantifier != null && quantifier.getValue() != null && quantifier.toValue().equalsIgnoreCase("DISTINCT")) {
      return "the query has a DISTINCT aggregate";
    }
    String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
    Column column = switch (name) {
      case "SUM" -> Column.SUM;
      case "COUNT" -> Column.COUNT;
      case "MIN" -> Column.MIN;
      case "MAX" -> Column.MAX;
      case "AVG" -> Column.AVG;
      default -> null;
    };
    if (column == null) {
      return "the query has aggregate " + name + " (only SUM, COUNT, MIN, MAX and AVG merge)";
    }
    for (SqlNode operand : call.getOperandList()) {
      String scalar = checkScalar(operand, name);
      if (scalar != null) {
        return scalar;
      }
    }
    columns.add(column);
    return null;
  }

  /** Why a FROM clause is not tables joined by inner joins; null when it is. */
  private static String checkFrom(SqlNode from, int[] tables) {
    if (from == null) {
      return "the query reads no table";
    }
    if (from instanceof SqlIdentifier) {
      tables[0]++;
      return null;
    }
    if (from.getKind() == SqlKind.AS) {
      return checkFrom(((SqlCall) from).operand(0), tables);
    }
    if (from instanceof SqlJoin join) {
      JoinType type = join.getJoinType();
      if (type != JoinType.INNER && type != JoinType.COMMA && type != JoinType.CROSS) {
        return "the query has a " + type.name().toLowerCase(Locale.ROOT) + " join";
      }
      String left = checkFrom(join.getLeft(), tables);
      if (left != null) {
        return left;
      }
      String right = checkFrom(join.getRight(), tables);
      return right != null ? right : checkScalar(join.getCondition(), "ON");
    }
    return "the query reads " + from.getKind().lowerName.replace('_', ' ') + " in FROM, not a table";
  }

  /**
   * Why {@code node} (a condition or expression of one row) is not a deterministic function of its
   * row without sub-queries, windows or aggregates; null when it is. Functions SQE does not know
   * (a catalog's) might be any of these, so they refresh in full too.
   */
  private static String checkScalar(SqlNode node, String clause) {
    if (node == null) {
      return null;
    }
    if (node instanceof SqlNodeList list) {
      for (SqlNode element : list) {
        String why = checkScalar(element, clause);
        if (why != null) {
          return why;
        }
      }
      return null;
    }
    if (node instanceof SqlSelect || node.getKind() == SqlKind.UNION || node.getKind() == SqlKind.INTERSECT
        || node.getKind() == SqlKind.EXCEPT || node.getKind() == SqlKind.WITH || node.getKind() == SqlKind.ORDER_BY) {
      return "the query has a sub-query in " + clause;
    }
    if (!(node instanceof SqlCall call)) {
      // A type, an interval qualifier: parts of a call, not values.
      return null;
    }
    if (call.getKind() == SqlKind.OVER || call.getKind() == SqlKind.FILTER || call.getKind() == SqlKind.WITHIN_GROUP) {
      return "the query has a window or a filtered aggregate in " + clause;
    }
    SqlOperator operator = call.getOperator();
    if (isAggregate(operator)) {
      return "the query has an aggregate inside an expression in " + clause;
    }
    if (operator instanceof SqlUnresolvedFunction && resolve(operator.getName()).isEmpty()) {
      return "the query calls " + operator.getName() + ", which SQE cannot check is deterministic";
    }
    for (SqlNode operand : call.getOperandList()) {
      String why = checkScalar(operand, clause);
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  private static boolean containsAggregate(SqlNode node) {
    if (node instanceof SqlNodeList list) {
      return list.getList().stream().anyMatch(IncrementalQuery::containsAggregate);
    }
    if (!(node instanceof SqlCall call)) {
      return false;
    }
    return isAggregate(call.getOperator()) || call.getOperandList().stream().anyMatch(o -> o != null && containsAggregate(o));
  }

  /** Whether the operator of a parsed call is an aggregate, resolving a name the parser left unresolved. */
  private static boolean isAggregate(SqlOperator operator) {
    if (operator.isAggregator()) {
      return true;
    }
    return operator instanceof SqlUnresolvedFunction && resolve(operator.getName()).stream().anyMatch(SqlOperator::isAggregator);
  }

  private static List<SqlOperator> resolve(String name) {
    List<SqlOperator> found = new ArrayList<>();
    SqlDialect.operatorTable().lookupOperatorOverloads(
        new SqlIdentifier(name, SqlParserPos.ZERO),
        SqlFunctionCategory.USER_DEFINED_FUNCTION,
        SqlSyntax.FUNCTION,
        found,
        SqlNameMatchers.withCaseSensitive(false));
    return found;
  }
}

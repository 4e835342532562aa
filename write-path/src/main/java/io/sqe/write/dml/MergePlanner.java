package io.sqe.write.dml;

import static io.sqe.write.dml.SqlPositions.error;

import com.google.common.base.Suppliers;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.exec.RowStream;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.plan.QueryShape;
import io.sqe.engine.sql.ddl.SqlMergeClause;
import io.sqe.engine.sql.ddl.SqlMergeClause.Action;
import io.sqe.engine.sql.ddl.SqlMergeClause.Match;
import io.sqe.engine.sql.ddl.SqlMergeStatement;
import io.sqe.write.dml.DeleteUpdatePlanner.Assignments;
import io.sqe.write.dml.DeleteUpdatePlanner.TargetRef;
import io.sqe.write.dml.RowLevelCommand.Plan;
import io.sqe.write.dml.RowLevelCommand.RowHandler;
import io.sqe.write.dml.TableNames.TableRef;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.JoinConditionType;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlShuttle;
import org.apache.calcite.util.Litmus;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * The query of a MERGE: the target (as a write target) joined with the source on the ON condition
 * (inner, left, right or full, as the WHEN clauses need), one row per pair or unmatched row, with
 * the index of the first clause whose match kind and condition apply to it and that clause's new
 * values, computed only for it.
 *
 * <pre>
 * SELECT t.$file, t.$pos, t.$pos IS NOT NULL AND s.$row IS NOT NULL AS matched,
 *        CASE WHEN &lt;clause 0 applies&gt; THEN 0 WHEN ... ELSE -1 END AS clause,
 *        CASE WHEN clause = 0 THEN CAST(value AS column type) END, ...
 * FROM target t FULL JOIN (SELECT s.*, TRUE AS $row FROM source s) s ON condition
 * WHERE clause &gt;= 0 OR matched
 * </pre>
 *
 * Matched pairs without a clause are kept for the cardinality check: a target row matched by two
 * source rows fails the statement (as the SQL standard requires), even where no clause applies to
 * the pair. There is no check when the statement has no MATCHED clause (it never changes a matched
 * row) or when its only MATCHED clause is an unconditional DELETE, which means the same whatever
 * the source row. NULL keys never match, as in any join.
 */
final class MergePlanner {
  private static final SqlParserPos ZERO = SqlParserPos.ZERO;
  private static final String SOURCE_ROW = "$sqe_source_row";
  private static final String SOURCE_ALIAS = "$source";

  private MergePlanner() {}

  static RowLevelCommand prepare(CommandContext context, SqlMergeStatement merge) {
    TableRef target = TableNames.existing(context, merge.target());
    return RowLevelCommand.prepare(context, RowLevelCommand.Kind.MERGE, target, new RowLevelCommand.Planner() {
      @Override
      public Plan plan(CommandContext ctx, IcebergTable table) {
        return MergePlanner.plan(ctx, merge, target, table, null);
      }

      @Override
      public Plan planForExecution(CommandContext ctx, IcebergTable table, List<Object> parameters) {
        TargetRef ref = new TargetRef(merge.target(), merge.alias(), table);
        if (!parameters.isEmpty() || SourceKeyRange.keys(merge, ref, sourceAlias(merge.source())).isEmpty()) {
          // dbt's delete+insert: a MERGE whose clauses for unmatched target rows all need a row of
          // the source (EXISTS over it) changes nothing when the source is known empty.
          if (parameters.isEmpty() && onlyActsWithSourceRows(merge)) {
            Optional<String> empty = SourceKeyRange.knownEmpty(ctx, merge, table);
            if (empty.isPresent()) {
              return noSourceRows(target, empty.get());
            }
          }
          return MergePlanner.plan(ctx, merge, target, table, null);
        }
        SourceKeyRange.Range range = SourceKeyRange.of(ctx, merge, target, table);
        if (range.sourceRows() == 0) {
          // Without a NOT MATCHED BY SOURCE clause (keys() has none) an empty source changes no
          // row: the statement needs neither its own plan nor a scan of the target. This is an
          // incremental model's run with nothing new (its source reads newer rows than the target's).
          return noSourceRows(target, range.emptyBecause());
        }
        return MergePlanner.plan(ctx, merge, target, table, range.condition());
      }
    });
  }

  /** The MERGE changes nothing: its source has no row ({@code because}, when known from bounds). */
  private static RowLevelCommand.NoChange noSourceRows(TableRef target, String because) {
    return new RowLevelCommand.NoChange("no_source_rows", "the MERGE's source has no rows"
        + (because == null ? "" : " (" + because + ")") + ", so " + target.displayName() + " stays as it is");
  }

  /**
   * Whether every WHEN NOT MATCHED BY SOURCE clause has a condition with a conjunct {@code EXISTS
   * (SELECT ... FROM <the MERGE's source> ...)}: then, with no source row, no clause acts (the
   * others need a source row by their kind).
   */
  private static boolean onlyActsWithSourceRows(SqlMergeStatement merge) {
    SqlNode source = merge.source().getKind() == SqlKind.AS ? ((SqlCall) merge.source()).operand(0) : merge.source();
    for (SqlMergeClause clause : merge.clauses()) {
      if (clause.match() != Match.NOT_MATCHED_BY_SOURCE) {
        continue;
      }
      boolean needsSource = SourceKeyRange.conjuncts(clause.condition()).stream().anyMatch(conjunct -> {
        if (conjunct.getKind() != SqlKind.EXISTS || !(((SqlCall) conjunct).operand(0) instanceof SqlSelect select)) {
          return false;
        }
        SqlNode from = select.getFrom();
        SqlNode read = from != null && from.getKind() == SqlKind.AS ? ((SqlCall) from).operand(0) : from;
        return read != null && read.equalsDeep(source, Litmus.IGNORE);
      });
      if (!needsSource) {
        return false;
      }
    }
    return true;
  }

  /** What each clause does, with where its values are in a query row. */
  private record Clause(Action action, int offset, Assignments.Bound values, Object[] defaults) {}

  /**
   * Plans the statement's query; {@code keyRange}, when given, is a condition on target columns
   * alone that every target row a source row can match satisfies, added to the ON condition so
   * that the target scan prunes the files outside the source's key range.
   */
  private static Plan plan(CommandContext context, SqlMergeStatement merge, TableRef target, IcebergTable table, SqlNode keyRange) {
    Schema schema = table.schema();
    String name = target.displayName();
    TargetRef ref = new TargetRef(merge.target(), merge.alias(), table);
    List<SqlMergeClause> clauses = merge.clauses();
    String sourceAlias = sourceAlias(merge.source());
    SqlNode sourceRow = SqlTrees.identifier(sourceAlias, SOURCE_ROW);

    List<SqlNode> select = new ArrayList<>(ref.rowColumns());
    select.add(matched(ref, sourceAlias));
    select.add(clauseIndex(clauses, ref, sourceAlias));
    WritableColumns writable = WritableColumns.of(context, target, table.table());
    List<Assignments> assignments = new ArrayList<>();
    List<Object[]> defaults = new ArrayList<>();
    for (int i = 0; i < clauses.size(); i++) {
      SqlMergeClause clause = clauses.get(i);
      int index = i;
      Assignments values = null;
      Object[] omitted = null;
      switch (clause.action()) {
        case UPDATE:
          values = Assignments.of(writable, schema, clause.columns(), clause.values(), ref.qualifier(), name);
          break;
        case INSERT: {
          SqlNodeList columns = insertColumns(writable, schema, clause, name);
          values = Assignments.of(writable, schema, columns, inScope(clause.values(), schema, sourceAlias), null, name);
          omitted = omittedDefaults(writable, schema, columns, clause, name);
          break;
        }
        case DELETE:
          break;
      }
      assignments.add(values);
      defaults.add(omitted);
      if (values != null) {
        select.addAll(values.guardedExpressions(
            () -> SqlTrees.equal(clauseIndex(clauses, ref, sourceAlias), SqlTrees.integer(index))));
      }
    }
    boolean checkCardinality = checksCardinality(clauses);
    SqlNode acts = SqlTrees.greaterThanOrEqual(clauseIndex(clauses, ref, sourceAlias), SqlTrees.integer(0));
    SqlNode where = checkCardinality ? SqlTrees.or(acts, matched(ref, sourceAlias)) : acts;
    SqlNode query = SqlTrees.select(select, join(merge, ref, sourceAlias, clauses, keyRange), where);
    // Without parameters (whose numbering the range query could not keep) and when unmatched target
    // rows need no clause, each execution narrows the target scan to the source's key range, and so
    // plans the statement again: the prepared statement is then only validated (its errors and
    // parameter types), and planned in full only if EXPLAIN asks for its plan. An incremental model's
    // MERGE that finds no new source row then never plans the statement at all.
    // So does one whose source may be known empty at execution when its clauses all need source rows.
    boolean mayRefine = keyRange == null && (!SourceKeyRange.keys(merge, ref, sourceAlias).isEmpty()
        || EmptySource.mayApply(merge.source()) && onlyActsWithSourceRows(merge));
    String text = query.toString();
    QueryShape shape = null;
    if (mayRefine) {
      // A copy: validation rewrites the tree it validates, and the full plan may follow.
      shape = context.queries().describe(context.session(), SqlTrees.copy(query), text, List.of(table));
    }
    boolean refines = shape != null && shape.parameterTypes().isEmpty();
    Supplier<PlannedQuery> full;
    if (refines) {
      full = Suppliers.memoize(() -> context.queries().plan(context.session(), query, text, List.of(table)));
    } else {
      PlannedQuery planned = context.queries().plan(context.session(), query, text, List.of(table));
      shape = new QueryShape(planned.resultType(), planned.parameterTypes(), planned.reads());
      full = () -> planned;
    }
    List<RelDataType> parameterTypes = shape.parameterTypes();

    List<RelDataTypeField> fields = shape.resultType().getFieldList();
    List<Clause> bound = new ArrayList<>();
    int offset = 4;
    for (int i = 0; i < clauses.size(); i++) {
      Assignments values = assignments.get(i);
      if (values == null) {
        bound.add(new Clause(clauses.get(i).action(), offset, null, null));
        continue;
      }
      int count = values.expressionCount();
      bound.add(new Clause(clauses.get(i).action(), offset, values.bind(fields.subList(offset, offset + count)), defaults.get(i)));
      offset += count;
    }
    return new Plan() {
      @Override
      public PlannedQuery query() {
        return full.get();
      }

      @Override
      public List<RelDataType> parameterTypes() {
        return parameterTypes;
      }

      @Override
      public boolean refinesAtExecution() {
        return refines;
      }

      @Override
      public RowHandler handler() {
        return new MergeRows(schema, bound, checkCardinality, name);
      }
    };
  }

  /** Applies the clause each row selected, and fails on a target row matched twice. */
  private static final class MergeRows implements RowHandler {
    private final Schema schema;
    private final List<Clause> clauses;
    private final boolean checkCardinality;
    private final String table;
    private final Map<String, BitSet> matched = new HashMap<>();

    MergeRows(Schema schema, List<Clause> clauses, boolean checkCardinality, String table) {
      this.schema = schema;
      this.clauses = clauses;
      this.checkCardinality = checkCardinality;
      this.table = table;
    }

    @Override
    public void accept(Object[] row, RowChanges changes, java.util.function.Consumer<Record> inserts) {
      String file = (String) row[0];
      long position = row[1] == null ? -1 : ((Number) row[1]).longValue();
      if (checkCardinality && Boolean.TRUE.equals(row[2])) {
        BitSet rows = matched.computeIfAbsent(file, f -> new BitSet());
        int at = Math.toIntExact(position);
        if (rows.get(at)) {
          throw new SqeException(
              ErrorCode.INVALID_ARGUMENT,
              "MERGE into " + table + " matched one target row with more than one source row, so nothing was"
                  + " written; each target row may match at most one source row");
        }
        rows.set(at);
      }
      int index = ((Number) row[3]).intValue();
      if (index < 0) {
        return;
      }
      Clause clause = clauses.get(index);
      switch (clause.action()) {
        case DELETE -> changes.delete(file, position);
        case UPDATE -> changes.update(file, position, clause.values().update(row, clause.offset()));
        case INSERT -> {
          Record record = GenericRecord.create(schema);
          for (int i = 0; i < clause.defaults().length; i++) {
            if (clause.defaults()[i] != null) {
              record.set(i, clause.defaults()[i]);
            }
          }
          RowChanges.Update values = clause.values().update(row, clause.offset());
          for (int i = 0; i < values.columns().length; i++) {
            record.set(values.columns()[i], values.values()[i]);
          }
          inserts.accept(record);
        }
      }
    }
  }

  /** Whether a target row matched by more than one source row fails the statement. */
  private static boolean checksCardinality(List<SqlMergeClause> clauses) {
    List<SqlMergeClause> matched = clauses.stream().filter(c -> c.match() == Match.MATCHED).toList();
    boolean onlyUnconditionalDelete =
        matched.size() == 1 && matched.get(0).action() == Action.DELETE && matched.get(0).condition() == null;
    return !matched.isEmpty() && !onlyUnconditionalDelete;
  }

  /** The INSERT clause's column list, or every column of the table the user sees when it has none. */
  private static SqlNodeList insertColumns(WritableColumns writable, Schema schema, SqlMergeClause clause, String table) {
    if (!clause.columns().isEmpty()) {
      return clause.columns();
    }
    List<Types.NestedField> implicit = writable.implicit(schema, clause);
    if (clause.values().size() != implicit.size()) {
      throw error(
          ErrorCode.INVALID_ARGUMENT,
          "INSERT without a column list gives all " + implicit.size() + " columns of " + table + ", not "
              + clause.values().size(),
          clause.values());
    }
    List<SqlNode> columns = new ArrayList<>();
    for (Types.NestedField column : implicit) {
      columns.add(new SqlIdentifier(column.name(), ZERO));
    }
    return new SqlNodeList(columns, ZERO);
  }

  /** The values of the columns an INSERT clause leaves out, by position in the schema. */
  private static Object[] omittedDefaults(
      WritableColumns writable, Schema schema, SqlNodeList columns, SqlMergeClause clause, String table) {
    List<Types.NestedField> given = new ArrayList<>();
    for (SqlNode column : columns) {
      given.add(TargetColumns.find(schema, (SqlIdentifier) column, null, table));
    }
    Object[] defaults = new Object[schema.columns().size()];
    for (int i = 0; i < defaults.length; i++) {
      Types.NestedField column = schema.columns().get(i);
      if (!given.contains(column)) {
        defaults[i] = writable.defaultValue(column, "MERGE", clause);
      }
    }
    return defaults;
  }

  /** Whether a row pairs a target row with a source row. */
  private static SqlNode matched(TargetRef ref, String sourceAlias) {
    return SqlTrees.and(
        SqlTrees.isNotNull(ref.positionColumn()), SqlTrees.isNotNull(SqlTrees.identifier(sourceAlias, SOURCE_ROW)));
  }

  /** The index of the first clause that applies to a row, or -1; a fresh tree on every call. */
  private static SqlNode clauseIndex(List<SqlMergeClause> clauses, TargetRef ref, String sourceAlias) {
    List<SqlNode> whens = new ArrayList<>();
    List<SqlNode> thens = new ArrayList<>();
    for (int i = 0; i < clauses.size(); i++) {
      SqlMergeClause clause = clauses.get(i);
      SqlNode applies = switch (clause.match()) {
        case MATCHED -> matched(ref, sourceAlias);
        case NOT_MATCHED -> SqlTrees.isNull(ref.positionColumn());
        case NOT_MATCHED_BY_SOURCE -> SqlTrees.isNull(SqlTrees.identifier(sourceAlias, SOURCE_ROW));
      };
      SqlNode condition = switch (clause.match()) {
        case MATCHED -> SqlTrees.copy(clause.condition());
        case NOT_MATCHED -> inScope(clause.condition(), ref.schema(), sourceAlias);
        case NOT_MATCHED_BY_SOURCE -> inScope(clause.condition(), ref.schema(), ref.qualifier());
      };
      whens.add(SqlTrees.and(applies, condition));
      thens.add(SqlTrees.integer(i));
    }
    return SqlTrees.caseWhen(whens, thens, SqlLiteral.createExactNumeric("-1", ZERO));
  }

  /**
   * A clause's expression with the bare names of target columns qualified by the one side in the
   * clause's scope: the source in WHEN NOT MATCHED (there is no target row), the target in WHEN NOT
   * MATCHED BY SOURCE (there is no source row), as the SQL standard scopes them. Without this, a
   * column both sides have would be ambiguous in the join the statement is planned as. Subqueries
   * keep their own scope.
   */
  private static <T extends SqlNode> T inScope(T expression, Schema target, String qualifier) {
    if (expression == null) {
      return null;
    }
    @SuppressWarnings("unchecked")
    T qualified = (T) SqlTrees.copy(expression).accept(new SqlShuttle() {
      @Override
      public SqlNode visit(SqlIdentifier identifier) {
        if (identifier.isSimple() && target.caseInsensitiveFindField(identifier.getSimple()) != null) {
          return new SqlIdentifier(List.of(qualifier, identifier.getSimple()), identifier.getParserPosition());
        }
        return identifier;
      }

      @Override
      public SqlNode visit(SqlCall call) {
        return call instanceof SqlSelect || call.getKind() == SqlKind.UNION || call.getKind() == SqlKind.EXCEPT
                || call.getKind() == SqlKind.INTERSECT || call.getKind() == SqlKind.WITH
            ? call
            : super.visit(call);
      }
    });
    return qualified;
  }

  /** How the ON condition and the clauses refer to the source. */
  private static String sourceAlias(SqlNode source) {
    if (source.getKind() == SqlKind.AS) {
      return ((SqlIdentifier) ((SqlCall) source).operand(1)).getSimple();
    }
    if (source instanceof SqlIdentifier) {
      List<String> names = ((SqlIdentifier) source).names;
      return names.get(names.size() - 1);
    }
    return SOURCE_ALIAS;
  }

  /** target JOIN (SELECT s.*, TRUE AS $row FROM source s) s ON condition, as outer as the clauses need. */
  private static SqlNode join(
      SqlMergeStatement merge, TargetRef ref, String sourceAlias, List<SqlMergeClause> clauses, SqlNode keyRange) {
    SqlNode source = SqlTrees.copy(merge.source());
    if (source.getKind() != SqlKind.AS) {
      source = SqlTrees.as(source, sourceAlias);
    }
    List<SqlNode> columns = new ArrayList<>();
    columns.add(SqlTrees.star(sourceAlias));
    columns.add(SqlTrees.as(SqlTrees.trueLiteral(), SOURCE_ROW));
    SqlNode marked = SqlTrees.as(SqlTrees.select(columns, source, null), sourceAlias);
    boolean inserts = clauses.stream().anyMatch(c -> c.match() == Match.NOT_MATCHED);
    boolean bySource = clauses.stream().anyMatch(c -> c.match() == Match.NOT_MATCHED_BY_SOURCE);
    JoinType type = inserts && bySource ? JoinType.FULL : inserts ? JoinType.RIGHT : bySource ? JoinType.LEFT : JoinType.INNER;
    return new SqlJoin(
        merge.getParserPosition(),
        ref.from(),
        SqlLiteral.createBoolean(false, ZERO),
        type.symbol(ZERO),
        marked,
        JoinConditionType.ON.symbol(ZERO),
        keyRange == null ? SqlTrees.copy(merge.condition()) : SqlTrees.and(SqlTrees.copy(merge.condition()), keyRange));
  }

  /**
   * A dynamic filter for the target scan: for each conjunct {@code target.k = source.c} of the ON
   * condition with an integer target column k, the source's smallest and largest c, read by a query
   * of the source at execution, bound k. As k must equal some source row's c to match, the range
   * changes no match; it only lets the scan skip the data files (and row groups) outside it. It is
   * used only without WHEN NOT MATCHED BY SOURCE clauses, which act on unmatched target rows.
   */
  static final class SourceKeyRange {
    private SourceKeyRange() {}

    /** A target column equated to a source column in the ON condition. */
    record Key(SqlIdentifier target, SqlIdentifier source) {}

    static List<Key> keys(SqlMergeStatement merge, TargetRef ref, String sourceAlias) {
      List<Key> keys = new ArrayList<>();
      if (merge.clauses().stream().anyMatch(c -> c.match() == Match.NOT_MATCHED_BY_SOURCE)) {
        return keys;
      }
      for (SqlNode conjunct : conjuncts(merge.condition())) {
        if (conjunct.getKind() != SqlKind.EQUALS) {
          continue;
        }
        SqlNode left = ((SqlCall) conjunct).operand(0);
        SqlNode right = ((SqlCall) conjunct).operand(1);
        Key key = key(left, right, ref, sourceAlias);
        if (key == null) {
          key = key(right, left, ref, sourceAlias);
        }
        if (key != null) {
          keys.add(key);
        }
      }
      return keys;
    }

    private static Key key(SqlNode target, SqlNode source, TargetRef ref, String sourceAlias) {
      if (!(target instanceof SqlIdentifier t) || !(source instanceof SqlIdentifier s) || t.names.size() != 2 || s.names.size() != 2) {
        return null;
      }
      if (!t.names.get(0).equalsIgnoreCase(ref.qualifier()) || !s.names.get(0).equalsIgnoreCase(sourceAlias)
          || ref.qualifier().equalsIgnoreCase(sourceAlias)) {
        return null;
      }
      Types.NestedField column = ref.schema().caseInsensitiveFindField(t.names.get(1));
      if (column == null || ref.schema().columns().stream().noneMatch(c -> c.fieldId() == column.fieldId())) {
        return null;
      }
      boolean integral = column.type() instanceof Types.IntegerType || column.type() instanceof Types.LongType;
      return integral ? new Key(t, s) : null;
    }

    static List<SqlNode> conjuncts(SqlNode condition) {
      List<SqlNode> result = new ArrayList<>();
      if (condition != null && condition.getKind() == SqlKind.AND) {
        for (SqlNode operand : ((SqlCall) condition).getOperandList()) {
          result.addAll(conjuncts(operand));
        }
      } else if (condition != null) {
        result.add(condition);
      }
      return result;
    }

    /**
     * What one query of the source tells: how many rows it has, and a condition on the target's
     * keys (null when the scan cannot be narrowed).
     */
    record Range(long sourceRows, SqlNode condition, String emptyBecause) {
      Range(long sourceRows, SqlNode condition) {
        this(sourceRows, condition, null);
      }
    }

    /**
     * The source's row count and {@code t.k >= min AND t.k <= max} for each key, from one query of
     * the source; the condition is FALSE when the source has no non-NULL key (then no target row can
     * match), null when a bound is not a whole number (a source column of another type), in which
     * case the scan is not narrowed.
     */
    static Range of(CommandContext context, SqlMergeStatement merge, TableRef target, IcebergTable table) {
      Optional<String> empty = knownEmpty(context, merge, table);
      if (empty.isPresent()) {
        return new Range(0, null, empty.get());
      }
      TargetRef ref = new TargetRef(merge.target(), merge.alias(), table);
      String sourceAlias = sourceAlias(merge.source());
      List<Key> keys = keys(merge, ref, sourceAlias);
      List<SqlNode> bounds = new ArrayList<>();
      for (Key key : keys) {
        bounds.add(call(SqlStdOperatorTable.MIN, SqlTrees.copy(key.source())));
        bounds.add(call(SqlStdOperatorTable.MAX, SqlTrees.copy(key.source())));
      }
      bounds.add(SqlStdOperatorTable.COUNT.createCall(ZERO, SqlIdentifier.star(ZERO)));
      SqlNode source = SqlTrees.copy(merge.source());
      if (source.getKind() != SqlKind.AS) {
        source = SqlTrees.as(source, sourceAlias);
      }
      SqlNode query = SqlTrees.select(bounds, source, null);
      // The source may read the target: as of the statement's snapshot, through a write target of
      // its own so that the statement's conflict detection filter stays the statement's.
      IcebergTable snapshot = IcebergTable.forRowLevelWrite(table.catalog(), table.id(), table.table());
      PlannedQuery planned = context.queries().plan(context.session(), query, query.toString(), List.of(snapshot));
      Object[] row;
      try (RowStream rows = context.queries().rows(context.session(), planned, List.of(), context.queryId())) {
        if (!rows.next()) {
          return new Range(-1, null);
        }
        row = rows.current().clone();
      }
      long sourceRows = ((Number) row[2 * keys.size()]).longValue();
      List<SqlNode> conditions = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        Object min = row[2 * i];
        Object max = row[2 * i + 1];
        if (min == null || max == null) {
          return new Range(sourceRows, SqlLiteral.createBoolean(false, ZERO));
        }
        Long low = wholeNumber(min);
        Long high = wholeNumber(max);
        if (low == null || high == null) {
          continue;
        }
        SqlIdentifier column = SqlTrees.copy(key(keys.get(i)));
        conditions.add(SqlTrees.greaterThanOrEqual(column, SqlLiteral.createExactNumeric(Long.toString(low), ZERO)));
        conditions.add(call(SqlStdOperatorTable.LESS_THAN_OR_EQUAL, SqlTrees.copy(key(keys.get(i))),
            SqlLiteral.createExactNumeric(Long.toString(high), ZERO)));
      }
      return new Range(sourceRows, conditions.isEmpty() ? null : SqlTrees.and(conditions.toArray(SqlNode[]::new)));
    }

    /**
     * Why the MERGE's source has no row, known from the data files' bounds ({@link EmptySource}), or
     * empty: an incremental model's source with nothing new. The source reads the target as of the
     * statement's snapshot, as its key query would.
     */
    static Optional<String> knownEmpty(CommandContext context, SqlMergeStatement merge, IcebergTable table) {
      if (!EmptySource.mayApply(merge.source())) {
        return Optional.empty();
      }
      SqlNode source = SqlTrees.copy(merge.source());
      if (source.getKind() != SqlKind.AS) {
        source = SqlTrees.as(source, sourceAlias(merge.source()));
      }
      SqlNode rows = SqlTrees.select(List.of(SqlIdentifier.star(ZERO)), source, null);
      IcebergTable snapshot = IcebergTable.forRowLevelWrite(table.catalog(), table.id(), table.table());
      return EmptySource.why(context.queries().logicalPlan(context.session(), rows, rows.toString(), List.of(snapshot)));
    }

    private static SqlIdentifier key(Key key) {
      return key.target();
    }

    private static SqlNode call(org.apache.calcite.sql.SqlOperator operator, SqlNode... operands) {
      return operator.createCall(ZERO, operands);
    }

    /** A whole number as a long, or null (a fraction, or a type other than a number). */
    private static Long wholeNumber(Object value) {
      if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
        return ((Number) value).longValue();
      }
      if (value instanceof java.math.BigDecimal d) {
        try {
          return d.longValueExact();
        } catch (ArithmeticException e) {
          return null;
        }
      }
      return null;
    }
  }
}

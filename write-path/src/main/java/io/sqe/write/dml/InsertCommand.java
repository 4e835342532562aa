package io.sqe.write.dml;

import static io.sqe.write.dml.SqlPositions.error;
import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.exec.RowStream;
import io.sqe.engine.offload.Placement;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.plan.QueryShape;
import io.sqe.write.dml.TableNames.TableRef;
import io.sqe.write.files.BatchFileWriter;
import io.sqe.write.files.DataFileWriter;
import io.sqe.write.reuse.Lineage;
import io.sqe.write.reuse.MaterializationReuse;
import io.sqe.write.txn.TableWrite;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * {@code INSERT INTO t [(columns)] VALUES ... | query}: the rows, converted to the columns' types
 * as SQL assignment converts, become new data files committed as one append. Columns left out get
 * their default (NULL unless the column has a write default).
 */
final class InsertCommand implements PreparedCommand {
  private final TableRef target;
  private final SqlInsert statement;
  private final Plan prepared;

  private InsertCommand(TableRef target, SqlInsert statement, Plan prepared) {
    this.target = requireNonNull(target, "target is null");
    this.statement = requireNonNull(statement, "statement is null");
    this.prepared = requireNonNull(prepared, "prepared is null");
  }

  static InsertCommand prepare(CommandContext context, SqlInsert insert) {
    if (!(insert.getTargetTable() instanceof SqlIdentifier)) {
      throw error(ErrorCode.NOT_SUPPORTED, "INSERT writes to a table named plainly", insert.getTargetTable());
    }
    TableRef target = TableNames.existing(context, (SqlIdentifier) insert.getTargetTable());
    Table table = TableWrite.current(context.session(), target.catalog(), target.id(), target::loadFresh);
    return new InsertCommand(target, insert, plan(context, target, table, insert));
  }

  @Override
  public boolean runsInTransaction() {
    return true;
  }

  @Override
  public List<RelDataType> parameterTypes() {
    return prepared.parameterTypes;
  }

  @Override
  public CommandResult execute(CommandContext context, List<Object> parameters) {
    TableWrite write = TableWrite.existing(context.session(), target.catalog(), target.id(), target::loadFresh, context.queryId());
    Table table = write.table();
    Plan plan = table.schema().schemaId() == prepared.schema.schemaId()
        ? prepared
        : plan(context, target, table, statement);
    if (parameters.isEmpty() && plan.source.deferred()) {
      // An incremental model's append with nothing new: its query is known empty from the files' bounds.
      SqlNode source = SqlTrees.copy(statement.getSource());
      Optional<String> empty = EmptySource.why(context.queries().logicalPlan(context.session(), source, source.toString(), List.of()));
      if (empty.isPresent()) {
        return CommandResult.materialized(0, new CommandResult.Reuse(true, "no_source_rows",
            "the INSERT's query has no rows (" + empty.get() + "), so " + target.displayName() + " stays as it is"));
      }
    }
    // Columns left out with a default of their own keep the write here: Trino would write NULL.
    if (statement.getSource().getKind() != SqlKind.VALUES && Arrays.stream(plan.defaults).allMatch(Objects::isNull)) {
      Optional<CommandResult> offloaded =
          TrinoWrites.insert(context, target, table, plan.columns(), statement.getSource(), plan.query(context));
      if (offloaded.isPresent()) {
        return offloaded.get();
      }
    }
    String what = "INSERT into " + target.displayName();
    PlannedQuery query = plan.query(context);
    Optional<Lineage> lineage = MaterializationReuse.recordable(
        context, query, parameters, "insert " + target.displayName() + " " + Arrays.toString(plan.targets));
    DataFileWriter.Builder files = DataFileWriter.builder(table).operationId(context.queryId()).partitionId(context.attempt());
    // Columns with a default other than NULL take it from the row writer.
    Optional<BatchFileWriter.Layout> layout = Arrays.stream(plan.defaults).allMatch(Objects::isNull)
        ? BatchWrites.layout(query, table, plan.targets)
        : Optional.empty();
    BatchWrites.Written written = layout.isPresent()
        ? BatchWrites.write(context, query, parameters, files, layout.get())
        : writeRows(context, parameters, plan, files);
    if (written.files().isEmpty()) {
      return CommandResult.rows(0);
    }
    lineage.ifPresent(l -> write.summarize(l.summary(written.rowCount(), MaterializationReuse.targetShape(table))));
    write.commitAppend(written.files(), written.paths(), what);
    return CommandResult.rows(written.rowCount());
  }

  /**
   * What it writes, then as EXPLAIN shows a query: where it runs (with a Trino cluster), the
   * statement Trino would run, and the local plan of its query (the fallback's, when offloaded).
   */
  @Override
  public Optional<List<String>> explain(CommandContext context) {
    Table table = TableWrite.current(context.session(), target.catalog(), target.id(), target::loadFresh);
    Plan plan = table.schema().schemaId() == prepared.schema.schemaId() ? prepared : plan(context, target, table, statement);
    List<String> lines = new ArrayList<>();
    lines.add("Insert into " + target.displayName()
        + plan.columns().stream().map(Types.NestedField::name).collect(Collectors.joining(", ", " (", ")")));
    Optional<Placement> placement = context.queries().placeWrite(context.session(), plan.query(context));
    // The placement decided once: execute() would send the same statement, under the same conditions.
    Optional<String> trino = placement.map(Placement::onTrino).orElse(false)
            && statement.getSource().getKind() != SqlKind.VALUES && Arrays.stream(plan.defaults).allMatch(Objects::isNull)
        ? TrinoWrites.insertStatement(context, target, plan.columns(), statement.getSource())
        : Optional.empty();
    if (trino.isPresent()) {
      lines.add(context.queries().offloadTarget().orElse("offloaded to trino"));
      lines.add(trino.get());
    }
    PlannedQuery query = plan.query(context);
    lines.addAll(List.of(query.explain().split("\n")));
    query.reads().notes().forEach(note -> lines.add("-- " + note));
    placement
        // Placed on Trino, but written here as execute() would: VALUES, defaults, or a query Trino cannot run.
        .map(p -> p.onTrino() && trino.isEmpty() ? Placement.local("VALUES, a column's default or a query Trino cannot run keep it here") : p)
        .ifPresent(p -> lines.add(p.explainLine()));
    return Optional.of(lines);
  }

  private static BatchWrites.Written writeRows(CommandContext context, List<Object> parameters, Plan plan, DataFileWriter.Builder files) {
    DataFileWriter writer = files.build();
    try (RowStream rows = context.queries().rows(context.session(), plan.query(context), parameters, context.queryId())) {
      while (rows.next()) {
        writer.write(plan.record(rows.current()));
      }
      return new BatchWrites.Written(writer.complete(), writer.paths(), writer.rowCount());
    } catch (RuntimeException | Error e) {
      writer.abort();
      throw e;
    }
  }

  /**
   * The source query: validated, with its columns and parameters, and planned in full now or, when
   * {@code deferred}, at the first execution that needs it. An incremental model's INSERT whose
   * query is known empty from the files' bounds then never plans it.
   */
  private static final class Source {
    private final SqlNode query;
    private final String sql;
    private final RelDataType resultType;
    private final List<RelDataType> parameterTypes;
    private final boolean deferred;
    private PlannedQuery planned;

    private Source(SqlNode query, String sql, RelDataType resultType, List<RelDataType> parameterTypes, PlannedQuery planned) {
      this.query = query;
      this.sql = sql;
      this.resultType = resultType;
      this.parameterTypes = parameterTypes;
      this.deferred = planned == null;
      this.planned = planned;
    }

    /** Whether the plan waits for an execution: the query may be known empty from the files' bounds. */
    boolean deferred() {
      return deferred;
    }

    static Source of(CommandContext context, SqlNode query, boolean deferred) {
      String sql = query.toString();
      if (deferred) {
        // A copy: validation rewrites the tree it validates, and the plan comes later.
        QueryShape shape = context.queries().describe(context.session(), SqlTrees.copy(query), sql);
        return new Source(query, sql, shape.resultType(), shape.parameterTypes(), null);
      }
      PlannedQuery planned = context.queries().plan(context.session(), query, sql);
      return new Source(query, sql, planned.resultType(), planned.parameterTypes(), planned);
    }

    synchronized PlannedQuery planned(CommandContext context) {
      if (planned == null) {
        // A copy again: a run whose planning fails leaves the statement's tree as it was.
        planned = context.queries().plan(context.session(), SqlTrees.copy(query), sql);
      }
      return planned;
    }
  }

  /** How the rows of the source become records of the table with a given schema. */
  private static final class Plan {
    private final Schema schema;
    private final Source source;
    private final List<RelDataType> parameterTypes;
    /** Position in the schema of each source column's target. */
    private final int[] targets;
    private final List<ValueConversion> conversions;
    /** Values of the columns the statement leaves out, by position in the schema; null for given ones. */
    private final Object[] defaults;

    /** A record with the defaults: copying it skips the look-up of the schema's field names that creating one does. */
    private final Record template;

    Plan(Schema schema, Source source, int[] targets, List<ValueConversion> conversions, Object[] defaults) {
      this.schema = schema;
      this.source = source;
      this.parameterTypes = source.parameterTypes;
      this.targets = targets;
      this.conversions = conversions;
      this.defaults = defaults;
      this.template = GenericRecord.create(schema);
      for (int i = 0; i < defaults.length; i++) {
        if (defaults[i] != null) {
          template.set(i, defaults[i]);
        }
      }
    }

    /** The source query planned in full, under {@code context} if this is the first to need it. */
    PlannedQuery query(CommandContext context) {
      return source.planned(context);
    }

    /** The columns the source's columns go to, in its order. */
    List<Types.NestedField> columns() {
      List<Types.NestedField> columns = new ArrayList<>();
      for (int target : targets) {
        columns.add(schema.columns().get(target));
      }
      return columns;
    }

    Record record(Object[] row) {
      Record record = template.copy();
      for (int i = 0; i < targets.length; i++) {
        record.set(targets[i], conversions.get(i).apply(row[i]));
      }
      return record;
    }
  }

  private static Plan plan(CommandContext context, TableRef target, Table icebergTable, SqlInsert insert) {
    Schema schema = icebergTable.schema();
    String table = target.displayName();
    WritableColumns writable = WritableColumns.of(context, target, icebergTable);
    List<Types.NestedField> columns = targetColumns(writable, schema, insert);
    List<Types.NestedField> all = schema.columns();
    Object[] defaults = new Object[all.size()];
    int[] targets = new int[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      targets[i] = all.indexOf(columns.get(i));
    }
    for (int i = 0; i < all.size(); i++) {
      if (!columns.contains(all.get(i))) {
        defaults[i] = writable.defaultValue(all.get(i), "INSERT", insert.getTargetTable());
      }
    }

    SqlNode source = insert.getSource();
    boolean values = source.getKind() == SqlKind.VALUES;
    SqlNode query = values ? assignedValues(source, columns, table) : SqlTrees.copy(source);
    // Known empty from the files' bounds at execution perhaps: then it need not be planned in full.
    boolean deferred = !values && EmptySource.mayApply(source);
    Source planned = Source.of(context, query, deferred);
    List<RelDataTypeField> fields = planned.resultType.getFieldList();
    if (fields.size() != columns.size()) {
      throw error(
          ErrorCode.INVALID_ARGUMENT,
          "INSERT into " + table + " has " + columns.size() + " target columns but its query returns " + fields.size(),
          source);
    }
    List<Optional<ValueConversion>> conversions = conversions(fields, columns);
    if (!values && conversions.stream().anyMatch(Optional::isEmpty)) {
      // Some columns need SQL's assignment casts; run the query through a SELECT that applies them.
      query = castQuery(source, fields, columns, conversions);
      planned = Source.of(context, query, deferred);
      conversions = conversions(planned.resultType.getFieldList(), columns);
    }
    List<ValueConversion> resolved = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField column = columns.get(i);
      RelDataType type = planned.resultType.getFieldList().get(i).getType();
      resolved.add(conversions.get(i).orElseThrow(() -> error(
          ErrorCode.INVALID_ARGUMENT,
          "Cannot assign a value of type " + type.getFullTypeString() + " to column " + column.name() + " of type " + column.type(),
          source)));
    }
    return new Plan(schema, planned, targets, resolved, defaults);
  }

  private static List<Optional<ValueConversion>> conversions(List<RelDataTypeField> fields, List<Types.NestedField> columns) {
    List<Optional<ValueConversion>> conversions = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      conversions.add(ValueConversion.of(fields.get(i).getType(), columns.get(i)));
    }
    return conversions;
  }

  /** The columns the statement lists, or, without a list, every column the user sees. */
  private static List<Types.NestedField> targetColumns(WritableColumns writable, Schema schema, SqlInsert insert) {
    if (insert.getTargetColumnList() == null || insert.getTargetColumnList().isEmpty()) {
      return writable.implicit(schema, insert.getTargetTable());
    }
    List<Types.NestedField> columns = new ArrayList<>();
    Set<Integer> seen = new HashSet<>();
    for (SqlNode node : insert.getTargetColumnList()) {
      Types.NestedField column = writable.find(schema, (SqlIdentifier) node, null);
      if (!seen.add(column.fieldId())) {
        throw error(ErrorCode.INVALID_ARGUMENT, "Column " + column.name() + " is listed twice", node);
      }
      columns.add(column);
    }
    return columns;
  }

  /** The VALUES with each value assigned to its column (a CAST to its type; DEFAULT resolved). */
  private static SqlNode assignedValues(SqlNode values, List<Types.NestedField> columns, String table) {
    List<List<SqlNode>> rows = SqlTrees.valuesRows(SqlTrees.copy(values));
    List<SqlNode> original = ((org.apache.calcite.sql.SqlCall) values).getOperandList();
    for (int r = 0; r < rows.size(); r++) {
      List<SqlNode> row = rows.get(r);
      if (row.size() != columns.size()) {
        throw error(
            ErrorCode.INVALID_ARGUMENT,
            "INSERT into " + table + " has " + columns.size() + " target columns but this row has " + row.size() + " values",
            original.get(r));
      }
      for (int i = 0; i < row.size(); i++) {
        SqlNode value = row.get(i);
        Types.NestedField column = columns.get(i);
        if (TargetColumns.isDefault(value)) {
          if (column.writeDefault() != null) {
            throw error(ErrorCode.NOT_SUPPORTED, "DEFAULT for a column with a default value is not supported yet", value);
          }
          TargetColumns.defaultValue(column, table, value);
          value = SqlTrees.nullLiteral();
        }
        row.set(i, TargetColumns.assigned(value, column));
      }
    }
    return SqlTrees.values(values, rows);
  }

  /** {@code SELECT CAST(c1 AS t1), ... FROM (source) AS s(c1, ...)} for the columns that need it. */
  private static SqlNode castQuery(
      SqlNode source, List<RelDataTypeField> fields, List<Types.NestedField> columns, List<Optional<ValueConversion>> conversions) {
    SqlParserPos pos = source.getParserPosition();
    List<SqlNode> operands = new ArrayList<>();
    operands.add(SqlTrees.copy(source));
    operands.add(SqlTrees.identifier("$source"));
    List<SqlNode> select = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      String name = "$c" + i;
      operands.add(SqlTrees.identifier(name));
      SqlIdentifier ref = new SqlIdentifier(List.of("$source", name), pos);
      select.add(conversions.get(i).isPresent() ? ref : TargetColumns.assigned(ref, columns.get(i)));
    }
    SqlNode from = SqlStdOperatorTable.AS.createCall(pos, operands);
    return SqlTrees.select(select, from, null);
  }
}

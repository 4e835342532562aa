package io.sqe.write.dml;

import static io.sqe.write.dml.SqlPositions.error;
import static java.util.Objects.requireNonNull;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.catalog.types.UnsupportedTypeException;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException.SqlPosition;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.command.WriteOptions;
import io.sqe.engine.exec.RowStream;
import io.sqe.engine.offload.Placement;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.sql.SqlDialect;
import io.sqe.engine.sql.ddl.SqlColumnDeclaration;
import io.sqe.engine.sql.ddl.SqlCreateTable;
import io.sqe.write.dml.TableNames.TableRef;
import io.sqe.write.files.BatchFileWriter;
import io.sqe.write.files.DataFileWriter;
import io.sqe.write.reuse.MaterializationReuse;
import io.sqe.write.storage.ChosenLocations;
import io.sqe.write.storage.LocationRules;
import io.sqe.write.storage.PathSafeNames;
import io.sqe.write.txn.TableWrite;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlNode;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * {@code CREATE [OR REPLACE] TABLE t [(name [NOT NULL] [COMMENT 'x'], ...)] [PARTITIONED BY ...]
 * [SORTED BY ...] [WITH (...)] AS query}: one Iceberg create (or create-or-replace) transaction that makes the table and appends
 * the query's rows. Nothing is visible before it commits; a failure leaves no table, or the
 * replaced table as it was. A replaced table keeps its history, so its older snapshots stay
 * readable.
 *
 * <p>The snapshot it commits records the statement's lineage; a CREATE OR REPLACE whose lineage
 * equals that of the table's current snapshot commits nothing and answers with that snapshot's
 * count ({@link MaterializationReuse}).
 *
 * <p>Columns are nullable unless the column list says NOT NULL, whatever the query's types say:
 * a table outlives the query that filled it.
 */
public final class CreateTableAsCommand implements PreparedCommand {
  private static final Pattern GENERATED_NAME = Pattern.compile("EXPR\\$\\d+");

  private final TableRef target;
  private final SqlCreateTable statement;
  private final PlannedQuery query;
  private final Schema schema;
  private final TableLayout layout;
  private final List<ValueConversion> conversions;
  private final ChosenLocations chosen;
  /** Whether materializations are reused unless the session says otherwise. */
  private final boolean reuse;

  private CreateTableAsCommand(
      TableRef target,
      SqlCreateTable statement,
      PlannedQuery query,
      Schema schema,
      TableLayout layout,
      List<ValueConversion> conversions,
      ChosenLocations chosen,
      boolean reuse) {
    this.target = requireNonNull(target, "target is null");
    this.statement = requireNonNull(statement, "statement is null");
    this.query = requireNonNull(query, "query is null");
    this.schema = requireNonNull(schema, "schema is null");
    this.layout = requireNonNull(layout, "layout is null");
    this.conversions = List.copyOf(conversions);
    this.chosen = requireNonNull(chosen, "chosen is null");
    this.reuse = reuse;
  }

  /**
   * @param reuse whether a CREATE OR REPLACE whose lineage is unchanged commits nothing, unless the
   *     session says otherwise
   */
  public static CreateTableAsCommand prepare(CommandContext context, SqlCreateTable create, LocationRules locations, boolean reuse) {
    TableRef target = TableNames.resolve(context, create.name());
    SqlPosition at = SqlPositions.position(create.name());
    PathSafeNames.check("schema", target.id().namespace().level(0), at);
    PathSafeNames.check("table", target.id().name(), at);
    ChosenLocations chosen = ChosenLocations.of(locations, context.session().principal(), target.catalog(), create.properties());
    if (target.catalog().views().map(v -> v.viewExists(target.id())).orElse(false)) {
      throw error(ErrorCode.ALREADY_EXISTS, "A view named " + target.displayName() + " exists", create.name());
    }
    if (!create.getReplace() && !create.ifNotExists && TableWrite.exists(context.session(), target.catalog(), target.id())) {
      throw error(ErrorCode.ALREADY_EXISTS, "Table " + target.displayName() + " already exists", create.name());
    }
    SqlNode source = SqlTrees.copy(create.query());
    PlannedQuery query = context.queries().plan(context.session(), source, source.toString());
    Schema schema = schema(create, query.resultType());
    TableLayout layout =
        TableLayout.of(schema, create.partitionBy(), create.sortedBy(), create.properties(), create.comment());
    List<ValueConversion> conversions = new ArrayList<>();
    List<RelDataTypeField> fields = query.resultType().getFieldList();
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField column = schema.columns().get(i);
      RelDataType type = fields.get(i).getType();
      conversions.add(ValueConversion.of(type, column).orElseThrow(() -> error(
          ErrorCode.NOT_SUPPORTED, "Cannot store values of type " + type.getFullTypeString() + " as " + column.type(), create.query())));
    }
    return new CreateTableAsCommand(target, create, query, schema, layout, conversions, chosen, reuse);
  }

  @Override
  public List<RelDataType> parameterTypes() {
    return query.parameterTypes();
  }

  @Override
  public boolean runsInTransaction() {
    return true;
  }

  @Override
  public CommandResult execute(CommandContext context, List<Object> parameters) {
    if (!statement.getReplace() && TableWrite.exists(context.session(), target.catalog(), target.id())) {
      if (statement.ifNotExists) {
        return CommandResult.rows(0);
      }
      throw error(ErrorCode.ALREADY_EXISTS, "Table " + target.displayName() + " already exists", statement.name());
    }
    if (statement.getReplace() && parameters.isEmpty()) {
      return IncrementalRefresh.replace(context, this, SqlDialect.toSql(statement.query()));
    }
    return run(context, parameters, decide(context, parameters));
  }

  /**
   * The table it makes (its columns, partitioning and sort order), the statement Trino would run
   * when the write is placed there, the plan of its query, whether a CREATE OR REPLACE would reuse
   * the table's rows now, and where it runs; it commits nothing.
   */
  @Override
  public Optional<List<String>> explain(CommandContext context) {
    List<String> lines = new ArrayList<>();
    lines.add((statement.getReplace() ? "Create or replace table " : "Create table ") + target.displayName()
        + schema.columns().stream().map(column -> column.name() + " " + column.type()).collect(Collectors.joining(", ", " (", ")")));
    if (!layout.spec().isUnpartitioned()) {
      lines.add("  partitioned by " + layout.spec().fields().stream()
          .map(field -> field.transform().isIdentity()
              ? schema.findColumnName(field.sourceId())
              : field.transform() + "(" + schema.findColumnName(field.sourceId()) + ")")
          .collect(Collectors.joining(", ")));
    }
    if (!layout.sortOrder().isUnsorted()) {
      lines.add("  sorted by " + layout.sortOrder().fields().stream()
          .map(field -> schema.findColumnName(field.sourceId()) + " " + field.direction() + " " + field.nullOrder())
          .collect(Collectors.joining(", ")));
    }
    Optional<Placement> placement = context.queries().placeWrite(context.session(), query);
    IncrementalRefresh.ReplaceExplained replace = statement.getReplace() && query.parameterTypes().isEmpty()
        ? IncrementalRefresh.explainReplace(context, this, SqlDialect.toSql(statement.query()))
        : null;
    if (replace != null && replace.incremental() != null) {
      lines.addAll(replace.incremental());
      placement.ifPresent(p -> lines.add(Placement.local("only the rows its sources appended are read, here").explainLine()));
      return Optional.of(lines);
    }
    // The placement decided once: execute() would send the same statement, under the same conditions.
    Optional<String> trino = placement.map(Placement::onTrino).orElse(false)
        ? TrinoWrites.createTableAsStatement(context, target, statement.getReplace(), statement.query(), schema, layout)
        : Optional.empty();
    if (trino.isPresent()) {
      lines.add(context.queries().offloadTarget().orElse("offloaded to trino"));
      lines.add(trino.get());
    }
    lines.addAll(List.of(query.explain().split("\n")));
    query.reads().notes().forEach(note -> lines.add("-- " + note));
    if (replace != null) {
      CommandResult.Reuse reuse = replace.reuse();
      lines.add(reuse.reused()
          ? "-- materialization reuse: the table's rows would be kept (" + reuse.detail() + ")"
          : "-- materialization reuse: the query would run (" + reuse.reason() + ": " + reuse.detail() + ")");
    }
    placement
        .map(p -> p.onTrino() && trino.isEmpty() ? Placement.local("a table layout or a query Trino cannot make keeps it here") : p)
        .ifPresent(p -> lines.add(p.explainLine()));
    return Optional.of(lines);
  }

  /** Whether the statement would reuse the table's rows now, and else the lineage its run records. */
  public MaterializationReuse.Decision decide(CommandContext context, List<Object> parameters) {
    return MaterializationReuse.decide(
        context,
        query,
        parameters,
        shape(),
        target.catalog(),
        target.id(),
        WriteOptions.materializationReuse(context.session(), reuse),
        statement.getReplace());
  }

  /** Runs the statement as {@code decision} (from {@link #decide}) says: reusing, or writing the query's rows. */
  public CommandResult run(CommandContext context, List<Object> parameters, MaterializationReuse.Decision decision) {
    return run(context, parameters, decision, table -> Map.of());
  }

  /**
   * As {@link #run(CommandContext, List, MaterializationReuse.Decision)}, and before the commit
   * {@code beside} writes what else the table keeps (into the table given, as created) and returns
   * the summary properties of the snapshot committed that name it.
   */
  public CommandResult run(
      CommandContext context, List<Object> parameters, MaterializationReuse.Decision decision, Function<Table, Map<String, String>> beside) {
    Catalog catalog = target.catalog().iceberg();
    boolean replace = statement.getReplace();
    if (decision.reuse().reused()) {
      return CommandResult.materialized(decision.rows(), decision.reuse());
    }
    chosen.checkFree(target.catalog(), target.id());
    Optional<CommandResult> offloaded = TrinoWrites.createTableAs(context, target, replace, statement.query(), query, schema, layout);
    if (offloaded.isPresent()) {
      CommandResult ran = offloaded.get();
      return replace ? CommandResult.materialized(ran.rowCount(), decision.reuse()).offloadedTo(ran.offloadedTo()) : ran;
    }
    String what = (replace ? "CREATE OR REPLACE TABLE " : "CREATE TABLE ") + target.displayName() + " AS";
    Catalog.TableBuilder built = catalog.buildTable(target.id(), schema)
        .withPartitionSpec(layout.spec())
        .withSortOrder(layout.sortOrder())
        .withProperties(layout.properties());
    Catalog.TableBuilder builder = layout.location() == null ? built : built.withLocation(layout.location());
    TableWrite write;
    try {
      write = TableWrite.create(
          context.session(),
          target.catalog(),
          target.id(),
          () -> replace ? builder.createOrReplaceTransaction() : builder.createTransaction(),
          context.queryId());
    } catch (org.apache.iceberg.exceptions.AlreadyExistsException e) {
      if (statement.ifNotExists) {
        return CommandResult.rows(0);
      }
      throw error(ErrorCode.ALREADY_EXISTS, "Table " + target.displayName() + " already exists", statement.name());
    }
    Table table = write.table();
    DataFileWriter.Builder files = DataFileWriter.builder(table).operationId(context.queryId()).partitionId(context.attempt());
    int[] columns = IntStream.range(0, conversions.size()).toArray();
    Optional<BatchFileWriter.Layout> layout = BatchWrites.layout(query, table, columns);
    BatchWrites.Written written =
        layout.isPresent() ? BatchWrites.write(context, query, parameters, files, layout.get()) : writeRows(context, parameters, table, files);
    if (decision.lineage() != null) {
      write.summarize(decision.lineage().summary(written.rowCount(), MaterializationReuse.targetShape(table)));
    }
    write.summarize(beside.apply(table));
    write.commitAppend(written.files(), written.paths(), what);
    return replace ? CommandResult.materialized(written.rowCount(), decision.reuse()) : CommandResult.rows(written.rowCount());
  }

  TableRef target() {
    return target;
  }

  /** The statement's query, as planned. */
  public PlannedQuery query() {
    return query;
  }

  /** The columns of the table the statement makes. */
  Schema schema() {
    return schema;
  }

  /** How each of the query's columns becomes a value of the table's column at the same position. */
  List<ValueConversion> conversions() {
    return conversions;
  }

  /** The table the statement makes, besides its rows: what a reused table must still be. */
  private String shape() {
    return "create " + schema.asStruct() + " " + layout.spec() + " " + layout.sortOrder() + " " + layout.location() + " " + new TreeMap<>(layout.properties());
  }

  private BatchWrites.Written writeRows(CommandContext context, List<Object> parameters, Table table, DataFileWriter.Builder files) {
    DataFileWriter writer = files.build();
    // A record copied from this one skips the look-up of the schema's field names that creating one does.
    Record template = GenericRecord.create(table.schema());
    try (RowStream rows = context.queries().rows(context.session(), query, parameters, context.queryId())) {
      while (rows.next()) {
        Object[] row = rows.current();
        Record record = template.copy();
        for (int i = 0; i < row.length; i++) {
          record.set(i, conversions.get(i).apply(row[i]));
        }
        writer.write(record);
      }
      return new BatchWrites.Written(writer.complete(), writer.paths(), writer.rowCount());
    } catch (RuntimeException | Error e) {
      writer.abort();
      throw e;
    }
  }

  /**
   * The new table's schema: the query's columns, renamed and commented by the column list, all
   * nullable but those declared NOT NULL.
   */
  private static Schema schema(SqlCreateTable create, RelDataType rowType) {
    List<RelDataTypeField> fields = rowType.getFieldList();
    List<String> names = new ArrayList<>();
    List<String> comments = new ArrayList<>();
    Set<Integer> notNull = new HashSet<>();
    if (!create.columns().isEmpty()) {
      if (create.columns().size() != fields.size()) {
        throw error(
            ErrorCode.INVALID_ARGUMENT,
            "The column list names " + create.columns().size() + " columns but the query returns " + fields.size(),
            create.columns());
      }
      for (int i = 0; i < fields.size(); i++) {
        SqlColumnDeclaration column = (SqlColumnDeclaration) create.columns().get(i);
        if (column.type() != null) {
          throw error(ErrorCode.INVALID_ARGUMENT, "The column list of CREATE TABLE ... AS names columns without types", column.type());
        }
        names.add(column.name().getSimple());
        comments.add(column.comment());
        if (column.notNull()) {
          notNull.add(i);
        }
      }
    } else {
      for (int i = 0; i < fields.size(); i++) {
        String name = fields.get(i).getName();
        if (GENERATED_NAME.matcher(name).matches()) {
          throw error(
              ErrorCode.INVALID_ARGUMENT,
              "Column " + (i + 1) + " of the query has no name; name it with AS or a column list",
              create.query());
        }
        names.add(name);
        comments.add(null);
      }
    }
    Set<String> seen = new HashSet<>();
    for (String name : names) {
      if (!seen.add(name.toLowerCase(Locale.ROOT))) {
        throw error(ErrorCode.INVALID_ARGUMENT, "The new table would have two columns named " + name, create.name());
      }
    }
    List<Types.NestedField> columns = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Type type;
      try {
        type = CalciteTypeMapping.toIcebergType(fields.get(i).getType());
      } catch (UnsupportedTypeException e) {
        throw error(ErrorCode.NOT_SUPPORTED, "Column " + names.get(i) + ": " + e.getMessage(), create.query());
      }
      columns.add(Types.NestedField.of(i + 1, !notNull.contains(i), names.get(i), optionalFields(type), comments.get(i)));
    }
    // Nested ids were numbered per column; Iceberg renumbers them all when it creates the table.
    AtomicInteger ids = new AtomicInteger();
    return new Schema(TypeUtil.assignFreshIds(Types.StructType.of(columns), ids::incrementAndGet).asStructType().fields());
  }

  /** The type with every nested field and element optional (map keys stay required). */
  private static Type optionalFields(Type type) {
    switch (type.typeId()) {
      case STRUCT: {
        List<Types.NestedField> fields = new ArrayList<>();
        for (Types.NestedField field : type.asStructType().fields()) {
          fields.add(Types.NestedField.optional(field.fieldId(), field.name(), optionalFields(field.type()), field.doc()));
        }
        return Types.StructType.of(fields);
      }
      case LIST: {
        Types.ListType list = type.asListType();
        return Types.ListType.ofOptional(list.elementId(), optionalFields(list.elementType()));
      }
      case MAP: {
        Types.MapType map = type.asMapType();
        return Types.MapType.ofOptional(map.keyId(), map.valueId(), map.keyType(), optionalFields(map.valueType()));
      }
      default:
        return type;
    }
  }
}

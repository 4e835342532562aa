package io.sqe.write.dml;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.offload.Placement;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.plan.offload.TrinoSyntax;
import io.sqe.write.dml.TableNames.TableRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.sql.SqlNode;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortField;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.types.Types;

/**
 * {@code INSERT ... SELECT} and {@code CREATE [OR REPLACE] TABLE ... AS} run entirely on the Trino
 * cluster, which writes the files and makes the Iceberg commit, when the write's query is placed
 * there as a query would be. SQE has already checked the statement (privileges, target columns,
 * types, locations) when it was prepared; Trino gets the query with the user's row filters and
 * masks inlined and every column cast to the target's type, so the same values land as a local
 * run writes. What Trino would make differently from SQE (NOT NULL or commented columns, column
 * names Trino would lower-case, table properties it has no name for, defaults of omitted
 * columns) keeps the write here. Trino records no SQE lineage in its snapshot, so materialization
 * reuse never reuses what it wrote.
 */
final class TrinoWrites {
  /** Names Trino keeps as they are: its identifiers are lower-cased, and its partitioning strings take plain names. */
  private static final Pattern PLAIN_NAME = Pattern.compile("[a-z_][a-z0-9_]*");
  private static final Pattern TRANSFORM = Pattern.compile("(bucket|truncate)\\[(\\d+)]");

  private TrinoWrites() {}

  /**
   * Runs {@code INSERT INTO target (columns) SELECT ...} on Trino if the write is placed there;
   * empty when it runs here.
   */
  static Optional<CommandResult> insert(
      CommandContext context, TableRef target, Table table, List<Types.NestedField> columns, SqlNode source, PlannedQuery query) {
    if (!onTrino(context, query)) {
      return Optional.empty();
    }
    Optional<String> statement = insertStatement(context, target, columns, source);
    return statement.isEmpty() ? Optional.empty() : run(context, target, statement.get(), snapshotOf(table));
  }

  /**
   * The {@code INSERT INTO target (columns) SELECT ...} Trino runs for a write placed there; empty
   * when Trino cannot run its query.
   */
  static Optional<String> insertStatement(CommandContext context, TableRef target, List<Types.NestedField> columns, SqlNode source) {
    List<String> names = new ArrayList<>();
    StringBuilder sql = new StringBuilder("INSERT INTO ").append(name(target)).append(" (");
    for (int i = 0; i < columns.size(); i++) {
      names.add(columns.get(i).name());
      sql.append(i == 0 ? "" : ", ").append(TrinoSyntax.identifier(columns.get(i).name()));
    }
    Optional<String> select = select(context, source, columns, names);
    if (select.isEmpty()) {
      return Optional.empty();
    }
    sql.append(") ").append(select.get());
    return Optional.of(sql.toString());
  }

  /**
   * Runs {@code CREATE [OR REPLACE] TABLE target WITH (...) AS SELECT ...} on Trino if the write is
   * placed there and Trino makes the table SQE would; empty when it runs here.
   */
  static Optional<CommandResult> createTableAs(
      CommandContext context,
      TableRef target,
      boolean replace,
      SqlNode source,
      PlannedQuery query,
      Schema schema,
      TableLayout layout) {
    if (!onTrino(context, query)) {
      return Optional.empty();
    }
    Optional<String> statement = createTableAsStatement(context, target, replace, source, schema, layout);
    if (statement.isEmpty()) {
      return Optional.empty();
    }
    Optional<Table> before = load(target);
    return run(context, target, statement.get(), before.map(TrinoWrites::snapshotOf).orElse(null));
  }

  /**
   * The {@code CREATE [OR REPLACE] TABLE target WITH (...) AS SELECT ...} Trino runs for a CTAS
   * placed there; empty when Trino would not make the table SQE would or cannot run its query.
   */
  static Optional<String> createTableAsStatement(
      CommandContext context, TableRef target, boolean replace, SqlNode source, Schema schema, TableLayout layout) {
    if (!sameTable(schema, layout)) {
      return Optional.empty();
    }
    List<Types.NestedField> columns = schema.columns();
    List<String> names = columns.stream().map(Types.NestedField::name).toList();
    Optional<String> select = select(context, source, columns, names);
    if (select.isEmpty()) {
      return Optional.empty();
    }
    StringBuilder sql = new StringBuilder(replace ? "CREATE OR REPLACE TABLE " : "CREATE TABLE ").append(name(target));
    String comment = layout.properties().get("comment");
    if (comment != null) {
      sql.append(" COMMENT ").append(TrinoSyntax.literal(comment));
    }
    List<String> with = new ArrayList<>();
    String formatVersion = layout.properties().get("format-version");
    if (formatVersion != null) {
      with.add("format_version = " + Integer.parseInt(formatVersion));
    }
    if (!layout.spec().isUnpartitioned()) {
      with.add("partitioning = ARRAY[" + String.join(", ", partitioning(schema, layout)) + "]");
    }
    if (!layout.sortOrder().isUnsorted()) {
      with.add("sorted_by = ARRAY[" + String.join(", ", sortedBy(schema, layout)) + "]");
    }
    if (layout.location() != null) {
      // Checked by SQE's location rules when the statement was prepared, and free when it runs.
      with.add("location = " + TrinoSyntax.literal(layout.location()));
    }
    if (!with.isEmpty()) {
      sql.append(" WITH (").append(String.join(", ", with)).append(')');
    }
    sql.append(" AS ").append(select.get());
    return Optional.of(sql.toString());
  }

  /** Whether the write's query is placed on the Trino cluster. */
  private static boolean onTrino(CommandContext context, PlannedQuery query) {
    return context.queries().placeWrite(context.session(), query).map(Placement::onTrino).orElse(false);
  }

  /** The query as Trino's SELECT, its columns cast to theirs; empty when Trino cannot run it. */
  private static Optional<String> select(CommandContext context, SqlNode source, List<Types.NestedField> columns, List<String> names) {
    try {
      List<String> types = columns.stream().map(column -> TrinoSyntax.type(column.type())).toList();
      SqlNode query = SqlTrees.copy(source);
      return Optional.of(context.queries().trinoSelect(context.session(), query, query.toString(), types, names));
    } catch (SqeException e) {
      if (e.code() == ErrorCode.NOT_SUPPORTED) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * Whether Trino's CREATE TABLE ... AS makes the table SQE's would: columns all nullable, without
   * comments, named as Trino names them; partitioning and sort order it can spell; no table
   * property but a comment and a format version Trino writes.
   */
  private static boolean sameTable(Schema schema, TableLayout layout) {
    for (Types.NestedField column : schema.columns()) {
      if (column.isRequired() || column.doc() != null || !PLAIN_NAME.matcher(column.name()).matches()) {
        return false;
      }
    }
    for (Map.Entry<String, String> property : layout.properties().entrySet()) {
      boolean known = property.getKey().equals("comment")
          || property.getKey().equals("format-version") && (property.getValue().equals("1") || property.getValue().equals("2"));
      if (!known) {
        return false;
      }
    }
    return layout.sortOrder().fields().stream().allMatch(field -> field.transform().isIdentity());
  }

  /** Trino's {@code partitioning} strings for the layout's spec: {@code c}, {@code day(c)}, {@code bucket(c, 8)}... */
  private static List<String> partitioning(Schema schema, TableLayout layout) {
    List<String> fields = new ArrayList<>();
    for (PartitionField field : layout.spec().fields()) {
      String column = schema.findColumnName(field.sourceId());
      String transform = field.transform().toString();
      Matcher parameterized = TRANSFORM.matcher(transform);
      String spelled = field.transform().isIdentity()
          ? column
          : parameterized.matches() ? parameterized.group(1) + "(" + column + ", " + parameterized.group(2) + ")" : transform + "(" + column + ")";
      fields.add(TrinoSyntax.literal(spelled));
    }
    return fields;
  }

  /** Trino's {@code sorted_by} strings for the layout's sort order (identity fields only). */
  private static List<String> sortedBy(Schema schema, TableLayout layout) {
    List<String> fields = new ArrayList<>();
    for (SortField field : layout.sortOrder().fields()) {
      String nulls = field.nullOrder() == org.apache.iceberg.NullOrder.NULLS_FIRST ? "NULLS FIRST" : "NULLS LAST";
      fields.add(TrinoSyntax.literal(schema.findColumnName(field.sourceId()) + " " + field.direction() + " " + nulls));
    }
    return fields;
  }

  /**
   * Runs {@code sql} on Trino; whatever happens, SQE's cached metadata of the target is dropped,
   * so SQE's next statement reads what Trino committed (the plan and result caches check the
   * snapshots it reads). {@code before} is the target's snapshot before (null: none, or no table):
   * a failed write that left it there committed nothing, and may run here.
   */
  private static Optional<CommandResult> run(CommandContext context, TableRef target, String sql, Long before) {
    BooleanSupplier unchanged = () -> {
      target.catalog().invalidate(target.id());
      return Objects.equals(before, load(target).map(TrinoWrites::snapshotOf).orElse(null));
    };
    try {
      return context.queries().runOnTrino(sql, unchanged);
    } finally {
      target.catalog().invalidate(target.id());
    }
  }

  private static Optional<Table> load(TableRef target) {
    try {
      return Optional.of(target.catalog().iceberg().loadTable(target.id()));
    } catch (NoSuchTableException e) {
      return Optional.empty();
    }
  }

  private static Long snapshotOf(Table table) {
    return table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
  }

  private static String name(TableRef target) {
    TableIdentifier id = target.id();
    List<String> parts = new ArrayList<>();
    parts.add(target.catalog().name());
    parts.addAll(List.of(id.namespace().levels()));
    parts.add(id.name());
    return TrinoSyntax.qualified(parts);
  }
}

package io.sqe.engine.iceberg;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.adapter.enumerable.JavaRowFormat;
import org.apache.calcite.adapter.enumerable.PhysType;
import org.apache.calcite.adapter.enumerable.PhysTypeImpl;
import org.apache.calcite.linq4j.tree.Blocks;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.TranslatableTable;
import org.apache.calcite.schema.Schema.TableType;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.iceberg.DataTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * One of an Iceberg table's metadata tables, named as Trino names them ({@code "orders$snapshots"}):
 * read-only rows about the table's snapshots, history, refs, current data files, manifests,
 * partitions or properties, with Trino's column names. Where Iceberg has the same metadata table
 * its rows are Iceberg's own; the rows are read from the table as it is when the statement runs.
 */
public final class IcebergMetadataTable extends AbstractTable implements TranslatableTable {
  /** The metadata tables, by the suffix after {@code $}. */
  public enum Kind {
    SNAPSHOTS,
    HISTORY,
    FILES,
    MANIFESTS,
    PARTITIONS,
    REFS,
    PROPERTIES;

    /** The suffix after the table name and {@code $}, in lower case. */
    public String suffix() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the rows show column values (file bounds, partition values) rather than only counts. */
    public boolean showsValues() {
      return this == FILES || this == MANIFESTS || this == PARTITIONS;
    }

    static Optional<Kind> ofSuffix(String suffix) {
      for (Kind kind : values()) {
        if (kind.suffix().equalsIgnoreCase(suffix)) {
          return Optional.of(kind);
        }
      }
      return Optional.empty();
    }
  }

  /** A name that reads as a metadata table: the base table's name and the metadata table's suffix. */
  public record Name(String table, String suffix) {
    /** The name split at its last {@code $}; empty when it has none, or nothing on either side. */
    public static Optional<Name> parse(String name) {
      int dollar = name.lastIndexOf('$');
      if (dollar <= 0 || dollar == name.length() - 1) {
        return Optional.empty();
      }
      return Optional.of(new Name(name.substring(0, dollar), name.substring(dollar + 1)));
    }

    /** The metadata table kind, or empty when the suffix names none. */
    public Optional<Kind> kind() {
      return Kind.ofSuffix(suffix);
    }

    /** The suffixes there are, for error messages. */
    public static String known() {
      List<String> names = new ArrayList<>();
      for (Kind kind : Kind.values()) {
        names.add("$" + kind.suffix());
      }
      return String.join(", ", names);
    }
  }

  private final LakehouseCatalog catalog;
  private final TableIdentifier id;
  private final Kind kind;
  private final Schema schema;
  /** Whether the rows leave out what counts the table's rows ($snapshots' summary), as NULL. */
  private final boolean withoutCounts;

  /**
   * The metadata table of {@code table}, which is {@code id} in {@code catalog}.
   *
   * @param withoutCounts whether to show no counts of the table's rows ($snapshots' summary, with its
   *     added, deleted and total records, is NULL): for a reader whose access hides, masks or filters anything
   */
  public IcebergMetadataTable(LakehouseCatalog catalog, TableIdentifier id, Table table, Kind kind, boolean withoutCounts) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.id = requireNonNull(id, "id is null");
    this.kind = requireNonNull(kind, "kind is null");
    this.schema = schema(requireNonNull(table, "table is null"), kind);
    this.withoutCounts = withoutCounts;
  }

  public Kind kind() {
    return kind;
  }

  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    return CalciteTypeMapping.toCalcite(typeFactory, schema);
  }

  @Override
  public TableType getJdbcTableType() {
    return TableType.SYSTEM_TABLE;
  }

  @Override
  public RelNode toRel(RelOptTable.ToRelContext context, RelOptTable relOptTable) {
    return new Scan(context.getCluster(), relOptTable, this);
  }

  /**
   * The rows, read from the table as the catalog has it when the statement runs, in Calcite's
   * shape for this many columns: a bare value for one, else an array. Called from generated code.
   */
  public Enumerable<Object> enumerate(DataContext root) {
    Table table = catalog
        .loadTable(id)
        .orElseThrow(() -> new SqeException(ErrorCode.NOT_FOUND, "Table " + catalog.name() + "." + id + " no longer exists"));
    List<Object[]> rows = switch (kind) {
      case SNAPSHOTS -> icebergRows(table, MetadataTableType.SNAPSHOTS);
      case HISTORY -> icebergRows(table, MetadataTableType.HISTORY);
      case REFS -> icebergRows(table, MetadataTableType.REFS);
      case FILES -> files(table);
      case PARTITIONS -> icebergRows(table, MetadataTableType.PARTITIONS);
      case MANIFESTS -> manifests(table);
      case PROPERTIES -> properties(table);
    };
    List<Object> shaped = new ArrayList<>(rows.size());
    for (Object[] row : rows) {
      shaped.add(row.length == 1 ? row[0] : row);
    }
    return Linq4j.asEnumerable(shaped);
  }

  /** Reads a metadata table; its rows come from {@link #enumerate}. */
  private static final class Scan extends TableScan implements EnumerableRel {
    private final IcebergMetadataTable metadataTable;

    Scan(RelOptCluster cluster, RelOptTable table, IcebergMetadataTable metadataTable) {
      super(cluster, cluster.traitSetOf(EnumerableConvention.INSTANCE), List.of(), table);
      this.metadataTable = metadataTable;
    }

    @Override
    public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
      return new Scan(getCluster(), table, metadataTable);
    }

    @Override
    public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
      PhysType physType = PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(), JavaRowFormat.ARRAY);
      org.apache.calcite.linq4j.tree.Expression stashed = implementor.stash(metadataTable, IcebergMetadataTable.class);
      return implementor.result(
          physType,
          Blocks.toBlock(Expressions.call(stashed, "enumerate", implementor.getRootExpression())));
    }
  }

  /** The columns, as Iceberg types; field ids only need to be unique. */
  private static Schema schema(Table table, Kind kind) {
    switch (kind) {
      case SNAPSHOTS:
      case HISTORY:
      case REFS:
        return metadataTable(table, kind).schema();
      case FILES: {
        Schema files = metadataTable(table, Kind.FILES).schema();
        List<Types.NestedField> columns = new ArrayList<>();
        for (String name : FILES_COLUMNS) {
          Types.NestedField field = files.findField(name);
          if (field == null) {
            continue;
          }
          if (isBounds(name)) {
            Types.MapType map = field.type().asMapType();
            field = Types.NestedField.optional(
                field.fieldId(), name, Types.MapType.ofOptional(map.keyId(), map.valueId(), Types.IntegerType.get(), Types.StringType.get()));
          }
          columns.add(field);
        }
        return new Schema(columns);
      }
      case PARTITIONS: {
        Schema partitions = metadataTable(table, Kind.PARTITIONS).schema();
        List<Types.NestedField> columns = new ArrayList<>();
        Types.NestedField partition = partitions.findField("partition");
        if (partition != null) {
          columns.add(partition);
        }
        columns.add(Types.NestedField.required(partitions.highestFieldId() + 1, "record_count", Types.LongType.get()));
        columns.add(Types.NestedField.required(partitions.highestFieldId() + 2, "file_count", Types.LongType.get()));
        columns.add(Types.NestedField.required(partitions.highestFieldId() + 3, "total_size", Types.LongType.get()));
        return new Schema(columns);
      }
      case MANIFESTS:
        return new Schema(
            Types.NestedField.required(1, "path", Types.StringType.get()),
            Types.NestedField.required(2, "length", Types.LongType.get()),
            Types.NestedField.required(3, "partition_spec_id", Types.IntegerType.get()),
            Types.NestedField.optional(4, "added_snapshot_id", Types.LongType.get()),
            Types.NestedField.optional(5, "added_data_files_count", Types.IntegerType.get()),
            Types.NestedField.optional(6, "added_rows_count", Types.LongType.get()),
            Types.NestedField.optional(7, "existing_data_files_count", Types.IntegerType.get()),
            Types.NestedField.optional(8, "existing_rows_count", Types.LongType.get()),
            Types.NestedField.optional(9, "deleted_data_files_count", Types.IntegerType.get()),
            Types.NestedField.optional(10, "deleted_rows_count", Types.LongType.get()),
            Types.NestedField.optional(
                11,
                "partition_summaries",
                Types.ListType.ofRequired(
                    12,
                    Types.StructType.of(
                        Types.NestedField.required(13, "contains_null", Types.BooleanType.get()),
                        Types.NestedField.optional(14, "contains_nan", Types.BooleanType.get()),
                        Types.NestedField.optional(15, "lower_bound", Types.StringType.get()),
                        Types.NestedField.optional(16, "upper_bound", Types.StringType.get())))));
      case PROPERTIES:
        return new Schema(
            Types.NestedField.required(1, "key", Types.StringType.get()),
            Types.NestedField.required(2, "value", Types.StringType.get()));
      default:
        throw new IllegalArgumentException("Unknown metadata table " + kind);
    }
  }

  /** The columns of {@code $files}, as Trino has them, that Iceberg's files table also has. */
  private static final List<String> FILES_COLUMNS = List.of(
      "content",
      "file_path",
      "file_format",
      "spec_id",
      "partition",
      "record_count",
      "file_size_in_bytes",
      "column_sizes",
      "value_counts",
      "null_value_counts",
      "nan_value_counts",
      "lower_bounds",
      "upper_bounds",
      "key_metadata",
      "split_offsets",
      "equality_ids",
      "sort_order_id");

  private static Table metadataTable(Table table, Kind kind) {
    return MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.valueOf(kind.name()));
  }

  /** Every row of Iceberg's metadata table of that type, as this table's columns (found by name). */
  private List<Object[]> icebergRows(Table table, MetadataTableType type) {
    Table metadata = MetadataTableUtils.createMetadataTableInstance(table, type);
    org.apache.iceberg.TableScan scan = metadata.newScan();
    if (type == MetadataTableType.FILES) {
      // Only the columns shown, so that Iceberg does not compute readable_metrics for every file.
      scan = scan.select(FILES_COLUMNS.stream().filter(name -> metadata.schema().findField(name) != null).toList());
    }
    List<Types.NestedField> sourceColumns = scan.schema().columns();
    List<Types.NestedField> columns = schema.columns();
    int[] positions = new int[columns.size()];
    List<Function<Object, Object>> converters = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      String name = columns.get(i).name();
      // Trino's $partitions calls Iceberg's total_data_file_size_in_bytes total_size.
      String sourceName = type == MetadataTableType.PARTITIONS && name.equals("total_size") ? "total_data_file_size_in_bytes" : name;
      positions[i] = -1;
      if (withoutCounts && type == MetadataTableType.SNAPSHOTS && name.equals("summary")) {
        converters.add(Function.identity());
        continue;
      }
      Type convertAs = columns.get(i).type();
      for (int j = 0; j < sourceColumns.size(); j++) {
        if (sourceColumns.get(j).name().equals(sourceName)) {
          positions[i] = j;
          if (isBounds(name)) {
            // Binary here; files() makes them readable, knowing each column's type.
            convertAs = sourceColumns.get(j).type();
          }
        }
      }
      converters.add(converter(convertAs));
    }
    List<Object[]> rows = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<StructLike> taskRows = ((DataTask) task).rows()) {
          for (StructLike struct : taskRows) {
            Object[] row = new Object[positions.length];
            for (int i = 0; i < positions.length; i++) {
              Object value = positions[i] < 0 ? null : struct.get(positions[i], Object.class);
              row[i] = value == null ? null : converters.get(i).apply(value);
            }
            rows.add(row);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Iceberg's files table with the column bounds in readable form, as Trino shows them. */
  private List<Object[]> files(Table table) {
    Map<Integer, Type> types = new TreeMap<>();
    for (Types.NestedField field : table.schema().columns()) {
      collectTypes(field, types);
    }
    List<Object[]> rows = icebergRows(table, MetadataTableType.FILES);
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      String name = columns.get(i).name();
      if (isBounds(name)) {
        for (Object[] row : rows) {
          row[i] = row[i] == null ? null : readableBounds(row[i], types);
        }
      }
    }
    return rows;
  }

  private static boolean isBounds(String column) {
    return column.equals("lower_bounds") || column.equals("upper_bounds");
  }

  private static void collectTypes(Types.NestedField field, Map<Integer, Type> types) {
    types.put(field.fieldId(), field.type());
    if (field.type().isNestedType()) {
      for (Types.NestedField child : field.type().asNestedType().fields()) {
        collectTypes(child, types);
      }
    }
  }

  /** A bounds map as converted from Iceberg's (binary values, as ByteStrings) to readable strings. */
  private static Map<Object, Object> readableBounds(Object bounds, Map<Integer, Type> types) {
    Map<Object, Object> readable = new LinkedHashMap<>();
    for (Map.Entry<?, ?> entry : ((Map<?, ?>) bounds).entrySet()) {
      Integer fieldId = (Integer) entry.getKey();
      Type type = types.get(fieldId);
      Object value = entry.getValue();
      if (type == null || value == null || !type.isPrimitiveType()) {
        readable.put(fieldId, null);
        continue;
      }
      ByteBuffer buffer = value instanceof ByteString
          ? ByteBuffer.wrap(((ByteString) value).getBytes())
          : ((ByteBuffer) value).duplicate();
      Object decoded = Conversions.fromByteBuffer(type, buffer);
      readable.put(fieldId, Transforms.identity().toHumanString(type, decoded));
    }
    return readable;
  }

  /** Every manifest of the current snapshot, with its partition summaries in readable form. */
  private List<Object[]> manifests(Table table) {
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return List.of();
    }
    Map<Integer, PartitionSpec> specs = table.specs();
    List<Object[]> rows = new ArrayList<>();
    for (ManifestFile manifest : snapshot.allManifests(table.io())) {
      PartitionSpec spec = specs.get(manifest.partitionSpecId());
      List<Object> summaries = new ArrayList<>();
      List<ManifestFile.PartitionFieldSummary> partitions = manifest.partitions();
      if (partitions != null && spec != null) {
        for (int i = 0; i < partitions.size() && i < spec.fields().size(); i++) {
          ManifestFile.PartitionFieldSummary summary = partitions.get(i);
          PartitionField field = spec.fields().get(i);
          Type type = spec.partitionType().fields().get(i).type();
          summaries.add(new Object[] {
            summary.containsNull(),
            summary.containsNaN(),
            humanBound(field, type, summary.lowerBound()),
            humanBound(field, type, summary.upperBound())
          });
        }
      }
      rows.add(new Object[] {
        manifest.path(),
        manifest.length(),
        manifest.partitionSpecId(),
        manifest.snapshotId(),
        manifest.addedFilesCount(),
        manifest.addedRowsCount(),
        manifest.existingFilesCount(),
        manifest.existingRowsCount(),
        manifest.deletedFilesCount(),
        manifest.deletedRowsCount(),
        summaries
      });
    }
    return rows;
  }

  @SuppressWarnings("unchecked")
  private static String humanBound(PartitionField field, Type type, ByteBuffer bound) {
    if (bound == null) {
      return null;
    }
    Object value = Conversions.fromByteBuffer(type, bound.duplicate());
    return ((org.apache.iceberg.transforms.Transform<Object, Object>) field.transform()).toHumanString(type, value);
  }

  private List<Object[]> properties(Table table) {
    List<Object[]> rows = new ArrayList<>();
    for (Map.Entry<String, String> entry : new TreeMap<>(table.properties()).entrySet()) {
      rows.add(new Object[] {entry.getKey(), entry.getValue()});
    }
    return rows;
  }

  /**
   * Converts a value of Iceberg's internal data model (what metadata table rows hold: timestamps
   * as microseconds, strings as CharSequence, binaries as ByteBuffer, structs as StructLike) into
   * the Java value SQE's engine uses for the type.
   */
  private static Function<Object, Object> converter(Type type) {
    return IcebergValueConverters.forType(type, IcebergMetadataTable::internalPrimitive);
  }

  private static Function<Object, Object> internalPrimitive(Type.PrimitiveType type) {
    switch (type.typeId()) {
      case STRING:
        return Object::toString;
      case INTEGER:
        return v -> ((Number) v).intValue();
      case LONG:
        return v -> ((Number) v).longValue();
      case TIME:
        return v -> (int) (((Long) v) / 1_000L);
      case FIXED:
      case BINARY:
        return v -> v instanceof byte[] ? new ByteString((byte[]) v) : IcebergValueConverters.byteString((ByteBuffer) v);
      default:
        // booleans, doubles, decimals, dates (days) and timestamps (microseconds) are already what SQE uses.
        return Function.identity();
    }
  }
}

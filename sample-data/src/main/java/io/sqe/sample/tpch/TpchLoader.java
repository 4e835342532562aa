package io.sqe.sample.tpch;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.sample.IcebergAppender;
import io.sqe.sample.IcebergAppender.AppendResult;
import io.sqe.sample.tpch.TpchLoadSummary.TableLoad;
import io.trino.tpch.TpchEntity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;

/**
 * Generates TPC-H data in process with the {@code io.trino.tpch} generators and writes the eight
 * TPC-H tables as Iceberg tables of Parquet files, one append snapshot per table.
 *
 * <p>Every table except nation and region is generated in {@code filesPerTable} parts, written in
 * parallel, one data file per part (more if a part exceeds the table's target file size). Lineitem
 * and orders parts hold consecutive order keys, so their files have disjoint key ranges.
 *
 * <p>Tables that already hold data of the same scale factor are skipped, or replaced when the
 * loader is built with {@link ExistingTables#REPLACE}.
 */
public final class TpchLoader {
  /** Table property recording the scale factor a table was generated with. */
  public static final String SCALE_FACTOR_PROPERTY = "sqe.tpch.scale-factor";

  /** What to do with a TPC-H table that already holds data. */
  public enum ExistingTables {
    /** Keep it, provided it was loaded with the same scale factor. */
    SKIP,
    /** Drop it, with its files, and load it again. */
    REPLACE
  }

  private final int filesPerTable;
  private final int parallelism;
  private final ExistingTables existingTables;

  private TpchLoader(Builder builder) {
    this.filesPerTable = builder.filesPerTable;
    this.parallelism = builder.parallelism;
    this.existingTables = builder.existingTables;
  }

  /** 4 files per table, one thread per processor, existing tables skipped. */
  public static TpchLoader defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The TPC-H table names, in load order. */
  public static List<String> tableNames() {
    return TpchTableDefinition.ALL.stream().map(TpchTableDefinition::name).toList();
  }

  /** Creates the schema if needed and loads the TPC-H tables into it. */
  public TpchLoadSummary load(LakehouseCatalog catalog, String schema, double scaleFactor) {
    requireNonNull(catalog, "catalog is null");
    requireNonNull(schema, "schema is null");
    Preconditions.checkArgument(
        scaleFactor > 0 && Double.isFinite(scaleFactor), "Invalid scale factor: %s", scaleFactor);
    long start = System.nanoTime();
    Namespace namespace = Namespace.of(schema);
    createNamespaceIfMissing(catalog, namespace);

    // Decide for every table before writing anything, so a conflict leaves the schema untouched.
    List<TableLoad> kept = new ArrayList<>();
    for (TpchTableDefinition<?> definition : TpchTableDefinition.ALL) {
      kept.add(
          existing(
              catalog.iceberg(), TableIdentifier.of(namespace, definition.name()), scaleFactor));
    }
    List<TableLoad> loads = new ArrayList<>();
    for (int i = 0; i < TpchTableDefinition.ALL.size(); i++) {
      TpchTableDefinition<?> definition = TpchTableDefinition.ALL.get(i);
      loads.add(
          kept.get(i) != null
              ? kept.get(i)
              : loadTable(
                  catalog,
                  TableIdentifier.of(namespace, definition.name()),
                  definition,
                  scaleFactor));
    }
    return new TpchLoadSummary(
        schema, scaleFactor, loads, Duration.ofNanos(System.nanoTime() - start));
  }

  private static void createNamespaceIfMissing(LakehouseCatalog catalog, Namespace namespace) {
    if (!catalog.namespaces().namespaceExists(namespace)) {
      try {
        catalog.namespaces().createNamespace(namespace);
      } catch (AlreadyExistsException e) {
        // created concurrently: fine
      }
    }
  }

  /** The skip result for a table that already holds this data, or null when it must be loaded. */
  private TableLoad existing(Catalog catalog, TableIdentifier id, double scaleFactor) {
    if (!catalog.tableExists(id)) {
      return null;
    }
    Table table = catalog.loadTable(id);
    Snapshot current = table.currentSnapshot();
    long rows = summaryValue(current, SnapshotSummary.TOTAL_RECORDS_PROP);
    if (rows == 0 || existingTables == ExistingTables.REPLACE) {
      return null;
    }
    String loadedScale = table.properties().get(SCALE_FACTOR_PROPERTY);
    if (loadedScale == null || Double.parseDouble(loadedScale) != scaleFactor) {
      throw new IllegalStateException(
          String.format(
              "Table %s already holds %s rows that are not TPC-H data of scale factor %s"
                  + " (its %s is %s); drop it or load with ExistingTables.REPLACE",
              id, rows, scaleFactor, SCALE_FACTOR_PROPERTY, loadedScale));
    }
    int files = (int) summaryValue(current, SnapshotSummary.TOTAL_DATA_FILES_PROP);
    return new TableLoad(id.name(), rows, files, true);
  }

  private static long summaryValue(Snapshot snapshot, String property) {
    if (snapshot == null || snapshot.summary() == null) {
      return 0;
    }
    String value = snapshot.summary().get(property);
    return value == null ? 0 : Long.parseLong(value);
  }

  private <E extends TpchEntity> TableLoad loadTable(
      LakehouseCatalog catalog,
      TableIdentifier id,
      TpchTableDefinition<E> definition,
      double scaleFactor) {
    Catalog iceberg = catalog.iceberg();
    if (iceberg.tableExists(id)) {
      iceberg.dropTable(id, true);
    }
    catalog.invalidate(id);
    Table table =
        iceberg.createTable(
            id,
            definition.schema(),
            PartitionSpec.unpartitioned(),
            Map.of(SCALE_FACTOR_PROPERTY, Double.toString(scaleFactor)));

    int parts = definition.splittable() ? filesPerTable : 1;
    List<Iterable<Record>> streams =
        IntStream.rangeClosed(1, parts)
            .mapToObj(part -> definition.records(scaleFactor, part, parts))
            .toList();
    AppendResult result;
    try {
      result =
          IcebergAppender.builder(table)
              .parallelism(parallelism)
              .snapshotProperty(SCALE_FACTOR_PROPERTY, Double.toString(scaleFactor))
              .build()
              .appendStreams(streams);
    } catch (RuntimeException | Error e) {
      // The appender removed its files; dropping the new, empty table lets a retry start clean.
      try {
        iceberg.dropTable(id, true);
      } catch (RuntimeException dropFailure) {
        e.addSuppressed(dropFailure);
      }
      throw e;
    } finally {
      catalog.invalidate(id);
    }
    return new TableLoad(id.name(), result.rowCount(), result.dataFiles().size(), false);
  }

  /** Options of a {@link TpchLoader}. */
  public static final class Builder {
    private int filesPerTable = 4;
    private int parallelism = Runtime.getRuntime().availableProcessors();
    private ExistingTables existingTables = ExistingTables.SKIP;

    private Builder() {}

    /** Parts, and so data files, per table; nation and region always have one. Default 4. */
    public Builder filesPerTable(int files) {
      Preconditions.checkArgument(files > 0, "Invalid files per table: %s", files);
      this.filesPerTable = files;
      return this;
    }

    /** Parts generated and written at the same time. Defaults to the number of processors. */
    public Builder parallelism(int threads) {
      Preconditions.checkArgument(threads > 0, "Invalid parallelism: %s", threads);
      this.parallelism = threads;
      return this;
    }

    public Builder existingTables(ExistingTables existingTables) {
      this.existingTables = requireNonNull(existingTables, "existingTables is null");
      return this;
    }

    public TpchLoader build() {
      return new TpchLoader(this);
    }
  }
}

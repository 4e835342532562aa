package io.sqe.write.dml;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.write.WritePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** An engine with the write path over an embedded catalog in a directory, schema {@code s} selected. */
final class Lakehouse implements AutoCloseable {
  private static final AtomicInteger QUERY_IDS = new AtomicInteger();

  final RootAllocator allocator = new RootAllocator();
  final LakehouseCatalog catalog;
  final QueryEngine engine;
  final Session session;

  Lakehouse(Path dir) {
    this(IcebergCatalogFactory.embedded("lake", dir.resolve("warehouse"), Duration.ofMinutes(5)));
  }

  /** The same with the engine configured as {@code config} says. */
  Lakehouse(Path dir, EngineConfig config) {
    this(IcebergCatalogFactory.embedded("lake", dir.resolve("warehouse"), Duration.ofMinutes(5)), config);
  }

  /** The same over {@code catalog}, which must be named {@code lake}; closing this closes it. */
  Lakehouse(LakehouseCatalog catalog) {
    this(catalog, EngineConfig.DEFAULT);
  }

  private Lakehouse(LakehouseCatalog catalog, EngineConfig config) {
    this.catalog = catalog;
    catalog.namespaces().createNamespace(Namespace.of("s"));
    engine = new QueryEngine(new Catalogs(List.of(catalog), "lake"), allocator, config, WritePath.executors());
    session = new Session(Principal.of("test"), "lake", "s", ZoneOffset.UTC);
  }

  /** Runs a statement that is not a query and returns its row count. */
  long update(String sql, Object... parameters) {
    return update(session, sql, parameters);
  }

  /** Runs a statement that is not a query in {@code session} and returns its row count. */
  long update(Session in, String sql, Object... parameters) {
    Prepared prepared = engine.prepare(in, sql);
    return engine.run(in, (Prepared.Command) prepared, List.of(parameters), "q" + QUERY_IDS.incrementAndGet()).rowCount();
  }

  /** The rows of a query, as Arrow's Java objects. */
  List<List<Object>> query(String sql, Object... parameters) {
    Prepared prepared = engine.prepare(session, sql);
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution exec = engine.execute(session, prepared, List.of(parameters), "q" + QUERY_IDS.incrementAndGet())) {
      while (exec.next()) {
        VectorSchemaRoot root = exec.root();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(v.getObject(r));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  Table table(String name) {
    return catalog.iceberg().loadTable(TableIdentifier.of("s", name));
  }

  /** Creates table {@code s.name} with these rows, in files of at most {@code rowsPerFile} rows. */
  Table create(String name, org.apache.iceberg.Schema schema, org.apache.iceberg.PartitionSpec spec, List<Record> rows, int rowsPerFile) {
    Table table = catalog.iceberg().createTable(TableIdentifier.of("s", name), schema, spec);
    if (!rows.isEmpty()) {
      io.sqe.write.files.DataFileWriter writer =
          io.sqe.write.files.DataFileWriter.builder(table).maxRowsPerFile(rowsPerFile).build();
      rows.forEach(writer::write);
      org.apache.iceberg.AppendFiles append = table.newAppend();
      writer.complete().forEach(append::appendFile);
      append.commit();
    }
    catalog.invalidate(TableIdentifier.of("s", name));
    return table;
  }

  /** Creates table {@code s.name} with one NOT NULL INTEGER column {@code x}: 1 to {@code count}. */
  Table createNumbers(String name, int count, int rowsPerFile) {
    org.apache.iceberg.Schema schema =
        new org.apache.iceberg.Schema(org.apache.iceberg.types.Types.NestedField.required(1, "x", org.apache.iceberg.types.Types.IntegerType.get()));
    List<Record> rows = new ArrayList<>();
    for (int x = 1; x <= count; x++) {
      Record r = org.apache.iceberg.data.GenericRecord.create(schema);
      r.setField("x", x);
      rows.add(r);
    }
    return create(name, schema, org.apache.iceberg.PartitionSpec.unpartitioned(), rows, rowsPerFile);
  }

  /** The rows of one data file, in file order, read by Iceberg's Parquet reader. */
  static List<Record> fileRecords(Table table, org.apache.iceberg.DataFile file) {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        org.apache.iceberg.parquet.Parquet.read(table.io().newInputFile(file.location()))
            .project(table.schema())
            .createReaderFunc(fileSchema -> org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(table.schema(), fileSchema))
            .build()) {
      records.forEach(r -> rows.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** The data files of the table's current snapshot. */
  static List<org.apache.iceberg.DataFile> dataFiles(Table table) {
    return files(table.newScan());
  }

  /** The data files of the table's current snapshot, with their column metrics. */
  static List<org.apache.iceberg.DataFile> dataFilesWithStats(Table table) {
    return files(table.newScan().includeColumnStats());
  }

  private static List<org.apache.iceberg.DataFile> files(org.apache.iceberg.TableScan scan) {
    List<org.apache.iceberg.DataFile> files = new ArrayList<>();
    try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = scan.planFiles()) {
      tasks.forEach(t -> files.add(t.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** Every row of the table's current snapshot, read by Iceberg's own generic reader. */
  static List<Record> records(Table table) {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> rows.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Every file under the table's location (data and metadata), as paths. */
  static java.util.SortedSet<String> filesOnDisk(Table table) {
    java.util.SortedSet<String> files = new java.util.TreeSet<>();
    try (java.util.stream.Stream<Path> paths = java.nio.file.Files.walk(Path.of(java.net.URI.create(table.location())))) {
      paths.filter(java.nio.file.Files::isRegularFile).forEach(p -> files.add(p.toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  @Override
  public void close() throws Exception {
    catalog.close();
    allocator.close();
  }
}

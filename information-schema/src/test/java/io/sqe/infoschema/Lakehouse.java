package io.sqe.infoschema;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.ObjectVisibility;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.write.WritePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;

/**
 * An engine with the write path and information_schema over an embedded catalog {@code lake} in a
 * directory, as user {@code alice} with schema {@code s} selected.
 */
final class Lakehouse implements AutoCloseable {
  private static final AtomicInteger QUERY_IDS = new AtomicInteger();

  final RootAllocator allocator = new RootAllocator();
  final LakehouseCatalog catalog;
  final QueryEngine engine;
  Session session;

  Lakehouse(Path dir, ObjectVisibility visibility) {
    this(IcebergCatalogFactory.embedded("lake", dir.resolve("warehouse"), Duration.ofMinutes(5)), visibility);
  }

  Lakehouse(LakehouseCatalog catalog, ObjectVisibility visibility) {
    this.catalog = catalog;
    Catalogs catalogs = new Catalogs(List.of(catalog), "lake");
    CatalogMetadata metadata = new CatalogMetadata(visibility);
    List<CommandExecutor> executors = new ArrayList<>(WritePath.executors());
    executors.add(new ShowStatements(metadata));
    engine =
        new QueryEngine(
            catalogs,
            allocator,
            EngineConfig.DEFAULT,
            executors,
            WritePath.transactions(),
            InformationSchema.schemas(metadata, catalogs));
    session = new Session(Principal.of("alice"), "lake", null, ZoneOffset.UTC);
    update("CREATE SCHEMA s");
    session = session.withSchema("s");
  }

  /** Runs a statement that is not a query and returns its row count. */
  long update(String sql, Object... parameters) {
    Prepared prepared = engine.prepare(session, sql);
    return engine.run(session, (Prepared.Command) prepared, List.of(parameters), "q" + QUERY_IDS.incrementAndGet()).rowCount();
  }

  /** The rows a statement that answers with rows (SHOW) reports. */
  List<List<Object>> show(String sql) {
    Prepared prepared = engine.prepare(session, sql);
    List<List<Object>> rows = new ArrayList<>();
    for (Object[] row : engine.run(session, (Prepared.Command) prepared, List.of(), "q" + QUERY_IDS.incrementAndGet()).report()) {
      rows.add(Arrays.asList(row));
    }
    return rows;
  }

  /** The rows of a query, with text as String. */
  List<List<Object>> query(String sql, Object... parameters) {
    Prepared prepared = engine.prepare(session, sql);
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution exec = engine.execute(session, prepared, List.of(parameters), "q" + QUERY_IDS.incrementAndGet())) {
      while (exec.next()) {
        VectorSchemaRoot root = exec.root();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            Object value = v.getObject(r);
            row.add(value instanceof Text ? value.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  /** The plan of a query, as EXPLAIN prints it. */
  String explain(String sql) {
    StringBuilder plan = new StringBuilder();
    for (List<Object> line : query("EXPLAIN " + sql)) {
      plan.append(line.get(0)).append('\n');
    }
    return plan.toString();
  }

  @Override
  public void close() {
    try {
      catalog.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    allocator.close();
  }
}

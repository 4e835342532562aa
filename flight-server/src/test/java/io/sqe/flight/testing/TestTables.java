package io.sqe.flight.testing;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.sample.IcebergAppender;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;

/** Creates Iceberg tables with rows for tests, straight through the catalog. */
public final class TestTables {
  private TestTables() {}

  public static Table create(LakehouseCatalog catalog, String schema, String name, Schema columns, List<Record> rows, long maxRowsPerFile) {
    if (!catalog.schemaExists(schema)) {
      catalog.namespaces().createNamespace(Namespace.of(schema));
    }
    Table table = catalog.iceberg().createTable(TableIdentifier.of(schema, name), columns);
    if (!rows.isEmpty()) {
      IcebergAppender.builder(table).maxRowsPerFile(maxRowsPerFile).build().append(rows);
    }
    catalog.invalidate(TableIdentifier.of(schema, name));
    return catalog.loadTable(TableIdentifier.of(schema, name)).orElseThrow();
  }
}

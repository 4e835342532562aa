package io.sqe.write.ddl;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A table or view name of a statement, resolved against the session: the catalog and the
 * Iceberg identifier, with the name as written for error positions.
 */
record ObjectName(LakehouseCatalog catalog, TableIdentifier id, SqlIdentifier node) {
  ObjectName {
    requireNonNull(catalog, "catalog is null");
    requireNonNull(id, "id is null");
    requireNonNull(node, "node is null");
  }

  String schema() {
    return id.namespace().level(0);
  }

  Namespace namespace() {
    return id.namespace();
  }

  /** {@code catalog.schema.name}, as messages show it. */
  String qualified() {
    return catalog.name() + "." + id;
  }
}

package io.sqe.write.ddl;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.iceberg.catalog.Namespace;

/** A schema name of a statement, resolved against the session: the catalog and the namespace. */
record SchemaName(LakehouseCatalog catalog, Namespace namespace, SqlIdentifier node) {
  SchemaName {
    requireNonNull(catalog, "catalog is null");
    requireNonNull(namespace, "namespace is null");
    requireNonNull(node, "node is null");
  }

  String qualified() {
    return catalog.name() + "." + namespace;
  }
}

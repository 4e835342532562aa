package io.sqe.infoschema;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import org.apache.iceberg.catalog.Namespace;

/** A schema of one catalog: the Iceberg namespace and the name SQL uses for it. */
public record SchemaRef(LakehouseCatalog catalog, Namespace namespace, String name) {
  public SchemaRef {
    requireNonNull(catalog, "catalog is null");
    requireNonNull(namespace, "namespace is null");
    requireNonNull(name, "name is null");
  }

  static SchemaRef of(LakehouseCatalog catalog, Namespace namespace) {
    return new SchemaRef(catalog, namespace, String.join(".", namespace.levels()));
  }

  static SchemaRef named(LakehouseCatalog catalog, String name) {
    return new SchemaRef(catalog, Namespace.of(name), name);
  }

  public String catalogName() {
    return catalog.name();
  }
}

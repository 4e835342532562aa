package io.sqe.infoschema;

import static io.sqe.infoschema.MetadataTable.Column.name;
import static io.sqe.infoschema.MetadataTable.Column.text;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Principal;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;

/** information_schema.schemata: the catalog's schemas (Iceberg namespaces). */
final class SchemataTable extends MetadataTable {
  /** The namespace property some catalogs (Hive, Polaris) record the owner in. */
  private static final String OWNER_PROPERTY = "owner";

  SchemataTable(LakehouseCatalog catalog, Principal principal, CatalogMetadata metadata) {
    super(
        catalog,
        principal,
        metadata,
        List.of(name("catalog_name", Role.CATALOG), name("schema_name", Role.SCHEMA), text("schema_owner", true)));
  }

  @Override
  List<Object[]> rows(Request request) {
    List<Object[]> rows = new ArrayList<>();
    if (!request.filter(Role.CATALOG).accepts(catalog.name())) {
      return rows;
    }
    boolean owners = request.reads("schema_owner");
    for (SchemaRef schema : metadata.schemas(catalog, principal, request.filter(Role.SCHEMA))) {
      rows.add(new Object[] {catalog.name(), schema.name(), owners ? owner(schema) : null});
    }
    return rows;
  }

  private String owner(SchemaRef schema) {
    try {
      return catalog.namespaces().loadNamespaceMetadata(schema.namespace()).get(OWNER_PROPERTY);
    } catch (NoSuchNamespaceException e) {
      return null;
    }
  }
}

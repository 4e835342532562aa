package io.sqe.infoschema;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.plan.SystemSchema;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.util.List;
import java.util.Map;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;

/**
 * The {@code information_schema} of every catalog: schemata, tables, columns, views,
 * table_constraints and key_column_usage, showing what the session's principal may see of that
 * catalog (it does not list itself). Conditions on catalog, schema and table names reach the
 * catalog calls.
 */
public final class InformationSchema implements SystemSchema {
  public static final String NAME = "information_schema";

  private final CatalogMetadata metadata;

  public InformationSchema(CatalogMetadata metadata) {
    this.metadata = requireNonNull(metadata, "metadata is null");
  }

  /**
   * The system schemas this module adds to the engine: information_schema in every catalog, and
   * Trino's system.jdbc and system.metadata over {@code catalogs} in the system catalog.
   */
  public static List<SystemSchema> schemas(CatalogMetadata metadata, Catalogs catalogs) {
    return List.of(new InformationSchema(metadata), new SystemJdbcSchema(metadata, catalogs), new SystemMetadataSchema(metadata, catalogs));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Schema schema(LakehouseCatalog catalog, Session session) {
    Principal principal = session.principal();
    Map<String, Table> tables =
        Map.of(
            "schemata", new SchemataTable(catalog, principal, metadata),
            "tables", new TablesTable(catalog, principal, metadata),
            "columns", new ColumnsTable(catalog, principal, metadata),
            "views", new ViewsTable(catalog, principal, metadata),
            "table_constraints", new TableConstraintsTable(catalog, principal, metadata),
            "key_column_usage", new KeyColumnUsageTable(catalog, principal, metadata));
    return new AbstractSchema() {
      @Override
      protected Map<String, Table> getTableMap() {
        return tables;
      }
    };
  }
}

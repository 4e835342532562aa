package io.sqe.infoschema;

import static io.sqe.infoschema.MetadataTable.Column.of;
import static io.sqe.infoschema.MetadataTable.Column.text;
import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.plan.MaterializedViews;
import io.sqe.engine.plan.SystemSchema;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.infoschema.MetadataTable.Column;
import io.sqe.infoschema.MetadataTable.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.view.View;

/**
 * Trino's {@code system.metadata} schema, in the {@code system} catalog, as far as Trino's clients
 * read it: {@code table_comments} (the SQLAlchemy dialect's table comments) and {@code
 * materialized_views} (which dbt-trino joins when it lists relations: a materialized view is
 * also listed as the Iceberg view it is stored as).
 */
final class SystemMetadataSchema implements SystemSchema {
  static final String NAME = "metadata";

  private final CatalogMetadata metadata;
  private final Catalogs catalogs;

  SystemMetadataSchema(CatalogMetadata metadata, Catalogs catalogs) {
    this.metadata = requireNonNull(metadata, "metadata is null");
    this.catalogs = requireNonNull(catalogs, "catalogs is null");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean inSystemCatalog() {
    return true;
  }

  @Override
  public Schema schema(LakehouseCatalog catalog, Session session) {
    Principal principal = session.principal();
    Map<String, Table> tables = Map.of(
        "table_comments", new TableComments(catalogs, principal, metadata),
        "materialized_views", new JdbcTable(catalogs, principal, metadata, List.of(
            Column.name("catalog_name", Role.CATALOG), Column.name("schema_name", Role.SCHEMA), Column.name("name", Role.TABLE),
            text("storage_catalog", true), text("storage_schema", true), text("storage_table", true), text("freshness", true),
            of("last_fresh_time", SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, true), text("comment", true),
            text("definition", true))) {
          @Override
          List<Object[]> rows(Request request) {
            return materializedViews(relations(request));
          }
        });
    return new AbstractSchema() {
      @Override
      protected Map<String, Table> getTableMap() {
        return tables;
      }
    };
  }

  /**
   * A row per materialized view among {@code relations}, with Trino's freshness: FRESH when no
   * source moved since its refresh (last_fresh_time is then the refresh's commit), else STALE.
   */
  private static List<Object[]> materializedViews(List<Relation> relations) {
    List<Object[]> rows = new ArrayList<>();
    for (Relation relation : relations) {
      if (relation.type() != RelationType.VIEW) {
        continue;
      }
      LakehouseCatalog catalog = relation.schema().catalog();
      Optional<View> view = MaterializedViews.load(catalog, relation.id());
      if (view.isEmpty()) {
        continue;
      }
      Optional<TableIdentifier> storageId = MaterializedViews.storageTable(view.get(), relation.schema().name());
      Optional<org.apache.iceberg.Table> storage = storageId.flatMap(catalog::loadTable);
      boolean fresh = storage.isPresent()
          && MaterializedViews.freshness(catalog, storage.get(), Duration.ZERO, System.currentTimeMillis()).usable();
      Optional<RelationDetails> details = relation.details();
      rows.add(new Object[] {
        catalog.name(), relation.schema().name(), relation.name(),
        catalog.name(), storageId.map(id -> id.namespace().toString()).orElse(null), storageId.map(TableIdentifier::name).orElse(null),
        fresh ? "FRESH" : "STALE",
        fresh ? MetadataTable.micros(storage.get().currentSnapshot().timestampMillis()) : null,
        details.map(RelationDetails::comment).orElse(null),
        details.map(RelationDetails::viewDefinition).orElse(null)
      });
    }
    return rows;
  }

  /** system.metadata.table_comments: each visible table's and view's comment. */
  private static final class TableComments extends JdbcTable {
    TableComments(Catalogs catalogs, Principal principal, CatalogMetadata metadata) {
      super(catalogs, principal, metadata, List.of(
          Column.name("catalog_name", Role.CATALOG), Column.name("schema_name", Role.SCHEMA), Column.name("table_name", Role.TABLE),
          text("comment", true)));
    }

    @Override
    List<Object[]> rows(Request request) {
      List<Object[]> rows = new ArrayList<>();
      for (Relation relation : relations(request)) {
        rows.add(new Object[] {
          relation.schema().catalogName(), relation.schema().name(), relation.name(),
          relation.details().map(RelationDetails::comment).orElse(null)
        });
      }
      return rows;
    }
  }
}

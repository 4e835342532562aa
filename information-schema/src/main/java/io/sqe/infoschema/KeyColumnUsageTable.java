package io.sqe.infoschema;

import static io.sqe.infoschema.MetadataTable.Column.name;
import static io.sqe.infoschema.MetadataTable.Column.of;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Principal;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * information_schema.key_column_usage: the columns of each table's primary key (its Iceberg
 * identifier fields) in column order; a field nested in a struct is named by its dotted path.
 */
final class KeyColumnUsageTable extends MetadataTable {
  KeyColumnUsageTable(LakehouseCatalog catalog, Principal principal, CatalogMetadata metadata) {
    super(
        catalog,
        principal,
        metadata,
        TableConstraintsTable.constraintColumns(name("column_name", Role.NONE), of("ordinal_position", SqlTypeName.INTEGER, false)));
  }

  @Override
  List<Object[]> rows(Request request) {
    List<Object[]> rows = new ArrayList<>();
    for (PrimaryKeys.KeyColumn key : PrimaryKeys.columns(metadata, principal, relations(request, PrimaryKeys.TABLES))) {
      Relation table = key.table();
      String schema = table.schema().name();
      rows.add(
          new Object[] {
            catalog.name(), schema, key.constraintName(), catalog.name(), schema, table.name(), key.column(), key.position()
          });
    }
    return rows;
  }
}

package io.sqe.infoschema;

import static io.sqe.infoschema.MetadataTable.Column.name;
import static io.sqe.infoschema.MetadataTable.Column.text;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Principal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

/**
 * information_schema.table_constraints: one PRIMARY KEY per table with Iceberg identifier fields.
 * Iceberg does not enforce them, and they have no name of their own: SQE names them
 * {@code <table>_pkey}.
 */
final class TableConstraintsTable extends MetadataTable {
  static final String PRIMARY_KEY = "PRIMARY KEY";

  TableConstraintsTable(LakehouseCatalog catalog, Principal principal, CatalogMetadata metadata) {
    super(
        catalog,
        principal,
        metadata,
        constraintColumns(name("constraint_type", Role.NONE), text("enforced", false)));
  }

  /** The columns that name a constraint and its table, then {@code more}. */
  static List<Column> constraintColumns(Column... more) {
    List<Column> columns = new ArrayList<>(List.of(
        name("constraint_catalog", Role.CATALOG), name("constraint_schema", Role.SCHEMA), name("constraint_name", Role.NONE)));
    columns.addAll(relationColumns(more));
    return columns;
  }

  @Override
  List<Object[]> rows(Request request) {
    List<Object[]> rows = new ArrayList<>();
    for (Relation table : relations(request, EnumSet.of(RelationType.TABLE))) {
      Optional<RelationDetails> details = table.details();
      if (details.isPresent() && !details.get().primaryKey().isEmpty()) {
        String schema = table.schema().name();
        rows.add(
            new Object[] {
              catalog.name(), schema, PrimaryKeys.name(table), catalog.name(), schema, table.name(), PRIMARY_KEY, "NO"
            });
      }
    }
    return rows;
  }
}

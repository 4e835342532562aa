package io.sqe.infoschema;

import static io.sqe.infoschema.MetadataTable.Column.name;
import static io.sqe.infoschema.MetadataTable.Column.of;
import static io.sqe.infoschema.MetadataTable.Column.text;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * information_schema.tables: the catalog's tables ({@code BASE TABLE}) and views ({@code VIEW}),
 * with their comment, creation and last change times and row counts. A relation that cannot be
 * loaded is still listed, with those details NULL; so is the row count of a table the principal
 * may not see as stored ({@link io.sqe.engine.session.ObjectVisibility#canSeeRowCount}).
 */
final class TablesTable extends MetadataTable {
  TablesTable(LakehouseCatalog catalog, Principal principal, CatalogMetadata metadata) {
    super(
        catalog,
        principal,
        metadata,
        relationColumns(
            name("table_type", Role.TABLE_TYPE),
            text("comment", true),
            of("created", SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, true),
            of("last_altered", SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, true),
            of("row_count", SqlTypeName.BIGINT, true)));
  }

  @Override
  List<Object[]> rows(Request request) {
    boolean details = request.reads("comment", "created", "last_altered", "row_count");
    List<Object[]> rows = new ArrayList<>();
    for (Relation relation : relations(request, request.types())) {
      Optional<RelationDetails> loaded = details ? relation.details() : Optional.empty();
      rows.add(
          new Object[] {
            catalog.name(),
            relation.schema().name(),
            relation.name(),
            relation.type().sqlName(),
            loaded.map(RelationDetails::comment).orElse(null),
            micros(loaded.map(RelationDetails::createdMillis).orElse(null)),
            micros(loaded.map(RelationDetails::lastAlteredMillis).orElse(null)),
            metadata.visibility().canSeeRowCount(principal, catalog.name(), relation.schema().name(), relation.name())
                ? loaded.map(RelationDetails::rowCount).orElse(null)
                : null
          });
    }
    return rows;
  }
}

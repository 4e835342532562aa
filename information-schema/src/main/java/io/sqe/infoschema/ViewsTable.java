package io.sqe.infoschema;

import static io.sqe.infoschema.MetadataTable.Column.text;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Principal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * information_schema.views: the catalog's views with their SQL (SQE's dialect when the view has
 * it), NULL for a user from whom a table the view reads hides columns.
 */
final class ViewsTable extends MetadataTable {
  ViewsTable(LakehouseCatalog catalog, Principal principal, CatalogMetadata metadata) {
    super(
        catalog,
        principal,
        metadata,
        relationColumns(text("view_definition", true)));
  }

  @Override
  List<Object[]> rows(Request request) {
    boolean definitions = request.reads("view_definition");
    List<Object[]> rows = new ArrayList<>();
    for (Relation view : relations(request, EnumSet.of(RelationType.VIEW))) {
      String definition = definitions ? metadata.viewDefinition(principal, view).orElse(null) : null;
      rows.add(new Object[] {catalog.name(), view.schema().name(), view.name(), definition});
    }
    return rows;
  }
}

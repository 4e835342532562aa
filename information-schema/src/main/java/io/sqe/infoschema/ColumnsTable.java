package io.sqe.infoschema;

import static io.sqe.infoschema.MetadataTable.Column.name;
import static io.sqe.infoschema.MetadataTable.Column.of;
import static io.sqe.infoschema.MetadataTable.Column.text;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Principal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * information_schema.columns: the top-level columns of the catalog's tables and views, with SQE's
 * SQL type names. Strings are unbounded, so character_maximum_length is always NULL.
 */
final class ColumnsTable extends MetadataTable {
  ColumnsTable(LakehouseCatalog catalog, Principal principal, CatalogMetadata metadata) {
    super(
        catalog,
        principal,
        metadata,
        relationColumns(
            name("column_name", Role.NONE),
            of("ordinal_position", SqlTypeName.INTEGER, false),
            text("column_default", true),
            text("is_nullable", false),
            text("data_type", false),
            of("numeric_precision", SqlTypeName.INTEGER, true),
            of("numeric_scale", SqlTypeName.INTEGER, true),
            of("datetime_precision", SqlTypeName.INTEGER, true),
            of("character_maximum_length", SqlTypeName.INTEGER, true),
            text("comment", true)));
  }

  @Override
  List<Object[]> rows(Request request) {
    List<Object[]> rows = new ArrayList<>();
    for (Relation relation : relations(request, EnumSet.allOf(RelationType.class))) {
      for (ColumnInfo column : metadata.columns(principal, relation).orElse(List.of())) {
        rows.add(
            new Object[] {
              catalog.name(),
              relation.schema().name(),
              relation.name(),
              column.name(),
              column.ordinalPosition(),
              column.defaultValue(),
              column.nullable() ? "YES" : "NO",
              column.dataType(),
              column.numericPrecision(),
              column.numericScale(),
              column.datetimePrecision(),
              null,
              column.comment()
            });
      }
    }
    return rows;
  }
}

package io.sqe.flight.metadata;

import io.sqe.catalog.types.ArrowTypeMapping;
import io.sqe.infoschema.ColumnInfo;
import io.sqe.infoschema.Relation;
import io.sqe.infoschema.RelationType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The Arrow schema GetTables reports for a table or view: the columns as query results carry them,
 * each annotated with the Flight SQL column metadata that JDBC {@code getColumns} and ADBC
 * {@code GetObjects} read (type name, precision and scale, origin, comment), taken from the same
 * {@link ColumnInfo} as information_schema.columns.
 *
 * <p>Boolean metadata values are "1" and "0", as the Flight SQL spec and Arrow's
 * {@link FlightSqlColumnMetadata} define them.
 */
final class TableSchemas {
  private TableSchemas() {}

  /** The annotated schema of the visible columns of a relation whose Iceberg schema is {@code iceberg}. */
  static Schema toArrow(Relation relation, org.apache.iceberg.Schema iceberg, List<ColumnInfo> columns) {
    List<Field> plain = ArrowTypeMapping.toArrow(iceberg).getFields();
    List<Field> annotated = new ArrayList<>(columns.size());
    for (ColumnInfo column : columns) {
      Field field = plain.get(column.ordinalPosition() - 1);
      Map<String, String> metadata = new HashMap<>(field.getMetadata());
      metadata.putAll(columnMetadata(relation, column).getMetadataMap());
      annotated.add(
          new Field(
              field.getName(),
              new FieldType(field.isNullable(), field.getType(), field.getDictionary(), metadata),
              field.getChildren()));
    }
    return new Schema(annotated);
  }

  private static FlightSqlColumnMetadata columnMetadata(Relation relation, ColumnInfo column) {
    Type type = column.field().type();
    FlightSqlColumnMetadata.Builder builder =
        new FlightSqlColumnMetadata.Builder()
            .catalogName(relation.schema().catalogName())
            .schemaName(relation.schema().name())
            .tableName(relation.name())
            .typeName(column.dataType())
            .isAutoIncrement(false)
            .isCaseSensitive(type.typeId() == Type.TypeID.STRING)
            // A view's columns cannot be written.
            .isReadOnly(relation.type() == RelationType.VIEW)
            .isSearchable(true);
    switch (type.typeId()) {
      case DECIMAL:
        builder.precision(column.numericPrecision()).scale(column.numericScale());
        break;
      // JDBC reads PRECISION as COLUMN_SIZE, which for binary types is their length in bytes;
      // without it the driver has no size for a fixed-size binary.
      case FIXED:
        builder.precision(((Types.FixedType) type).length());
        break;
      case UUID:
        builder.precision(16);
        break;
      default:
        break;
    }
    if (column.comment() != null) {
      builder.remarks(column.comment());
    }
    return builder.build();
  }
}

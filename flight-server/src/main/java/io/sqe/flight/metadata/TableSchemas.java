package io.sqe.flight.metadata;

import io.sqe.catalog.types.ArrowTypeMapping;
import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The Arrow schema GetTables reports for a table or view: the columns as query results carry them,
 * each annotated with the Flight SQL column metadata that JDBC {@code getColumns} and ADBC
 * {@code GetObjects} read (type name, precision and scale, origin, comment).
 *
 * <p>Boolean metadata values are "1" and "0", as the Flight SQL spec and Arrow's
 * {@link FlightSqlColumnMetadata} define them.
 */
final class TableSchemas {
  private static final RelDataTypeFactory TYPE_FACTORY = new SqeJavaTypeFactory();

  private TableSchemas() {}

  /**
   * The annotated schema of one table.
   *
   * @param readOnly true for a view, whose columns cannot be written
   */
  static Schema toArrow(
      String catalog, String schema, String table, org.apache.iceberg.Schema iceberg, boolean readOnly) {
    List<Types.NestedField> columns = iceberg.columns();
    List<Field> plain = ArrowTypeMapping.toArrow(iceberg).getFields();
    List<Field> annotated = new ArrayList<>(plain.size());
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField column = columns.get(i);
      Field field = plain.get(i);
      Map<String, String> metadata = new HashMap<>(field.getMetadata());
      metadata.putAll(columnMetadata(catalog, schema, table, column, readOnly).getMetadataMap());
      annotated.add(
          new Field(
              field.getName(),
              new FieldType(field.isNullable(), field.getType(), field.getDictionary(), metadata),
              field.getChildren()));
    }
    return new Schema(annotated);
  }

  private static FlightSqlColumnMetadata columnMetadata(
      String catalog, String schema, String table, Types.NestedField column, boolean readOnly) {
    RelDataType type = CalciteTypeMapping.toCalcite(TYPE_FACTORY, column.type(), column.isOptional());
    FlightSqlColumnMetadata.Builder builder =
        new FlightSqlColumnMetadata.Builder()
            .catalogName(catalog)
            .schemaName(schema)
            .tableName(table)
            .typeName(CalciteTypeMapping.sqlTypeName(type))
            .isAutoIncrement(false)
            .isCaseSensitive(column.type().typeId() == Type.TypeID.STRING)
            .isReadOnly(readOnly)
            .isSearchable(true);
    switch (column.type().typeId()) {
      case DECIMAL: {
        Types.DecimalType decimal = (Types.DecimalType) column.type();
        builder.precision(decimal.precision()).scale(decimal.scale());
        break;
      }
      // JDBC reads PRECISION as COLUMN_SIZE, which for binary types is their length in bytes;
      // without it the driver has no size for a fixed-size binary.
      case FIXED:
        builder.precision(((Types.FixedType) column.type()).length());
        break;
      case UUID:
        builder.precision(16);
        break;
      default:
        break;
    }
    if (column.doc() != null) {
      builder.remarks(column.doc());
    }
    return builder.build();
  }
}

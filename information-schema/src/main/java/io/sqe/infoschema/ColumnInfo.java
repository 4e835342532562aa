package io.sqe.infoschema;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;

/**
 * One top-level column of a table or view in SQL terms: the type as SQE names it (the name CAST
 * accepts and query results carry), its precision and scale, nullability, default and comment.
 *
 * @param ordinalPosition 1 for the first column
 */
public record ColumnInfo(Types.NestedField field, int ordinalPosition) {
  private static final RelDataTypeFactory TYPES = new SqeJavaTypeFactory();
  /** Iceberg keeps times and timestamps in microseconds. */
  private static final int MICROSECONDS = 6;

  public ColumnInfo {
    requireNonNull(field, "field is null");
  }

  public String name() {
    return field.name();
  }

  /** The column's type as the engine sees it. */
  public RelDataType sqlType() {
    return CalciteTypeMapping.toCalcite(TYPES, field.type(), field.isOptional());
  }

  /** The type's SQL name, e.g. {@code DECIMAL(12, 2)}, {@code TIMESTAMP(6) WITH TIME ZONE}. */
  public String dataType() {
    return CalciteTypeMapping.sqlTypeName(sqlType());
  }

  public boolean nullable() {
    return field.isOptional();
  }

  /** Decimal digits of a number type (a decimal's declared precision); null for other types. */
  public Integer numericPrecision() {
    switch (field.type().typeId()) {
      case INTEGER:
      case LONG:
      case FLOAT:
      case DOUBLE:
      case DECIMAL:
        return sqlType().getPrecision();
      default:
        return null;
    }
  }

  /** Digits after the point of an exact number type; null for other types. */
  public Integer numericScale() {
    switch (field.type().typeId()) {
      case INTEGER:
      case LONG:
        return 0;
      case DECIMAL:
        return ((Types.DecimalType) field.type()).scale();
      default:
        return null;
    }
  }

  /** Fractional second digits of a date or time type (0 for DATE); null for other types. */
  public Integer datetimePrecision() {
    switch (field.type().typeId()) {
      case DATE:
        return 0;
      case TIME:
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        return MICROSECONDS;
      default:
        return null;
    }
  }

  /** The column's write default as a SQL literal, or null when it has none. */
  public String defaultValue() {
    Object value = field.writeDefault();
    return value == null ? null : literal(field.type(), value);
  }

  /** The column's documentation, which COMMENT ON COLUMN sets. */
  public String comment() {
    return field.doc();
  }

  private static String literal(Type type, Object value) {
    switch (type.typeId()) {
      case BOOLEAN:
        return ((Boolean) value) ? "TRUE" : "FALSE";
      case INTEGER:
      case LONG:
      case FLOAT:
      case DOUBLE:
        return value.toString();
      case DECIMAL:
        return ((BigDecimal) value).toPlainString();
      case STRING:
        return quoted(value.toString());
      case BINARY:
      case FIXED:
        return "X'" + HexFormat.of().withUpperCase().formatHex(ByteBuffers.toByteArray((ByteBuffer) value)) + "'";
      case DATE:
        return "DATE " + quoted(human(type, value));
      case TIME:
        return "TIME " + quoted(human(type, value));
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        return "TIMESTAMP " + quoted(human(type, value).replace('T', ' '));
      default:
        return quoted(human(type, value));
    }
  }

  @SuppressWarnings("unchecked")
  private static String human(Type type, Object value) {
    return ((Transform<Object, Object>) (Transform<?, ?>) Transforms.identity()).toHumanString(type, value);
  }

  private static String quoted(String text) {
    return "'" + text.replace("'", "''") + "'";
  }
}

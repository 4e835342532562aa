package io.sqe.catalog.types;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rel.type.StructKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Maps Iceberg types to Calcite's, and Calcite result types to Arrow.
 *
 * <p>Timestamps are TIMESTAMP(6): SQE's engine carries them as microseconds. Times are TIME(3):
 * Calcite's runtime holds them as milliseconds in an int; their Arrow type stays microseconds.
 */
public final class CalciteTypeMapping {
  /** Precision of TIME values inside Calcite's runtime (milliseconds). */
  public static final int TIME_PRECISION = 3;
  /** Precision of TIMESTAMP values inside SQE's engine (microseconds). */
  public static final int TIMESTAMP_PRECISION = 6;

  private CalciteTypeMapping() {}

  public static RelDataType toCalcite(RelDataTypeFactory factory, Schema schema) {
    return struct(factory, schema.columns());
  }

  private static RelDataType struct(RelDataTypeFactory factory, List<Types.NestedField> fields) {
    List<RelDataType> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (Types.NestedField f : fields) {
      names.add(f.name());
      types.add(toCalcite(factory, f.type(), f.isOptional()));
    }
    return factory.createStructType(StructKind.FULLY_QUALIFIED, types, names);
  }

  public static RelDataType toCalcite(RelDataTypeFactory factory, Type type, boolean nullable) {
    RelDataType result;
    switch (type.typeId()) {
      case BOOLEAN:
        result = factory.createSqlType(SqlTypeName.BOOLEAN);
        break;
      case INTEGER:
        result = factory.createSqlType(SqlTypeName.INTEGER);
        break;
      case LONG:
        result = factory.createSqlType(SqlTypeName.BIGINT);
        break;
      case FLOAT:
        result = factory.createSqlType(SqlTypeName.REAL);
        break;
      case DOUBLE:
        result = factory.createSqlType(SqlTypeName.DOUBLE);
        break;
      case DECIMAL: {
        Types.DecimalType d = (Types.DecimalType) type;
        result = factory.createSqlType(SqlTypeName.DECIMAL, d.precision(), d.scale());
        break;
      }
      case DATE:
        result = factory.createSqlType(SqlTypeName.DATE);
        break;
      case TIME:
        result = factory.createSqlType(SqlTypeName.TIME, TIME_PRECISION);
        break;
      case TIMESTAMP:
        result =
            factory.createSqlType(
                ((Types.TimestampType) type).shouldAdjustToUTC()
                    ? SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE
                    : SqlTypeName.TIMESTAMP,
                TIMESTAMP_PRECISION);
        break;
      case TIMESTAMP_NANO:
        result =
            factory.createSqlType(
                ((Types.TimestampNanoType) type).shouldAdjustToUTC()
                    ? SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE
                    : SqlTypeName.TIMESTAMP,
                TIMESTAMP_PRECISION);
        break;
      case STRING:
        result = factory.createSqlType(SqlTypeName.VARCHAR);
        break;
      case UUID:
        result = factory.createSqlType(SqlTypeName.UUID);
        break;
      case FIXED:
        result = factory.createSqlType(SqlTypeName.BINARY, ((Types.FixedType) type).length());
        break;
      case BINARY:
        result = factory.createSqlType(SqlTypeName.VARBINARY);
        break;
      case STRUCT:
        result = struct(factory, type.asStructType().fields());
        break;
      case LIST: {
        Types.ListType list = type.asListType();
        result = factory.createArrayType(toCalcite(factory, list.elementType(), list.isElementOptional()), -1);
        break;
      }
      case MAP: {
        Types.MapType map = type.asMapType();
        result =
            factory.createMapType(
                toCalcite(factory, map.keyType(), false),
                toCalcite(factory, map.valueType(), map.isValueOptional()));
        break;
      }
      default:
        throw new UnsupportedTypeException("Iceberg type " + type + " is not supported");
    }
    // Calcite's createTypeWithNullability would make every field of a nullable struct nullable;
    // Iceberg keeps required fields inside optional structs, and so must the result schema.
    return factory.enforceTypeWithNullability(result, nullable);
  }

  /**
   * An Iceberg schema for a Calcite row type (the columns of a CREATE TABLE or of a CTAS query),
   * with field ids numbered from 1; Iceberg reassigns them when the schema becomes a table's.
   */
  public static Schema toIcebergSchema(RelDataType rowType) {
    java.util.concurrent.atomic.AtomicInteger ids = new java.util.concurrent.atomic.AtomicInteger();
    List<Types.NestedField> columns = new ArrayList<>();
    for (RelDataTypeField f : rowType.getFieldList()) {
      columns.add(nested(ids, f.getName(), f.getType()));
    }
    return new Schema(columns);
  }

  private static Types.NestedField nested(java.util.concurrent.atomic.AtomicInteger ids, String name, RelDataType type) {
    int id = ids.incrementAndGet();
    Type icebergType = toIceberg(ids, type);
    return type.isNullable()
        ? Types.NestedField.optional(id, name, icebergType)
        : Types.NestedField.required(id, name, icebergType);
  }

  /** The Iceberg type for a Calcite type; fails for types Iceberg cannot store. */
  public static Type toIcebergType(RelDataType type) {
    return toIceberg(new java.util.concurrent.atomic.AtomicInteger(), type);
  }

  private static Type toIceberg(java.util.concurrent.atomic.AtomicInteger ids, RelDataType type) {
    switch (type.getSqlTypeName()) {
      case BOOLEAN:
        return Types.BooleanType.get();
      case TINYINT:
      case SMALLINT:
      case INTEGER:
        return Types.IntegerType.get();
      case BIGINT:
        return Types.LongType.get();
      case REAL:
        return Types.FloatType.get();
      case FLOAT:
      case DOUBLE:
        return Types.DoubleType.get();
      case DECIMAL:
        if (type.getPrecision() > 38) {
          throw new UnsupportedTypeException("Iceberg decimals hold at most 38 digits, not " + type.getPrecision());
        }
        return Types.DecimalType.of(type.getPrecision(), Math.max(0, type.getScale()));
      case DATE:
        return Types.DateType.get();
      case TIME:
        return Types.TimeType.get();
      case TIMESTAMP:
        return Types.TimestampType.withoutZone();
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
      case TIMESTAMP_TZ:
        return Types.TimestampType.withZone();
      case CHAR:
      case VARCHAR:
        return Types.StringType.get();
      case UUID:
        return Types.UUIDType.get();
      case BINARY:
        return type.getPrecision() > 0 ? Types.FixedType.ofLength(type.getPrecision()) : Types.BinaryType.get();
      case VARBINARY:
        return Types.BinaryType.get();
      case ROW: {
        List<Types.NestedField> fields = new ArrayList<>();
        for (RelDataTypeField f : type.getFieldList()) {
          fields.add(nested(ids, f.getName(), f.getType()));
        }
        return Types.StructType.of(fields);
      }
      case ARRAY:
      case MULTISET: {
        RelDataType element = type.getComponentType();
        int elementId = ids.incrementAndGet();
        Type elementType = toIceberg(ids, element);
        return element.isNullable()
            ? Types.ListType.ofOptional(elementId, elementType)
            : Types.ListType.ofRequired(elementId, elementType);
      }
      case MAP: {
        int keyId = ids.incrementAndGet();
        int valueId = ids.incrementAndGet();
        Type key = toIceberg(ids, type.getKeyType());
        Type value = toIceberg(ids, type.getValueType());
        return type.getValueType().isNullable()
            ? Types.MapType.ofOptional(keyId, valueId, key, value)
            : Types.MapType.ofRequired(keyId, valueId, key, value);
      }
      default:
        throw new UnsupportedTypeException(
            "Type " + sqlTypeName(type) + " cannot be stored in an Iceberg table");
    }
  }

  /** The Arrow schema of a result with the given Calcite row type. */
  public static org.apache.arrow.vector.types.pojo.Schema toArrowSchema(RelDataType rowType) {
    List<Field> fields = new ArrayList<>();
    for (RelDataTypeField f : rowType.getFieldList()) {
      fields.add(toArrow(f.getName(), f.getType()));
    }
    return new org.apache.arrow.vector.types.pojo.Schema(fields);
  }

  public static Field toArrow(String name, RelDataType type) {
    boolean nullable = type.isNullable();
    switch (type.getSqlTypeName()) {
      case ROW: {
        List<Field> children = new ArrayList<>();
        for (RelDataTypeField f : type.getFieldList()) {
          children.add(toArrow(f.getName(), f.getType()));
        }
        return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
      }
      case ARRAY:
      case MULTISET: {
        Field element = toArrow("element", type.getComponentType());
        return new Field(name, new FieldType(nullable, ArrowType.List.INSTANCE, null), List.of(element));
      }
      case MAP: {
        Field key = toArrow("key", type.getKeyType());
        key = new Field("key", new FieldType(false, key.getType(), null, key.getMetadata()), key.getChildren());
        Field value = toArrow("value", type.getValueType());
        Field entries =
            new Field("entries", new FieldType(false, ArrowType.Struct.INSTANCE, null), List.of(key, value));
        return new Field(name, new FieldType(nullable, new ArrowType.Map(false), null), List.of(entries));
      }
      case UUID:
        return new Field(
            name,
            new FieldType(
                nullable,
                new ArrowType.FixedSizeBinary(16),
                null,
                Map.of(ArrowTypeMapping.EXTENSION_NAME, ArrowTypeMapping.UUID_EXTENSION, ArrowTypeMapping.EXTENSION_METADATA, "")),
            List.of());
      default:
        return new Field(name, new FieldType(nullable, toArrowScalar(type), null), List.of());
    }
  }

  private static ArrowType toArrowScalar(RelDataType type) {
    switch (type.getSqlTypeName()) {
      case BOOLEAN:
        return ArrowType.Bool.INSTANCE;
      case TINYINT:
        return new ArrowType.Int(8, true);
      case SMALLINT:
        return new ArrowType.Int(16, true);
      case INTEGER:
        return new ArrowType.Int(32, true);
      case BIGINT:
        return new ArrowType.Int(64, true);
      case DECIMAL:
        return new ArrowType.Decimal(type.getPrecision(), Math.max(0, type.getScale()), 128);
      case REAL:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case FLOAT:
      case DOUBLE:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DATE:
        return new ArrowType.Date(DateUnit.DAY);
      case TIME:
      case TIME_WITH_LOCAL_TIME_ZONE:
        return new ArrowType.Time(TimeUnit.MICROSECOND, 64);
      case TIMESTAMP:
        return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
      case TIMESTAMP_TZ:
        return new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
      case INTERVAL_YEAR:
      case INTERVAL_YEAR_MONTH:
      case INTERVAL_MONTH:
        return new ArrowType.Interval(IntervalUnit.YEAR_MONTH);
      case INTERVAL_DAY:
      case INTERVAL_DAY_HOUR:
      case INTERVAL_DAY_MINUTE:
      case INTERVAL_DAY_SECOND:
      case INTERVAL_HOUR:
      case INTERVAL_HOUR_MINUTE:
      case INTERVAL_HOUR_SECOND:
      case INTERVAL_MINUTE:
      case INTERVAL_MINUTE_SECOND:
      case INTERVAL_SECOND:
        return new ArrowType.Interval(IntervalUnit.DAY_TIME);
      case BINARY:
        return type.getPrecision() > 0
            ? new ArrowType.FixedSizeBinary(type.getPrecision())
            : ArrowType.Binary.INSTANCE;
      case VARBINARY:
        return ArrowType.Binary.INSTANCE;
      case NULL:
        return ArrowType.Null.INSTANCE;
      default:
        // CHAR, VARCHAR and anything without an Arrow counterpart travel as text.
        return ArrowType.Utf8.INSTANCE;
    }
  }

  /**
   * The SQL name of a type as Trino spells it, the one spelling of every client-facing type name
   * (result and column metadata, information_schema, SHOW and DESCRIBE) and one CAST accepts:
   * {@code decimal(12,2)}, {@code timestamp(6) with time zone}, {@code array(bigint)},
   * {@code map(varchar, double)}, {@code row(x integer, "Y" varchar)}. Iceberg's fixed-length
   * binary, which Trino lacks, is {@code binary(n)}.
   */
  public static String sqlTypeName(RelDataType type) {
    switch (type.getSqlTypeName()) {
      case TIMESTAMP:
        return "timestamp(6)";
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
      case TIMESTAMP_TZ:
        return "timestamp(6) with time zone";
      case TIME:
        return "time(6)";
      case CHAR:
      case VARCHAR:
        return "varchar";
      case DECIMAL:
        return "decimal(" + type.getPrecision() + "," + Math.max(0, type.getScale()) + ")";
      case BINARY:
        return type.getPrecision() > 0 ? "binary(" + type.getPrecision() + ")" : "varbinary";
      case ARRAY:
      case MULTISET:
        return "array(" + sqlTypeName(type.getComponentType()) + ")";
      case MAP:
        return "map(" + sqlTypeName(type.getKeyType()) + ", " + sqlTypeName(type.getValueType()) + ")";
      case ROW: {
        StringBuilder name = new StringBuilder("row(");
        for (RelDataTypeField f : type.getFieldList()) {
          if (name.length() > 4) {
            name.append(", ");
          }
          name.append(TrinoType.fieldName(f.getName())).append(' ').append(sqlTypeName(f.getType()));
        }
        return name.append(')').toString();
      }
      case FLOAT:
        return "double";
      case NULL:
        return "unknown";
      default:
        if (SqlTypeName.YEAR_INTERVAL_TYPES.contains(type.getSqlTypeName())) {
          return "interval year to month";
        }
        if (SqlTypeName.DAY_INTERVAL_TYPES.contains(type.getSqlTypeName())) {
          return "interval day to second";
        }
        return type.getSqlTypeName().getName().toLowerCase(Locale.ROOT);
    }
  }
}

package io.sqe.catalog.types;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Maps Iceberg types to Arrow and back without loss.
 *
 * <p>Timestamps and times are microseconds, as Iceberg stores them; timestamptz carries the zone
 * "UTC". UUIDs are 16-byte fixed binaries marked with Arrow's canonical {@code arrow.uuid}
 * extension name so they come back as UUIDs.
 */
public final class ArrowTypeMapping {
  public static final String EXTENSION_NAME = "ARROW:extension:name";
  public static final String EXTENSION_METADATA = "ARROW:extension:metadata";
  public static final String UUID_EXTENSION = "arrow.uuid";

  private ArrowTypeMapping() {}

  public static org.apache.arrow.vector.types.pojo.Schema toArrow(Schema schema) {
    List<Field> fields = new ArrayList<>();
    for (Types.NestedField column : schema.columns()) {
      fields.add(toArrow(column.name(), column.type(), column.isOptional()));
    }
    return new org.apache.arrow.vector.types.pojo.Schema(fields);
  }

  public static Field toArrow(String name, Type type, boolean nullable) {
    switch (type.typeId()) {
      case STRUCT: {
        List<Field> children = new ArrayList<>();
        for (Types.NestedField f : type.asStructType().fields()) {
          children.add(toArrow(f.name(), f.type(), f.isOptional()));
        }
        return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
      }
      case LIST: {
        Types.ListType list = type.asListType();
        Field element = toArrow("element", list.elementType(), list.isElementOptional());
        return new Field(name, new FieldType(nullable, ArrowType.List.INSTANCE, null), List.of(element));
      }
      case MAP: {
        Types.MapType map = type.asMapType();
        Field key = toArrow("key", map.keyType(), false);
        Field value = toArrow("value", map.valueType(), map.isValueOptional());
        Field entries =
            new Field("entries", new FieldType(false, ArrowType.Struct.INSTANCE, null), List.of(key, value));
        return new Field(name, new FieldType(nullable, new ArrowType.Map(false), null), List.of(entries));
      }
      case UUID:
        return new Field(
            name,
            new FieldType(nullable, new ArrowType.FixedSizeBinary(16), null, Map.of(EXTENSION_NAME, UUID_EXTENSION, EXTENSION_METADATA, "")),
            List.of());
      default:
        return new Field(name, new FieldType(nullable, toArrowPrimitive(type.asPrimitiveType()), null), List.of());
    }
  }

  public static ArrowType toArrowPrimitive(Type.PrimitiveType type) {
    switch (type.typeId()) {
      case BOOLEAN:
        return ArrowType.Bool.INSTANCE;
      case INTEGER:
        return new ArrowType.Int(32, true);
      case LONG:
        return new ArrowType.Int(64, true);
      case FLOAT:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case DOUBLE:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DECIMAL: {
        Types.DecimalType d = (Types.DecimalType) type;
        return new ArrowType.Decimal(d.precision(), d.scale(), 128);
      }
      case DATE:
        return new ArrowType.Date(DateUnit.DAY);
      case TIME:
        return new ArrowType.Time(TimeUnit.MICROSECOND, 64);
      case TIMESTAMP:
        return new ArrowType.Timestamp(
            TimeUnit.MICROSECOND, ((Types.TimestampType) type).shouldAdjustToUTC() ? "UTC" : null);
      case TIMESTAMP_NANO:
        return new ArrowType.Timestamp(
            TimeUnit.NANOSECOND, ((Types.TimestampNanoType) type).shouldAdjustToUTC() ? "UTC" : null);
      case STRING:
        return ArrowType.Utf8.INSTANCE;
      case UUID:
        return new ArrowType.FixedSizeBinary(16);
      case FIXED:
        return new ArrowType.FixedSizeBinary(((Types.FixedType) type).length());
      case BINARY:
        return ArrowType.Binary.INSTANCE;
      default:
        throw new UnsupportedTypeException("Iceberg type " + type + " is not supported");
    }
  }

  /**
   * An Iceberg schema for Arrow fields, with fresh field ids numbered from 1 (Iceberg reassigns
   * them when the schema becomes a table's).
   */
  public static Schema toIceberg(List<Field> fields) {
    AtomicInteger ids = new AtomicInteger(0);
    List<Types.NestedField> columns = new ArrayList<>();
    for (Field field : fields) {
      columns.add(nested(ids, field));
    }
    return new Schema(columns);
  }

  private static Types.NestedField nested(AtomicInteger ids, Field field) {
    int id = ids.incrementAndGet();
    Type type = toIceberg(ids, field);
    return field.isNullable()
        ? Types.NestedField.optional(id, field.getName(), type)
        : Types.NestedField.required(id, field.getName(), type);
  }

  private static Type toIceberg(AtomicInteger ids, Field field) {
    ArrowType type = field.getType();
    switch (type.getTypeID()) {
      case Bool:
        return Types.BooleanType.get();
      case Int: {
        ArrowType.Int i = (ArrowType.Int) type;
        if (i.getBitWidth() < 32 || (i.getBitWidth() == 32 && i.getIsSigned())) {
          return Types.IntegerType.get();
        }
        if (i.getBitWidth() == 64 && !i.getIsSigned()) {
          throw new UnsupportedTypeException("Unsigned 64-bit integers do not fit an Iceberg type: " + field);
        }
        return Types.LongType.get();
      }
      case FloatingPoint:
        return ((ArrowType.FloatingPoint) type).getPrecision() == FloatingPointPrecision.DOUBLE
            ? Types.DoubleType.get()
            : Types.FloatType.get();
      case Decimal: {
        ArrowType.Decimal d = (ArrowType.Decimal) type;
        if (d.getPrecision() > 38) {
          throw new UnsupportedTypeException("Iceberg decimals hold at most 38 digits: " + field);
        }
        return Types.DecimalType.of(d.getPrecision(), d.getScale());
      }
      case Date:
        return Types.DateType.get();
      case Time:
        return Types.TimeType.get();
      case Timestamp: {
        ArrowType.Timestamp ts = (ArrowType.Timestamp) type;
        boolean utc = ts.getTimezone() != null;
        if (ts.getUnit() == TimeUnit.NANOSECOND) {
          return utc ? Types.TimestampNanoType.withZone() : Types.TimestampNanoType.withoutZone();
        }
        return utc ? Types.TimestampType.withZone() : Types.TimestampType.withoutZone();
      }
      case Utf8:
      case LargeUtf8:
      case Utf8View:
        return Types.StringType.get();
      case Binary:
      case LargeBinary:
      case BinaryView:
        return Types.BinaryType.get();
      case FixedSizeBinary: {
        int width = ((ArrowType.FixedSizeBinary) type).getByteWidth();
        if (width == 16 && UUID_EXTENSION.equals(field.getMetadata().get(EXTENSION_NAME))) {
          return Types.UUIDType.get();
        }
        return Types.FixedType.ofLength(width);
      }
      case Struct: {
        List<Types.NestedField> children = new ArrayList<>();
        for (Field child : field.getChildren()) {
          children.add(nested(ids, child));
        }
        return Types.StructType.of(children);
      }
      case List:
      case LargeList:
      case FixedSizeList: {
        Field element = field.getChildren().get(0);
        int elementId = ids.incrementAndGet();
        Type elementType = toIceberg(ids, element);
        return element.isNullable()
            ? Types.ListType.ofOptional(elementId, elementType)
            : Types.ListType.ofRequired(elementId, elementType);
      }
      case Map: {
        Field entries = field.getChildren().get(0);
        Field key = entries.getChildren().get(0);
        Field value = entries.getChildren().get(1);
        int keyId = ids.incrementAndGet();
        int valueId = ids.incrementAndGet();
        Type keyType = toIceberg(ids, key);
        Type valueType = toIceberg(ids, value);
        return value.isNullable()
            ? Types.MapType.ofOptional(keyId, valueId, keyType, valueType)
            : Types.MapType.ofRequired(keyId, valueId, keyType, valueType);
      }
      default:
        throw new UnsupportedTypeException("Arrow type " + type + " has no Iceberg equivalent (column " + field.getName() + ")");
    }
  }
}

package io.sqe.write.dml;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.write.files.WriteErrors;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Turns a value the engine computed for a column (an INSERT's source column, an UPDATE's SET
 * expression) into the value Iceberg's generic writers take for that column: {@code LocalDate},
 * {@code LocalTime}, {@code LocalDateTime} or {@code OffsetDateTime} from microseconds, decimals at
 * the column's scale, {@code ByteBuffer}s, {@link Record}s for structs.
 *
 * <p>Numbers convert here as the engine's CAST converts them (decimals round half away from zero;
 * a value that does not fit, such as a BIGINT beyond an INT column's range, fails), and values
 * convert to their own kind (text to text, DATE to date). Anything else a SQL assignment allows (text to a date, a DOUBLE to a DECIMAL, a timestamp to a timestamp with
 * time zone) is the engine's CAST to the column's type, in the statement's query: see {@link
 * #castType}. NULL into a NOT NULL column or field fails.
 */
final class ValueConversion {
  private final String column;
  private final boolean required;
  private final Converter converter;

  private ValueConversion(String column, boolean required, Converter converter) {
    this.column = column;
    this.required = required;
    this.converter = converter;
  }

  /** Converts one non-null engine value; the column is named in errors. */
  @FunctionalInterface
  private interface Converter {
    Object convert(Object value, String column);
  }

  /**
   * The conversion of values of SQL type {@code source} into column {@code target}, or empty when
   * the values need the engine's CAST first.
   */
  static Optional<ValueConversion> of(RelDataType source, Types.NestedField target) {
    return converter(source, target.type()).map(c -> new ValueConversion(target.name(), target.isRequired(), c));
  }

  /** The Iceberg value of an engine value, or an INVALID_ARGUMENT error naming the column. */
  Object apply(Object value) {
    if (value == null) {
      if (required) {
        throw WriteErrors.notNull(column);
      }
      return null;
    }
    return converter.convert(value, column);
  }

  /**
   * The type to CAST an expression to before it is assigned to a column of Iceberg type {@code
   * target}; empty for structs, lists and maps, whose values are converted field by field.
   */
  static Optional<SqlDataTypeSpec> castType(RelDataTypeFactory factory, Type target) {
    if (target.isNestedType()) {
      return Optional.empty();
    }
    RelDataType type = target.typeId() == Type.TypeID.FIXED
        // BINARY(n) would pad short values with zeros; a fixed column takes exactly n bytes.
        ? factory.createSqlType(SqlTypeName.VARBINARY)
        : CalciteTypeMapping.toCalcite(factory, target, true);
    return Optional.of(SqlTypeUtil.convertTypeToSpec(type));
  }

  private static Optional<Converter> converter(RelDataType source, Type target) {
    SqlTypeName from = source.getSqlTypeName();
    if (from == SqlTypeName.NULL) {
      return Optional.of((v, c) -> {
        throw new IllegalStateException("A NULL-typed value that is not null");
      });
    }
    switch (target.typeId()) {
      case BOOLEAN:
        return from == SqlTypeName.BOOLEAN ? Optional.of((v, c) -> v) : Optional.empty();
      case INTEGER:
        return integral(source).map(exact -> (v, c) -> {
          long value = exact.longValue(v, c, target);
          if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw WriteErrors.outOfRange(v, c, target);
          }
          return (int) value;
        });
      case LONG:
        return integral(source).map(exact -> (v, c) -> exact.longValue(v, c, target));
      case FLOAT:
        if (SqlTypeUtil.isNumeric(source)) {
          return Optional.of((v, c) -> ((Number) v).floatValue());
        }
        return Optional.empty();
      case DOUBLE:
        if (SqlTypeUtil.isNumeric(source)) {
          return Optional.of((v, c) -> ((Number) v).doubleValue());
        }
        return Optional.empty();
      case DECIMAL: {
        Types.DecimalType decimal = (Types.DecimalType) target;
        if (!isInteger(from) && from != SqlTypeName.DECIMAL) {
          return Optional.empty();
        }
        return Optional.of((v, c) -> {
          BigDecimal value = v instanceof BigDecimal ? (BigDecimal) v : BigDecimal.valueOf(((Number) v).longValue());
          // Rounds half away from zero, as the engine's CAST to DECIMAL does.
          BigDecimal scaled = value.setScale(decimal.scale(), RoundingMode.HALF_UP);
          if (scaled.precision() > decimal.precision()) {
            throw WriteErrors.outOfRange(value, c, target);
          }
          return scaled;
        });
      }
      case STRING:
        return SqlTypeUtil.isCharacter(source) ? Optional.of((v, c) -> v.toString()) : Optional.empty();
      case DATE:
        return from == SqlTypeName.DATE
            ? Optional.of((v, c) -> LocalDate.ofEpochDay(((Number) v).longValue()))
            : Optional.empty();
      case TIME:
        return from == SqlTypeName.TIME
            ? Optional.of((v, c) -> LocalTime.ofNanoOfDay(((Number) v).longValue() * 1_000_000L))
            : Optional.empty();
      case TIMESTAMP:
        return timestamp(from, ((Types.TimestampType) target).shouldAdjustToUTC());
      case TIMESTAMP_NANO:
        return timestamp(from, ((Types.TimestampNanoType) target).shouldAdjustToUTC());
      case UUID:
        return from == SqlTypeName.UUID ? Optional.of((v, c) -> (UUID) v) : Optional.empty();
      case FIXED: {
        int length = ((Types.FixedType) target).length();
        return SqlTypeUtil.isBinary(source)
            ? Optional.of((v, c) -> {
              byte[] bytes = bytes(v);
              if (bytes.length != length) {
                throw WriteErrors.wrongLength(c, target, length, bytes.length);
              }
              return bytes;
            })
            : Optional.empty();
      }
      case BINARY:
        return SqlTypeUtil.isBinary(source) ? Optional.of((v, c) -> ByteBuffer.wrap(bytes(v))) : Optional.empty();
      case STRUCT:
        return struct(source, target.asStructType());
      case LIST:
        return list(source, target.asListType());
      case MAP:
        return map(source, target.asMapType());
      default:
        return Optional.empty();
    }
  }

  private static boolean isInteger(SqlTypeName name) {
    return name == SqlTypeName.TINYINT || name == SqlTypeName.SMALLINT || name == SqlTypeName.INTEGER || name == SqlTypeName.BIGINT;
  }

  /** Reads an integral value exactly, failing when it does not fit a long or has a fraction. */
  @FunctionalInterface
  private interface Exact {
    long longValue(Object value, String column, Type target);
  }

  private static Optional<Exact> integral(RelDataType source) {
    SqlTypeName from = source.getSqlTypeName();
    if (isInteger(from)) {
      return Optional.of((v, c, t) -> ((Number) v).longValue());
    }
    if (from == SqlTypeName.DECIMAL) {
      return Optional.of((v, c, t) -> {
        // A DECIMAL inside a map or list may still hold an integer object: Calcite widens the
        // type of nested values across VALUES rows without converting the narrower rows' values.
        BigDecimal decimal = v instanceof BigDecimal ? (BigDecimal) v : BigDecimal.valueOf(((Number) v).longValue());
        BigInteger value = decimal.setScale(0, RoundingMode.HALF_UP).toBigInteger();
        if (value.bitLength() > 63) {
          throw WriteErrors.outOfRange(v, c, t);
        }
        return value.longValue();
      });
    }
    return Optional.empty();
  }

  private static Optional<Converter> timestamp(SqlTypeName from, boolean withZone) {
    if (withZone && from == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE) {
      return Optional.of((v, c) -> OffsetDateTime.ofInstant(instant(((Number) v).longValue()), ZoneOffset.UTC));
    }
    if (!withZone && from == SqlTypeName.TIMESTAMP) {
      return Optional.of((v, c) -> LocalDateTime.ofInstant(instant(((Number) v).longValue()), ZoneOffset.UTC));
    }
    return Optional.empty();
  }

  private static Instant instant(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
  }

  private static byte[] bytes(Object value) {
    if (value instanceof ByteString) {
      return ((ByteString) value).getBytes();
    }
    if (value instanceof byte[]) {
      return (byte[]) value;
    }
    ByteBuffer buffer = ((ByteBuffer) value).duplicate();
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }

  private static Optional<Converter> struct(RelDataType source, Types.StructType target) {
    if (!source.isStruct() || source.getFieldCount() != target.fields().size()) {
      return Optional.empty();
    }
    List<RelDataTypeField> sourceFields = source.getFieldList();
    List<Types.NestedField> targetFields = target.fields();
    List<Converter> fields = new ArrayList<>();
    for (int i = 0; i < targetFields.size(); i++) {
      Optional<Converter> field = converter(sourceFields.get(i).getType(), targetFields.get(i).type());
      if (field.isEmpty()) {
        return Optional.empty();
      }
      fields.add(field.get());
    }
    return Optional.of((v, c) -> {
      Record record = GenericRecord.create(target);
      for (int i = 0; i < fields.size(); i++) {
        Types.NestedField field = targetFields.get(i);
        Object value = v instanceof Object[] ? ((Object[]) v)[i] : ((List<?>) v).get(i);
        String path = c + "." + field.name();
        if (value == null) {
          if (field.isRequired()) {
            throw WriteErrors.notNull(path);
          }
          record.set(i, null);
        } else {
          record.set(i, fields.get(i).convert(value, path));
        }
      }
      return record;
    });
  }

  private static Optional<Converter> list(RelDataType source, Types.ListType target) {
    RelDataType element = source.getComponentType();
    if (element == null || source.getSqlTypeName() == SqlTypeName.MAP) {
      return Optional.empty();
    }
    return converter(element, target.elementType()).map(convert -> (v, c) -> {
      List<?> values = (List<?>) v;
      List<Object> out = new ArrayList<>(values.size());
      String path = c + ".element";
      for (Object value : values) {
        if (value == null) {
          if (target.isElementRequired()) {
            throw WriteErrors.notNull(path);
          }
          out.add(null);
        } else {
          out.add(convert.convert(value, path));
        }
      }
      return out;
    });
  }

  private static Optional<Converter> map(RelDataType source, Types.MapType target) {
    if (source.getSqlTypeName() != SqlTypeName.MAP) {
      return Optional.empty();
    }
    Optional<Converter> key = converter(source.getKeyType(), target.keyType());
    Optional<Converter> value = converter(source.getValueType(), target.valueType());
    if (key.isEmpty() || value.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of((v, c) -> {
      Map<Object, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> entry : ((Map<?, ?>) v).entrySet()) {
        if (entry.getKey() == null) {
          throw WriteErrors.notNull(c + ".key");
        }
        Object entryValue = entry.getValue();
        if (entryValue == null && target.isValueRequired()) {
          throw WriteErrors.notNull(c + ".value");
        }
        out.put(
            key.get().convert(entry.getKey(), c + ".key"),
            entryValue == null ? null : value.get().convert(entryValue, c + ".value"));
      }
      return out;
    });
  }
}

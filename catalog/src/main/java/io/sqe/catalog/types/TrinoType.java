package io.sqe.catalog.types;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A type as Trino names it, for Trino's clients: the display name ({@code decimal(12,2)}, {@code
 * timestamp(6) with time zone}, {@code array(bigint)}) and the parts of the type signature
 * clients build their decoders from (a raw type and arguments: numbers, types, named types).
 *
 * @param rawType Trino's base name, as the clients' type tables know it
 * @param arguments each a {@link Long}, a {@link TrinoType} or a {@link NamedType}
 */
public record TrinoType(String rawType, List<Object> arguments) {
  /** The length Trino gives an unbounded {@code varchar}. */
  public static final long UNBOUNDED_LENGTH = Integer.MAX_VALUE;

  public static final TrinoType BIGINT = simple("bigint");
  public static final TrinoType VARCHAR = new TrinoType("varchar", List.of(UNBOUNDED_LENGTH));

  public TrinoType {
    requireNonNull(rawType, "rawType is null");
    arguments = List.copyOf(arguments);
  }

  /** A row field's name and type. */
  public record NamedType(String name, TrinoType type) {
    public NamedType {
      requireNonNull(type, "type is null");
    }
  }

  private static TrinoType simple(String rawType) {
    return new TrinoType(rawType, List.of());
  }

  /** The Trino type of an Arrow field of an SQE result. */
  public static TrinoType of(Field field) {
    ArrowType type = field.getType();
    String extension = field.getMetadata().get(ArrowTypeMapping.EXTENSION_NAME);
    if (ArrowTypeMapping.UUID_EXTENSION.equals(extension)) {
      return simple("uuid");
    }
    switch (type.getTypeID()) {
      case Null:
        return simple("unknown");
      case Bool:
        return simple("boolean");
      case Int:
        switch (((ArrowType.Int) type).getBitWidth()) {
          case 8:
            return simple("tinyint");
          case 16:
            return simple("smallint");
          case 32:
            return simple("integer");
          default:
            return BIGINT;
        }
      case FloatingPoint:
        return ((ArrowType.FloatingPoint) type).getPrecision() == FloatingPointPrecision.SINGLE ? simple("real") : simple("double");
      case Decimal: {
        ArrowType.Decimal decimal = (ArrowType.Decimal) type;
        return new TrinoType("decimal", List.of((long) decimal.getPrecision(), (long) decimal.getScale()));
      }
      case Utf8:
      case LargeUtf8:
      case Utf8View:
        return VARCHAR;
      case Binary:
      case LargeBinary:
      case FixedSizeBinary:
      case BinaryView:
        return simple("varbinary");
      case Date:
        return simple("date");
      case Time:
        return new TrinoType("time", List.of(precision(((ArrowType.Time) type).getUnit())));
      case Timestamp: {
        ArrowType.Timestamp timestamp = (ArrowType.Timestamp) type;
        String name = timestamp.getTimezone() == null ? "timestamp" : "timestamp with time zone";
        return new TrinoType(name, List.of(precision(timestamp.getUnit())));
      }
      case Interval:
        return ((ArrowType.Interval) type).getUnit() == IntervalUnit.YEAR_MONTH
            ? simple("interval year to month")
            : simple("interval day to second");
      case List:
      case LargeList:
      case FixedSizeList:
        return new TrinoType("array", List.of(of(field.getChildren().get(0))));
      case Map: {
        List<Field> entry = field.getChildren().get(0).getChildren();
        return new TrinoType("map", List.of(of(entry.get(0)), of(entry.get(1))));
      }
      case Struct: {
        List<Object> fields = new ArrayList<>();
        for (Field child : field.getChildren()) {
          fields.add(new NamedType(child.getName(), of(child)));
        }
        return new TrinoType("row", fields);
      }
      default:
        // Every type SQE's results carry is above; anything else travels as text.
        return VARCHAR;
    }
  }

  /** Digits of a second's fraction in a time unit: 6 for SQE's microseconds. */
  public static long precision(TimeUnit unit) {
    switch (unit) {
      case SECOND:
        return 0;
      case MILLISECOND:
        return 3;
      case MICROSECOND:
        return 6;
      default:
        return 9;
    }
  }

  /** The name Trino shows, e.g. {@code varchar}, {@code decimal(12,2)}, {@code map(varchar, bigint)}. */
  public String displayName() {
    switch (rawType) {
      case "varchar":
        long length = (Long) arguments.get(0);
        return length == UNBOUNDED_LENGTH ? "varchar" : "varchar(" + length + ")";
      case "decimal":
        return "decimal(" + arguments.get(0) + "," + arguments.get(1) + ")";
      case "time":
      case "timestamp":
        return rawType + "(" + arguments.get(0) + ")";
      case "timestamp with time zone":
        return "timestamp(" + arguments.get(0) + ") with time zone";
      case "array":
        return "array(" + ((TrinoType) arguments.get(0)).displayName() + ")";
      case "map":
        return "map(" + ((TrinoType) arguments.get(0)).displayName() + ", " + ((TrinoType) arguments.get(1)).displayName() + ")";
      case "row": {
        StringBuilder name = new StringBuilder("row(");
        for (int i = 0; i < arguments.size(); i++) {
          NamedType field = (NamedType) arguments.get(i);
          if (i > 0) {
            name.append(", ");
          }
          if (field.name() != null) {
            name.append(fieldName(field.name())).append(' ');
          }
          name.append(field.type().displayName());
        }
        return name.append(')').toString();
      }
      default:
        return rawType;
    }
  }

  /** A row field's name as Trino writes it: quoted unless it is a plain lower-case identifier. */
  static String fieldName(String name) {
    return name.matches("[a-z_][a-z0-9_]*") ? name : '"' + name.replace("\"", "\"\"") + '"';
  }
}

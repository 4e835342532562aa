package io.sqe.engine.plan.offload;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Names, literals and types as a Trino statement SQE writes around an offloaded SELECT spells
 * them: the target of an {@code INSERT} or {@code CREATE TABLE ... AS} and the types its columns
 * are cast to.
 */
public final class TrinoSyntax {
  private TrinoSyntax() {}

  /** {@code name} as a quoted identifier. */
  public static String identifier(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  /** {@code parts} as a quoted, dot-separated name, e.g. {@code "iceberg"."tpch"."t"}. */
  public static String qualified(List<String> parts) {
    return parts.stream().map(TrinoSyntax::identifier).collect(Collectors.joining("."));
  }

  /** {@code value} as a string literal. */
  public static String literal(String value) {
    return "'" + value.replace("'", "''") + "'";
  }

  /**
   * The Trino type the Iceberg connector stores as {@code type}, so that a CAST to it makes Trino
   * write exactly that column type (Trino's bare {@code timestamp} would be milliseconds).
   * NOT_SUPPORTED for the types this does not map: nested, fixed, nanosecond timestamps.
   */
  public static String type(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN -> "boolean";
      case INTEGER -> "integer";
      case LONG -> "bigint";
      case FLOAT -> "real";
      case DOUBLE -> "double";
      case DATE -> "date";
      case TIME -> "time(6)";
      case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC() ? "timestamp(6) with time zone" : "timestamp(6)";
      case STRING -> "varchar";
      case UUID -> "uuid";
      case BINARY -> "varbinary";
      case DECIMAL -> "decimal(" + ((Types.DecimalType) type).precision() + ", " + ((Types.DecimalType) type).scale() + ")";
      default -> throw new SqeException(ErrorCode.NOT_SUPPORTED, "Cannot offload a write of a column of type " + type);
    };
  }
}

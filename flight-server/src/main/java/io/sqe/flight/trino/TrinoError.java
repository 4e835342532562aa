package io.sqe.flight.trino;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.io.IOException;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.calcite.sql.parser.SqlParseException;

/**
 * A failed statement as Trino's protocol reports it: the message, Trino's error code, name and
 * type for SQE's {@link ErrorCode} (finer where the message names what was missing or exists
 * already), and the SQL position. It never carries a stack trace.
 */
record TrinoError(String message, int code, String name, String type, Optional<SqeException.SqlPosition> position) {
  private static final String USER_ERROR = "USER_ERROR";
  private static final String INTERNAL_ERROR = "INTERNAL_ERROR";
  private static final String INSUFFICIENT_RESOURCES = "INSUFFICIENT_RESOURCES";
  private static final String EXTERNAL = "EXTERNAL";
  /** Trino leaves codes from 0x0100_0000 to connectors; SQE's one external failure takes the first. */
  private static final int EXTERNAL_BASE = 0x0100_0000;

  private static final Pattern TABLE = Pattern.compile("^(Object|Table|View) '.*");
  private static final Pattern SCHEMA = Pattern.compile("^Schema '.*");
  private static final Pattern CATALOG = Pattern.compile("^Catalog '.*");
  private static final Pattern COLUMN = Pattern.compile("^Column '.*");

  TrinoError {
    requireNonNull(message, "message is null");
    requireNonNull(name, "name is null");
    requireNonNull(type, "type is null");
    requireNonNull(position, "position is null");
  }

  /** Trino's form of an SQE failure. */
  static TrinoError of(SqeException e) {
    String message = e.getMessage() == null ? e.code().name() : e.getMessage();
    Optional<SqeException.SqlPosition> position = e.position();
    switch (e.code()) {
      case INVALID_ARGUMENT:
        if (causedBy(e, SqlParseException.class) || message.startsWith("Syntax error")) {
          return new TrinoError(message, 1, "SYNTAX_ERROR", USER_ERROR, position);
        }
        if (COLUMN.matcher(message).matches()) {
          return new TrinoError(message, 47, "COLUMN_NOT_FOUND", USER_ERROR, position);
        }
        return user(message, position);
      case NOT_FOUND:
        if (TABLE.matcher(message).matches()) {
          return new TrinoError(message, 46, "TABLE_NOT_FOUND", USER_ERROR, position);
        }
        if (SCHEMA.matcher(message).matches()) {
          return new TrinoError(message, 45, "SCHEMA_NOT_FOUND", USER_ERROR, position);
        }
        if (CATALOG.matcher(message).matches()) {
          return new TrinoError(message, 44, "CATALOG_NOT_FOUND", USER_ERROR, position);
        }
        if (COLUMN.matcher(message).matches()) {
          return new TrinoError(message, 47, "COLUMN_NOT_FOUND", USER_ERROR, position);
        }
        return new TrinoError(message, 5, "NOT_FOUND", USER_ERROR, position);
      case ALREADY_EXISTS:
        if (TABLE.matcher(message).matches()) {
          return new TrinoError(message, 50, "TABLE_ALREADY_EXISTS", USER_ERROR, position);
        }
        if (SCHEMA.matcher(message).matches()) {
          return new TrinoError(message, 49, "SCHEMA_ALREADY_EXISTS", USER_ERROR, position);
        }
        return new TrinoError(message, 12, "ALREADY_EXISTS", USER_ERROR, position);
      case PERMISSION_DENIED:
      case UNAUTHENTICATED:
        return new TrinoError(message, 4, "PERMISSION_DENIED", USER_ERROR, position);
      case FAILED_PRECONDITION:
        return message.toLowerCase(java.util.Locale.ROOT).contains("conflict")
            ? new TrinoError(message, 17, "TRANSACTION_CONFLICT", USER_ERROR, position)
            : user(message, position);
      case NOT_SUPPORTED:
        return new TrinoError(message, 13, "NOT_SUPPORTED", USER_ERROR, position);
      case CANCELLED:
        return new TrinoError(message, 3, "USER_CANCELED", USER_ERROR, position);
      case DEADLINE_EXCEEDED:
        return new TrinoError(message, 131075, "EXCEEDED_TIME_LIMIT", INSUFFICIENT_RESOURCES, position);
      case RESOURCE_EXHAUSTED:
        return new TrinoError(message, 131073, "EXCEEDED_GLOBAL_MEMORY_LIMIT", INSUFFICIENT_RESOURCES, position);
      case UNAVAILABLE:
        return new TrinoError(message, EXTERNAL_BASE, "SERVICE_UNAVAILABLE", EXTERNAL, position);
      default:
        return new TrinoError(message, 65536, "GENERIC_INTERNAL_ERROR", INTERNAL_ERROR, position);
    }
  }

  /** A query nobody fetched within the client timeout. */
  static TrinoError abandoned(String message) {
    return new TrinoError(message, 2, "ABANDONED_QUERY", USER_ERROR, Optional.empty());
  }

  /** A session property Trino's clients sent that SQE does not have, or a bad value for one. */
  static TrinoError invalidSessionProperty(String message) {
    return new TrinoError(message, 14, "INVALID_SESSION_PROPERTY", USER_ERROR, Optional.empty());
  }

  /** A statement refused because the server is shutting down. */
  static TrinoError shuttingDown(String message) {
    return new TrinoError(message, 65545, "SERVER_SHUTTING_DOWN", INTERNAL_ERROR, Optional.empty());
  }

  private static TrinoError user(String message, Optional<SqeException.SqlPosition> position) {
    return new TrinoError(message, 0, "GENERIC_USER_ERROR", USER_ERROR, position);
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
      if (type.isInstance(cause)) {
        return true;
      }
    }
    return false;
  }

  /** Writes the {@code error} object of a query result. */
  void write(JsonGenerator json) throws IOException {
    json.writeStartObject();
    json.writeStringField("message", message);
    json.writeNumberField("errorCode", code);
    json.writeStringField("errorName", name);
    json.writeStringField("errorType", type);
    if (position.isPresent()) {
      json.writeFieldName("errorLocation");
      writeLocation(json);
    }
    // Clients build their exception from failureInfo; it names SQE's error, never a stack trace.
    json.writeObjectFieldStart("failureInfo");
    json.writeStringField("type", SqeException.class.getName());
    json.writeStringField("message", message);
    json.writeArrayFieldStart("suppressed");
    json.writeEndArray();
    json.writeArrayFieldStart("stack");
    json.writeEndArray();
    if (position.isPresent()) {
      json.writeFieldName("errorLocation");
      writeLocation(json);
    }
    json.writeEndObject();
    json.writeEndObject();
  }

  private void writeLocation(JsonGenerator json) throws IOException {
    json.writeStartObject();
    json.writeNumberField("lineNumber", position.get().line());
    json.writeNumberField("columnNumber", position.get().column());
    json.writeEndObject();
  }
}

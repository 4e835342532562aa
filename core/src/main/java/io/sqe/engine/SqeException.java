package io.sqe.engine;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/** The one exception type that reaches clients: a message, a category, and where in the SQL. */
public final class SqeException extends RuntimeException {
  private final ErrorCode code;
  private final SqlPosition position;

  public SqeException(ErrorCode code, String message) {
    this(code, message, null, null);
  }

  public SqeException(ErrorCode code, String message, Throwable cause) {
    this(code, message, null, cause);
  }

  public SqeException(ErrorCode code, String message, SqlPosition position, Throwable cause) {
    super(message, cause);
    this.code = requireNonNull(code, "code is null");
    this.position = position;
  }

  public ErrorCode code() {
    return code;
  }

  public Optional<SqlPosition> position() {
    return Optional.ofNullable(position);
  }

  /** The message with its SQL position, as a client should see it. */
  public String clientMessage() {
    return position == null ? getMessage() : getMessage() + " (" + position + ")";
  }

  /** A line and column in the statement text, both counted from 1. */
  public record SqlPosition(int line, int column) {
    @Override
    public String toString() {
      return "line " + line + ", column " + column;
    }
  }
}

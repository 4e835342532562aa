package io.sqe.engine.sql;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.ServiceFailures;
import io.sqe.engine.SqeException;
import io.sqe.engine.audit.Redaction;
import io.sqe.engine.exec.ExecutionErrors;
import io.sqe.engine.SqeException.SqlPosition;
import java.util.regex.Pattern;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.validate.SqlValidatorException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns Calcite's parse and validation errors into {@link SqeException}s with a SQL position. */
public final class SqlErrors {
  private static final Logger LOG = LoggerFactory.getLogger(SqlErrors.class);
  private static final Pattern NOT_FOUND =
      Pattern.compile("^(Object|Table|Schema|Catalog) '.*' not found.*", Pattern.DOTALL);

  private SqlErrors() {}

  public static SqeException parseError(SqlParseException e) {
    java.util.Optional<SqeException> tooDeep = ExecutionErrors.stackOverflow(e);
    if (tooDeep.isPresent()) {
      return tooDeep.get();
    }
    SqlParserPos pos = e.getPos();
    String message = firstLine(e.getMessage());
    SqlPosition position = position(pos);
    if (position != null) {
      // The position goes after the message as everywhere else, not also inside it.
      message = message.replace(" at " + position, "");
    }
    // Calcite appends a long list of expected tokens; the first line says what went wrong.
    return new SqeException(ErrorCode.INVALID_ARGUMENT, "Syntax error: " + message, position, e);
  }

  /** Translates what the validator threw. */
  public static SqeException translate(RuntimeException e) {
    if (e instanceof SqeException) {
      return (SqeException) e;
    }
    java.util.Optional<SqeException> tooDeep = ExecutionErrors.stackOverflow(e);
    if (tooDeep.isPresent()) {
      return tooDeep.get();
    }
    java.util.Optional<SqeException> service = ServiceFailures.classify(e);
    if (service.isPresent()) {
      return service.get();
    }
    CalciteContextException context = find(e, CalciteContextException.class);
    if (context != null) {
      Throwable cause = context.getCause();
      String message = cause instanceof SqlValidatorException ? cause.getMessage() : context.getMessage();
      SqlPosition position =
          context.getPosLine() > 0 ? new SqlPosition(context.getPosLine(), context.getPosColumn()) : null;
      ErrorCode code = NOT_FOUND.matcher(message).matches() ? ErrorCode.NOT_FOUND : ErrorCode.INVALID_ARGUMENT;
      return new SqeException(code, message, position, e);
    }
    SqeException inner = find(e, SqeException.class);
    if (inner != null) {
      return inner;
    }
    LOG.warn("Validation failed", e);
    return new SqeException(ErrorCode.INVALID_ARGUMENT, String.valueOf(e.getMessage()), e);
  }

  /** Translates a failure to plan a statement that validated: a gap in the engine, not in the SQL. */
  public static SqeException translatePlanning(RuntimeException e, String sql) {
    SqeException inner = find(e, SqeException.class);
    if (inner != null) {
      return inner;
    }
    java.util.Optional<SqeException> tooDeep = ExecutionErrors.stackOverflow(e);
    if (tooDeep.isPresent()) {
      return tooDeep.get();
    }
    java.util.Optional<SqeException> service = ServiceFailures.classify(e);
    if (service.isPresent()) {
      return service.get();
    }
    // Planning folds constants, so a literal that is not a valid value fails here.
    for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
      java.util.Optional<SqeException> value = ExecutionErrors.invalidValue(cause);
      if (value.isPresent()) {
        return value.get();
      }
    }
    // Not the statement's text, nor its literals in the error (a plan's dump quotes them): the
    // query id of the log line (its MDC) ties it to the client's statement.
    LOG.error("Cannot plan a statement", Redaction.forLog(e, sql));
    return new SqeException(
        ErrorCode.NOT_SUPPORTED, "This statement cannot be planned yet: " + firstLine(String.valueOf(e.getMessage())), e);
  }

  /**
   * Translates a failure to compile a plan into Java. Calcite's code generator throws "Unable to
   * implement" with the whole plan, and what it could not generate as a suppressed exception;
   * Janino's compile errors come as the cause of "Error while compiling generated Java code".
   */
  public static SqeException translateCodeGeneration(RuntimeException e, String sql) {
    String message = String.valueOf(e.getMessage());
    if (message.startsWith("Unable to implement") && e.getSuppressed().length > 0
        && e.getSuppressed()[0] instanceof RuntimeException generation) {
      return translatePlanning(generation, sql);
    }
    if (message.startsWith("Error while compiling generated Java code") && e.getCause() != null) {
      return translatePlanning(new IllegalStateException(e.getCause().getMessage(), e.getCause()), sql);
    }
    return translatePlanning(e, sql);
  }

  private static SqlPosition position(SqlParserPos pos) {
    return pos == null || pos.getLineNum() <= 0 ? null : new SqlPosition(pos.getLineNum(), pos.getColumnNum());
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    String line = newline < 0 ? message : message.substring(0, newline);
    return line.endsWith(".") ? line.substring(0, line.length() - 1) : line;
  }

  private static <T extends Throwable> T find(Throwable e, Class<T> type) {
    Throwable current = e;
    while (current != null) {
      if (type.isInstance(current)) {
        return type.cast(current);
      }
      if (current.getCause() == current) {
        break;
      }
      current = current.getCause();
    }
    return null;
  }
}

package io.sqe.engine.exec;

import com.google.common.util.concurrent.UncheckedExecutionException;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.ServiceFailures;
import io.sqe.engine.SqeException;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.calcite.runtime.CalciteException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns what a running plan throws into the error a client should see. */
public final class ExecutionErrors {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutionErrors.class);
  private static final Pattern BAD_PATTERN = Pattern.compile("Invalid (escape|regular expression)");

  private ExecutionErrors() {}

  public static SqeException translate(Throwable error, String queryId) {
    Throwable e = unwrap(error);
    if (e instanceof SqeException) {
      return (SqeException) e;
    }
    java.util.Optional<SqeException> tooDeep = stackOverflow(error);
    if (tooDeep.isPresent()) {
      return tooDeep.get();
    }
    java.util.Optional<SqeException> service = ServiceFailures.classify(e);
    if (service.isPresent()) {
      return service.get();
    }
    if (e instanceof OutOfMemoryException) {
      return new SqeException(
          ErrorCode.RESOURCE_EXHAUSTED,
          "Query " + queryId + " exceeded its memory limit: " + e.getMessage(),
          e);
    }
    java.util.Optional<SqeException> value = invalidValue(e);
    if (value.isPresent()) {
      return value.get();
    }
    if (e instanceof IllegalStateException && String.valueOf(e.getMessage()).startsWith("more than one value in agg")) {
      // Calcite's SINGLE_VALUE, which a scalar sub-query's rows go through.
      return new SqeException(ErrorCode.INVALID_ARGUMENT, "A scalar sub-query returned more than one row", e);
    }
    if (e instanceof CalciteException || e instanceof IllegalArgumentException && e.getMessage() != null) {
      return new SqeException(ErrorCode.INVALID_ARGUMENT, e.getMessage(), e);
    }
    if (compilingForTheInterpreter(error)) {
      // Calcite's interpreter compiles the filter it pushes into a table (information_schema's)
      // only when the query starts: what its code generator cannot compile fails then.
      return new SqeException(
          ErrorCode.NOT_SUPPORTED, "This statement cannot be run yet: " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
    if (e instanceof OutOfMemoryError) {
      return new SqeException(
          ErrorCode.RESOURCE_EXHAUSTED, "Query " + queryId + " ran out of heap memory", e);
    }
    LOG.error("Query {} failed", queryId, e);
    return new SqeException(
        ErrorCode.INTERNAL, "Internal error in query " + queryId + ": " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
  }

  /**
   * INVALID_ARGUMENT if {@code error} is, or was caused by, a stack overflow: the statement nests
   * deeper than a thread's stack allows. Logged in one line: the overflow's own trace is
   * thousands of frames, and the wrappers Calcite adds on the way up each quote the expression.
   */
  public static java.util.Optional<SqeException> stackOverflow(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
      if (cause instanceof StackOverflowError) {
        StackTraceElement[] frames = cause.getStackTrace();
        LOG.warn("A statement nests too deeply: the stack overflowed at {}", frames.length > 0 ? frames[0] : "an unknown place");
        return java.util.Optional.of(new SqeException(
            ErrorCode.INVALID_ARGUMENT,
            "The statement is nested too deeply to plan or run; write long chains of AND, OR or || (which may be of any"
                + " length), IN lists or CASE instead of deep nesting"));
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * The error of a value the statement gave or computed that an operation cannot take: division
   * by zero and overflow, text that is not a number, a date or a time. Planning meets these too,
   * when it folds constants.
   */
  public static java.util.Optional<SqeException> invalidValue(Throwable e) {
    if (e instanceof ArithmeticException) {
      // The JIT replaces an implicit exception thrown often from hot code by a preallocated one
      // without a message (OmitStackTraceInFastThrow). The only implicit ArithmeticException is
      // integer division by zero; everything else (exact arithmetic, BigDecimal) is built with one.
      String message = e.getMessage() == null ? "/ by zero" : e.getMessage();
      if (message.contains("/ by zero") || message.contains("Division by zero") || message.contains("Division undefined")) {
        message = "Division by zero";
      }
      return java.util.Optional.of(new SqeException(ErrorCode.INVALID_ARGUMENT, message, e));
    }
    if (e instanceof NumberFormatException) {
      return java.util.Optional.of(new SqeException(ErrorCode.INVALID_ARGUMENT, "Invalid number: " + e.getMessage(), e));
    }
    if (e instanceof DateTimeException) {
      return java.util.Optional.of(new SqeException(ErrorCode.INVALID_ARGUMENT, "Invalid date or time: " + e.getMessage(), e));
    }
    if (e instanceof PatternSyntaxException pattern) {
      return java.util.Optional.of(new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "Invalid regular expression '" + pattern.getPattern() + "': " + pattern.getDescription() + " near index " + pattern.getIndex(),
          e));
    }
    if (e instanceof SQLException && thrownByCalciteFunctions(e)) {
      // Calcite's PostgreSQL-style to_date and to_timestamp throw SQLException for text that does
      // not fit the format.
      return java.util.Optional.of(new SqeException(ErrorCode.INVALID_ARGUMENT, e.getMessage(), e));
    }
    if (e.getClass() == RuntimeException.class
        && thrownByCalciteFunctions(e)
        && BAD_PATTERN.matcher(String.valueOf(e.getMessage())).lookingAt()) {
      // Calcite's LIKE and SIMILAR TO refuse a bad ESCAPE, escape sequence or pattern with a plain RuntimeException.
      return java.util.Optional.of(new SqeException(ErrorCode.INVALID_ARGUMENT, e.getMessage(), e));
    }
    if (e instanceof StringIndexOutOfBoundsException && thrownByCalciteFunctions(e)) {
      // Calcite's OVERLAY cuts its string at the position given, past the string's end too.
      return java.util.Optional.of(new SqeException(ErrorCode.INVALID_ARGUMENT, "Position out of range: " + e.getMessage(), e));
    }
    return java.util.Optional.empty();
  }

  /** Whether {@code e}, or one of its causes, was thrown while Calcite's interpreter compiled an expression. */
  private static boolean compilingForTheInterpreter(Throwable e) {
    for (Throwable current = e; current != null; current = current.getCause() == current ? null : current.getCause()) {
      for (StackTraceElement frame : current.getStackTrace()) {
        if (frame.getClassName().equals("org.apache.calcite.interpreter.JaninoRexCompiler")) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether the first frame of {@code e} outside the JDK is in Calcite's runtime functions. */
  private static boolean thrownByCalciteFunctions(Throwable e) {
    for (StackTraceElement frame : e.getStackTrace()) {
      String name = frame.getClassName();
      if (!name.startsWith("java.") && !name.startsWith("jdk.")) {
        return name.startsWith("org.apache.calcite.runtime.");
      }
    }
    return false;
  }

  /**
   * Throws what another thread failed with, as it is when it is unchecked (so its type and message
   * reach {@link #translate}); a checked one wrapped. Declared to return so callers can write
   * {@code throw rethrow(e)}.
   */
  public static RuntimeException rethrow(Throwable failure) {
    if (failure instanceof RuntimeException) {
      throw (RuntimeException) failure;
    }
    if (failure instanceof Error) {
      throw (Error) failure;
    }
    throw new IllegalStateException(failure);
  }

  private static Throwable unwrap(Throwable e) {
    Throwable current = e;
    while (current.getCause() != null
        && current != current.getCause()
        && !(current instanceof SqeException)
        && (current.getClass() == RuntimeException.class
            || current instanceof ExceptionInInitializerError
            || current instanceof java.lang.reflect.InvocationTargetException
            || current instanceof java.lang.reflect.UndeclaredThrowableException
            || current instanceof java.util.concurrent.ExecutionException
            // Calcite's caches of compiled patterns and formats throw their loaders' errors in it.
            || current instanceof UncheckedExecutionException)) {
      current = current.getCause();
    }
    return current;
  }

  static void logCloseFailure(String queryId, RuntimeException e) {
    LOG.warn("Query {}: failed to release a reader", queryId, e);
  }

  /**
   * Runs {@code release}, which closes an abandoned query's readers: a failure is logged, not
   * thrown, so that it does not hide the cause the query ended with (an SqeException is that cause).
   */
  static void releaseQuietly(String queryId, Runnable release) {
    try {
      release.run();
    } catch (RuntimeException e) {
      if (!(e instanceof SqeException)) {
        logCloseFailure(queryId, e);
      }
    }
  }
}

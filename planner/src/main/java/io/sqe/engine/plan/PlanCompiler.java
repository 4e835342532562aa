package io.sqe.engine.plan;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.ExecutionErrors;
import io.sqe.engine.sql.SqlErrors;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.calcite.adapter.enumerable.EnumerableInterpretable;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.runtime.Bindable;
import org.apache.calcite.runtime.Hook;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compiles a physical plan to Java with Calcite's code generator and Janino, within bounds: the
 * generated source may be at most {@link #MAX_SOURCE_CHARS} long (Janino's time grows with it and
 * nothing stops it once started; a 300-table join is 0.6 million characters), and a method that
 * would exceed the JVM's 64 KiB of bytecode (one expression of thousands of terms that no set or
 * list could replace) fails with INVALID_ARGUMENT. Neither failure logs the source, which holds
 * the statement's literals.
 */
final class PlanCompiler {
  /** The longest generated source compiled. */
  static final int MAX_SOURCE_CHARS = 4 << 20;

  private static final Logger LOG = LoggerFactory.getLogger(PlanCompiler.class);

  private PlanCompiler() {}

  static Bindable<Object> compile(EnumerableRel plan, Map<String, Object> internalParameters, String sql) {
    Consumer<Object> bound = source -> {
      int length = source.toString().length();
      if (length > MAX_SOURCE_CHARS) {
        throw new SqeException(
            ErrorCode.INVALID_ARGUMENT,
            "The statement compiles to " + length / 1024 + " KiB of Java code, more than the " + MAX_SOURCE_CHARS / 1024
                + " KiB the server compiles; split it into smaller statements");
      }
    };
    try (Hook.Closeable ignored = Hook.JAVA_PLAN.addThread(bound)) {
      @SuppressWarnings("unchecked")
      Bindable<Object> bindable = EnumerableInterpretable.toBindable(internalParameters, null, plan, EnumerableRel.Prefer.ARRAY);
      return bindable;
    } catch (SqeException e) {
      throw e;
    } catch (RuntimeException e) {
      Optional<SqeException> tooDeep = ExecutionErrors.stackOverflow(e);
      if (tooDeep.isPresent()) {
        throw tooDeep.get();
      }
      throw translate(e, sql);
    }
  }

  /**
   * A compilation failure: a plan too large for Janino or the JVM is the statement's fault
   * (INVALID_ARGUMENT), told by Janino's own exceptions (their innermost says why; Calcite's
   * wrapper quotes the whole source); anything else is a gap of the engine (see {@link
   * SqlErrors#translateCodeGeneration}).
   */
  private static SqeException translate(RuntimeException e, String sql) {
    String reason = e.getClass().getSimpleName();
    // Janino is on the run-time class path only: its exceptions are told by their package.
    for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
      if (cause.getClass().getName().startsWith("org.codehaus.")) {
        reason = firstLine(cause.getMessage());
      }
    }
    if (reason.contains("Code grows beyond 64 KB") || reason.contains("too many constants")) {
      LOG.warn("A statement is too large to compile: {}", reason);
      return new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "The statement is too large to compile (" + reason + "): an expression of thousands of terms must be a list of"
              + " values (IN, or an OR of equalities on one column) or a join with a table of them");
    }
    return SqlErrors.translateCodeGeneration(e, sql);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}

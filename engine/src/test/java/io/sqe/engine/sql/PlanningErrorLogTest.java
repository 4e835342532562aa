package io.sqe.engine.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A statement that fails to plan is logged without its text or its literals (as in the audit
 * log), but with what failed and where, so that the failure can be found and fixed.
 */
class PlanningErrorLogTest {
  @Test
  void theLogLineHoldsNeitherTheStatementNorItsLiterals() {
    String sql = "SELECT name FROM hr.people WHERE ssn = '123-45-6789' AND salary > 250000";
    RuntimeException failure = new IllegalStateException(
        "There are not enough rules to produce a node: LogicalFilter(condition=[AND(=($1, '123-45-6789'), >($2, 250000))])");
    PrintStream stderr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    SqeException error;
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      error = SqlErrors.translatePlanning(failure, sql);
    } finally {
      System.setErr(stderr);
    }
    assertThat(error.code()).isEqualTo(ErrorCode.NOT_SUPPORTED);
    String log = captured.toString(StandardCharsets.UTF_8);
    assertThat(log)
        .contains("Cannot plan a statement")
        .contains("java.lang.IllegalStateException: There are not enough rules to produce a node")
        .contains("at " + PlanningErrorLogTest.class.getName())
        .doesNotContain("123-45-6789")
        .doesNotContain("250000")
        .doesNotContain("hr.people");
  }
}

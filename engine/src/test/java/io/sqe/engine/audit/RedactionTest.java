package io.sqe.engine.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Error messages lose the statement's literals and parameter values, for the audit and the server log. */
class RedactionTest {
  private static final String SQL = "SELECT CAST('hunter2' AS INTEGER) + 12345 + 7 WHERE x = ?";

  @Test
  void errorMessagesLoseLiteralsAndParameterValues() {
    String message = "Cannot cast 'hunter2' to INTEGER at line 1, column 8; value s3cr3t-value, 12345 and 7";
    String redacted = Redaction.redact(message, SQL, List.of("s3cr3t-value"));
    assertThat(redacted).doesNotContain("hunter2").doesNotContain("s3cr3t-value").doesNotContain("12345")
        .contains("line 1, column 8").contains("and 7");
  }

  @Test
  void anErrorForTheLogKeepsItsClassesAndStackTracesButNoLiteral() {
    IllegalArgumentException root = new IllegalArgumentException("bad value 'hunter2'");
    IllegalStateException error = new IllegalStateException("Cannot plan =($0, 'hunter2') + 12345", root);
    StringWriter printed = new StringWriter();
    Redaction.forLog(error, SQL).printStackTrace(new PrintWriter(printed));
    assertThat(printed.toString())
        .doesNotContain("hunter2")
        .doesNotContain("12345")
        .contains("java.lang.IllegalStateException: Cannot plan =($0, '***') + ***")
        .contains("Caused by: java.lang.IllegalArgumentException: bad value '***'")
        .contains("at " + RedactionTest.class.getName() + ".anErrorForTheLogKeepsItsClassesAndStackTracesButNoLiteral");
  }

  @Test
  void aLiteralOfAMillionCharactersIsRedactedWithoutExhaustingTheStack() {
    String literal = "ab''c".repeat(200_000);
    String sql = "SELECT array_join(array_agg(s), '" + literal + "') FROM t";
    String message = "array_to_string would return 9 MB with separator " + literal.replace("''", "'");
    assertThat(Redaction.redact(message, sql, List.of())).isEqualTo("array_to_string would return 9 MB with separator ***");
  }
}

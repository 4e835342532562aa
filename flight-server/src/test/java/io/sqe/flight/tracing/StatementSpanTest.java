package io.sqe.flight.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A statement's fingerprint names its shape: the same whatever its literals, and without them. */
class StatementSpanTest {
  @Test
  void theFingerprintIgnoresLiterals() {
    String fingerprint = StatementSpan.fingerprint("SELECT n FROM t WHERE name = 'Zanzibar' AND n > 987654 AND k = 7");
    assertThat(fingerprint)
        .hasSize(16)
        .isEqualTo(StatementSpan.fingerprint("SELECT n FROM t WHERE name = 'it''s' AND n > 1 AND k = 7.5e3"))
        .isNotEqualTo(StatementSpan.fingerprint("SELECT n FROM t2 WHERE name = 'Zanzibar' AND n > 987654 AND k = 7"));
  }
}

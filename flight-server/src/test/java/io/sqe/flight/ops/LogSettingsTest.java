package io.sqe.flight.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sqe.flight.config.ServerConfig.LogFormat;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/** The log line formats and levels, through logback as the server configures it. */
class LogSettingsTest {
  private static final Logger LOG = LoggerFactory.getLogger("io.sqe.flight.ops.LogSettingsTest.sample");
  private final PrintStream stderr = System.err;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  @AfterEach
  void restore() throws Exception {
    System.setErr(stderr);
    // Back to the test configuration (logback-test.xml) for the tests that run after these.
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    new ContextInitializer(context).autoConfig();
  }

  private String logWithQueryId(LogFormat format) {
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    LogSettings.apply(format, "info");
    try (MDC.MDCCloseable id = MDC.putCloseable(LogSettings.QUERY_ID, "q-123")) {
      LOG.info("Statement {} ended", "one");
    }
    LOG.info("No statement here");
    LOG.debug("Not at info");
    return captured.toString(StandardCharsets.UTF_8);
  }

  @Test
  void textLinesCarryTheQueryIdWhenThereIsOne() {
    String[] lines = logWithQueryId(LogFormat.TEXT).split("\n");
    assertThat(lines).hasSize(2);
    assertThat(lines[0]).contains(" INFO ").contains("query=q-123 - Statement one ended");
    assertThat(lines[1]).doesNotContain("query=").contains(" - No statement here");
  }

  @Test
  void jsonLinesAreOneObjectEachWithTheQueryIdInTheMdc() throws Exception {
    String[] lines = logWithQueryId(LogFormat.JSON).split("\n");
    assertThat(lines).hasSize(2);
    ObjectMapper json = new ObjectMapper();
    JsonNode first = json.readTree(lines[0]);
    assertThat(first.get("level").asText()).isEqualTo("INFO");
    assertThat(first.get("formattedMessage").asText()).isEqualTo("Statement one ended");
    assertThat(first.at("/mdc/query_id").asText()).isEqualTo("q-123");
    assertThat(first.has("arguments")).isFalse();
    JsonNode second = json.readTree(lines[1]);
    assertThat(second.at("/mdc/query_id").isMissingNode() || second.at("/mdc/query_id").isNull()).isTrue();
  }

  @Test
  void levelsChangeAtRunTime() {
    String logger = "io.sqe.flight.ops.LogSettingsTest.levels";
    LogSettings.setLevel(logger, "debug");
    assertThat(LoggerFactory.getLogger(logger).isDebugEnabled()).isTrue();
    assertThat(LogSettings.level(logger)).contains("DEBUG");
    LogSettings.setLevel(logger, "INHERIT");
    assertThat(LoggerFactory.getLogger(logger).isDebugEnabled()).isFalse();
    assertThatThrownBy(() -> LogSettings.setLevel(logger, "verbose")).hasMessageContaining("Unknown log level 'verbose'");
    assertThatThrownBy(() -> LogSettings.setLevel("ROOT", "inherit")).hasMessageContaining("root logger");
  }
}

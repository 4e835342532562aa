package io.sqe.flight.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import io.sqe.flight.config.ServerConfig.LogFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * The server's logging, through logback (the SLF4J backend the server ships with): the format of
 * the lines on standard error and the levels of loggers, which can change while the server runs.
 * Under another backend (a library's tests) nothing changes and levels cannot be set.
 */
public final class LogSettings {
  /** The MDC key of the query a log line belongs to. */
  public static final String QUERY_ID = "query_id";
  /** SQE's own loggers. */
  public static final String SQE_LOGGERS = "io.sqe";
  private static final String CONFIGURATION_FILE_PROPERTY = "logback.configurationFile";
  private static final Set<String> LEVELS = Set.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");
  private static final String TEXT_PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{36}%replace( query=%X{query_id}){' query=$', ''} - %msg%n";

  private LogSettings() {}

  /**
   * Writes log lines in {@code format} to standard error, with SQE's loggers at {@code level};
   * under a logback configuration file of the operator's ({@code -Dlogback.configurationFile}) only
   * the level is set.
   */
  public static void apply(LogFormat format, String level) {
    Optional<LoggerContext> context = logback();
    if (context.isEmpty()) {
      return;
    }
    LoggerContext logback = context.get();
    if (System.getProperty(CONFIGURATION_FILE_PROPERTY) != null) {
      // The operator's own logback configuration decides where lines go and how they look.
      setLevel(SQE_LOGGERS, level);
      return;
    }
    Encoder<ILoggingEvent> encoder = format == LogFormat.JSON ? json(logback) : text(logback);
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(logback);
    console.setName("console");
    console.setTarget("System.err");
    console.setEncoder(encoder);
    console.start();
    Logger root = logback.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.detachAndStopAllAppenders();
    root.addAppender(console);
    setLevel(SQE_LOGGERS, level);
  }

  private static Encoder<ILoggingEvent> text(LoggerContext logback) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(logback);
    encoder.setPattern(TEXT_PATTERN);
    encoder.start();
    return encoder;
  }

  private static Encoder<ILoggingEvent> json(LoggerContext logback) {
    JsonEncoder encoder = new JsonEncoder();
    encoder.setContext(logback);
    encoder.setWithSequenceNumber(false);
    encoder.setWithNanoseconds(false);
    encoder.setWithContext(false);
    // The formatted message only: the raw arguments would repeat it, field by field.
    encoder.setWithMessage(false);
    encoder.setWithArguments(false);
    encoder.setWithFormattedMessage(true);
    encoder.start();
    return encoder;
  }

  /** The level set on a logger, or the level it inherits; empty under another backend. */
  public static Optional<String> level(String logger) {
    return logback().map(context -> context.getLogger(logger).getEffectiveLevel().toString());
  }

  /**
   * Sets a logger's level ({@code TRACE} ... {@code OFF}, or {@code INHERIT} to follow its parent).
   *
   * @throws IllegalArgumentException for an unknown level, or a level below INFO for a logger that
   *     prints request headers
   * @throws UnsupportedOperationException under another backend than logback
   */
  public static void setLevel(String logger, String level) {
    String upper = level.trim().toUpperCase(Locale.ROOT);
    if (!LEVELS.contains(upper) && !upper.equals("INHERIT")) {
      throw new IllegalArgumentException(
          "Unknown log level '" + level + "'; use trace, debug, info, warn, error, off or inherit");
    }
    if (upper.equals("INHERIT") && logger.equalsIgnoreCase(org.slf4j.Logger.ROOT_LOGGER_NAME)) {
      throw new IllegalArgumentException("The root logger inherits from nothing; give it a level");
    }
    if (WireLogFilter.isWireLogger(logger) && !upper.equals("INHERIT") && Level.toLevel(upper).toInt() < Level.INFO_INT) {
      throw new IllegalArgumentException(
          "Logger " + logger + " prints request headers, credentials among them, below INFO; SQE keeps it at INFO or above");
    }
    LoggerContext context = logback().orElseThrow(() -> new UnsupportedOperationException(
        "Log levels can only change under logback, not " + LoggerFactory.getILoggerFactory().getClass().getName()));
    context.getLogger(logger).setLevel(upper.equals("INHERIT") ? null : Level.toLevel(upper));
  }

  /**
   * Keeps the loggers that print request headers at INFO or above ({@link WireLogFilter}),
   * whatever their levels say; once per logging context, also under an operator's logback file.
   */
  public static void protectCredentials() {
    logback().ifPresent(context -> {
      synchronized (context) {
        if (context.getTurboFilterList().stream().noneMatch(WireLogFilter.class::isInstance)) {
          WireLogFilter filter = new WireLogFilter();
          filter.setContext(context);
          filter.start();
          context.addTurboFilter(filter);
        }
      }
    });
  }

  private static Optional<LoggerContext> logback() {
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    return factory instanceof LoggerContext ? Optional.of((LoggerContext) factory) : Optional.empty();
  }
}

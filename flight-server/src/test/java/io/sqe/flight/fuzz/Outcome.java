package io.sqe.flight.fuzz;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How one statement ended: {@code OK}, a Flight status code with the server's message, or one of
 * the client's own verdicts ({@link #CLIENT_DEADLINE}: no answer within the statement timeout and
 * its grace; {@link #CLIENT_ERROR}: an answer the client could not read).
 */
record Outcome(String code, String message, Duration elapsed) {
  static final String OK = "OK";
  static final String CLIENT_DEADLINE = "CLIENT_DEADLINE";
  static final String CLIENT_ERROR = "CLIENT_ERROR";

  /**
   * Codes that are a failure whatever the statement: a server error, a broken or reset stream
   * (gRPC reports those as UNAVAILABLE, CANCELLED, INTERNAL or UNKNOWN; the fuzzer never cancels),
   * a hang, an unreadable answer.
   */
  private static final Set<String> FAILURES =
      Set.of("INTERNAL", "UNKNOWN", "UNAVAILABLE", "CANCELLED", CLIENT_DEADLINE, CLIENT_ERROR);

  private static final Pattern EXPECTING = Pattern.compile("\\s*Was expecting.*", Pattern.DOTALL);
  private static final Pattern ID = Pattern.compile("(?:[0-9a-f]{12}\\.)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  private static final Pattern STRING = Pattern.compile("'[^']*+(?:''[^']*+)*+'");
  private static final Pattern QUOTED = Pattern.compile("\"[^\"]*+(?:\"\"[^\"]*+)*+\"");
  private static final Pattern NUMBER = Pattern.compile("(?<![A-Za-z_$])[-+]?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?");
  private static final Pattern SPACE = Pattern.compile("\\s+");
  private static final int SHAPE_LENGTH = 160;

  Outcome {
    requireNonNull(code, "code is null");
    message = message == null ? "" : message;
    requireNonNull(elapsed, "elapsed is null");
  }

  static Outcome ok(Duration elapsed) {
    return new Outcome(OK, "", elapsed);
  }

  boolean isOk() {
    return code.equals(OK);
  }

  boolean isFailure() {
    return FAILURES.contains(code);
  }

  /** The code and the message's shape: literals, numbers, names in quotes and query ids stripped. */
  String errorClass() {
    return code + ": " + shape(message);
  }

  static String shape(String message) {
    // Possessive patterns over a bounded prefix: messages may quote literals of any length.
    String shape = EXPECTING.matcher(message.length() <= 4_000 ? message : message.substring(0, 4_000)).replaceFirst("");
    shape = ID.matcher(shape).replaceAll("<id>");
    shape = STRING.matcher(shape).replaceAll("'?'");
    shape = QUOTED.matcher(shape).replaceAll("\"?\"");
    shape = NUMBER.matcher(shape).replaceAll("N");
    shape = SPACE.matcher(shape).replaceAll(" ").trim();
    return shape.length() <= SHAPE_LENGTH ? shape : shape.substring(0, SHAPE_LENGTH) + "...";
  }
}

package io.sqe.flight.trino;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.SqeException;
import io.sqe.engine.command.SessionCommands;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a Trino client's request headers say about the session its statement runs in. Trino's
 * protocol keeps the session in the client: every statement carries the user, catalog, schema,
 * time zone, session properties, prepared statements and transaction id, and the responses tell
 * the client what to change ({@link SessionChanges}).
 *
 * @param user {@code X-Trino-User}; null when not sent
 * @param catalog {@code X-Trino-Catalog}; null for the server's default
 * @param schema {@code X-Trino-Schema}; null for none
 * @param timeZone {@code X-Trino-Time-Zone}; null for UTC
 * @param properties {@code X-Trino-Session}, name to value
 * @param preparedStatements {@code X-Trino-Prepared-Statement}, name to SQL text
 * @param transactionId {@code X-Trino-Transaction-Id}; null for none ({@code NONE})
 * @param source {@code X-Trino-Source}, the client application; null when not sent
 * @param clientTags {@code X-Trino-Client-Tags}, in the order sent
 */
record ClientHeaders(
    String user,
    String catalog,
    String schema,
    ZoneId timeZone,
    Map<String, String> properties,
    Map<String, String> preparedStatements,
    String transactionId,
    String source,
    List<String> clientTags) {
  static final String USER = "X-Trino-User";
  static final String CATALOG = "X-Trino-Catalog";
  static final String SCHEMA = "X-Trino-Schema";
  static final String TIME_ZONE = "X-Trino-Time-Zone";
  static final String SESSION = "X-Trino-Session";
  static final String PREPARED_STATEMENT = "X-Trino-Prepared-Statement";
  static final String TRANSACTION_ID = "X-Trino-Transaction-Id";
  static final String SOURCE = "X-Trino-Source";
  static final String CLIENT_TAGS = "X-Trino-Client-Tags";

  static final String SET_CATALOG = "X-Trino-Set-Catalog";
  static final String SET_SCHEMA = "X-Trino-Set-Schema";
  static final String SET_SESSION = "X-Trino-Set-Session";
  static final String CLEAR_SESSION = "X-Trino-Clear-Session";
  static final String ADDED_PREPARE = "X-Trino-Added-Prepare";
  static final String DEALLOCATED_PREPARE = "X-Trino-Deallocated-Prepare";
  static final String STARTED_TRANSACTION_ID = "X-Trino-Started-Transaction-Id";
  static final String CLEAR_TRANSACTION_ID = "X-Trino-Clear-Transaction-Id";

  ClientHeaders {
    properties = Map.copyOf(properties);
    preparedStatements = Map.copyOf(preparedStatements);
    clientTags = List.copyOf(clientTags);
  }

  /** A header that does not hold what the protocol says it holds. */
  static final class BadHeaderException extends Exception {
    BadHeaderException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Reads the headers of a request.
   *
   * @param values every value of a header by its name, in the order sent; empty when absent
   */
  static ClientHeaders read(Function<String, List<String>> values) throws BadHeaderException {
    requireNonNull(values, "values is null");
    String zone = single(values, TIME_ZONE);
    ZoneId timeZone = null;
    if (zone != null) {
      try {
        timeZone = ZoneId.of(zone);
      } catch (DateTimeException e) {
        throw new BadHeaderException("Invalid " + TIME_ZONE + " header: unknown time zone '" + zone + "'");
      }
    }
    String transaction = single(values, TRANSACTION_ID);
    return new ClientHeaders(
        single(values, USER),
        single(values, CATALOG),
        single(values, SCHEMA),
        timeZone,
        pairs(values, SESSION, false),
        pairs(values, PREPARED_STATEMENT, true),
        transaction == null || transaction.equalsIgnoreCase("NONE") ? null : transaction,
        single(values, SOURCE),
        tags(values));
  }

  /**
   * The statement's query tag: the session property {@code query_tag}, else the client tags
   * joined by commas; null for none.
   */
  String queryTag() {
    String property = properties.entrySet().stream()
        .filter(entry -> entry.getKey().equalsIgnoreCase(SessionCommands.QUERY_TAG))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElse(null);
    if (property != null) {
      return property.isBlank() ? null : property.trim();
    }
    return clientTags.isEmpty() ? null : String.join(",", clientTags);
  }

  private static List<String> tags(Function<String, List<String>> values) throws BadHeaderException {
    List<String> tags = new ArrayList<>();
    List<String> all = values.apply(CLIENT_TAGS);
    for (String value : all == null ? List.<String>of() : all) {
      tags.addAll(split(value));
    }
    try {
      SessionCommands.queryTag(String.join(",", tags));
    } catch (SqeException e) {
      throw new BadHeaderException("Invalid " + CLIENT_TAGS + " header: " + e.getMessage());
    }
    return tags;
  }

  Optional<ZoneId> zone() {
    return Optional.ofNullable(timeZone);
  }

  private static String single(Function<String, List<String>> values, String name) throws BadHeaderException {
    List<String> all = values.apply(name);
    if (all == null || all.isEmpty()) {
      return null;
    }
    if (all.size() > 1) {
      throw new BadHeaderException("More than one " + name + " header");
    }
    String value = all.get(0).trim();
    return value.isEmpty() ? null : value;
  }

  /**
   * The {@code name=value} pairs of a header that may repeat and may hold several pairs separated
   * by commas; values are URL-encoded, and so are names when {@code encodedNames}.
   */
  private static Map<String, String> pairs(Function<String, List<String>> values, String header, boolean encodedNames)
      throws BadHeaderException {
    Map<String, String> pairs = new LinkedHashMap<>();
    List<String> all = values.apply(header);
    for (String value : all == null ? List.<String>of() : all) {
      for (String pair : split(value)) {
        int equals = pair.indexOf('=');
        if (equals <= 0) {
          throw new BadHeaderException("Invalid " + header + " header: '" + pair + "' is not name=value");
        }
        String name = pair.substring(0, equals).trim();
        try {
          pairs.put(encodedNames ? decode(name) : name, decode(pair.substring(equals + 1).trim()));
        } catch (IllegalArgumentException e) {
          throw new BadHeaderException("Invalid " + header + " header: a value is not URL-encoded");
        }
      }
    }
    return pairs;
  }

  private static List<String> split(String value) {
    List<String> parts = new ArrayList<>();
    for (String part : value.split(",")) {
      if (!part.isBlank()) {
        parts.add(part.trim());
      }
    }
    return parts;
  }

  static String decode(String value) {
    return URLDecoder.decode(value, StandardCharsets.UTF_8);
  }

  static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}

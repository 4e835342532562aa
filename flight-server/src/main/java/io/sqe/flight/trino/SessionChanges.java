package io.sqe.flight.trino;

import io.sqe.engine.command.SessionCommands;
import io.sqe.engine.session.DurationText;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The response headers that tell a Trino client how a statement changed its session: {@code
 * X-Trino-Set-Catalog} and {@code -Set-Schema} (USE), {@code -Set-Session} and {@code
 * -Clear-Session} (SET and RESET of time_zone and statement_timeout), the prepared statements
 * added and deallocated, and the transaction started or ended. The client sends them back with
 * its next statements.
 */
final class SessionChanges {
  static final SessionChanges NONE = new SessionChanges(List.of());

  private final List<Map.Entry<String, String>> headers;

  private SessionChanges(List<Map.Entry<String, String>> headers) {
    this.headers = List.copyOf(headers);
  }

  /** The headers, in order; a name may repeat. */
  List<Map.Entry<String, String>> headers() {
    return headers;
  }

  static Builder builder() {
    return new Builder();
  }

  /** Collects the changes of one statement. */
  static final class Builder {
    private final List<Map.Entry<String, String>> headers = new ArrayList<>();

    /** What changed between the session a statement ran in and the one it left. */
    Builder session(Session before, Session after) {
      if (!before.catalog().equals(after.catalog())) {
        add(ClientHeaders.SET_CATALOG, after.catalog());
      }
      if (after.schema() != null && !after.schema().equals(before.schema())) {
        add(ClientHeaders.SET_SCHEMA, after.schema());
      }
      if (!before.timeZone().equals(after.timeZone())) {
        add(ClientHeaders.SET_SESSION, "time_zone=" + ClientHeaders.encode(after.timeZone().getId()));
      }
      if (!Objects.equals(before.statementTimeout(), after.statementTimeout())) {
        if (after.statementTimeout() == null) {
          add(ClientHeaders.CLEAR_SESSION, SessionCommands.STATEMENT_TIMEOUT);
        } else {
          add(ClientHeaders.SET_SESSION,
              SessionCommands.STATEMENT_TIMEOUT + "=" + ClientHeaders.encode(DurationText.format(after.statementTimeout())));
        }
      }
      for (Map.Entry<String, String> prepared : after.preparedStatements().entrySet()) {
        if (!prepared.getValue().equals(before.preparedStatements().get(prepared.getKey()))) {
          add(ClientHeaders.ADDED_PREPARE, ClientHeaders.encode(prepared.getKey()) + "=" + ClientHeaders.encode(prepared.getValue()));
        }
      }
      for (String name : before.preparedStatements().keySet()) {
        if (!after.preparedStatements().containsKey(name)) {
          add(ClientHeaders.DEALLOCATED_PREPARE, ClientHeaders.encode(name));
        }
      }
      return this;
    }

    Builder add(String header, String value) {
      headers.add(Map.entry(header, value));
      return this;
    }

    SessionChanges build() {
      return headers.isEmpty() ? NONE : new SessionChanges(headers);
    }
  }
}

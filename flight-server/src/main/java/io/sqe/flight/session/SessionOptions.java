package io.sqe.flight.session;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.command.SessionCommands;
import io.sqe.engine.session.DurationText;
import io.sqe.engine.session.Session;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.flight.NoOpSessionOptionValueVisitor;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsResult;

/**
 * The session options clients may set through Flight's SetSessionOptions: {@code catalog} and
 * {@code schema} (the names ADBC and the JDBC driver use), {@code time_zone} and {@code
 * statement_timeout}.
 */
public final class SessionOptions {
  public static final String CATALOG = "catalog";
  public static final String SCHEMA = "schema";
  public static final String TIME_ZONE = "time_zone";
  public static final String STATEMENT_TIMEOUT = SessionCommands.STATEMENT_TIMEOUT;

  private final Catalogs catalogs;
  private final EngineConfig engine;

  /** @param engine the engine's limits: its statement timeout is the default and the ceiling of the session's */
  public SessionOptions(Catalogs catalogs, EngineConfig engine) {
    this.catalogs = requireNonNull(catalogs, "catalogs is null");
    this.engine = requireNonNull(engine, "engine is null");
  }

  /** Applies the options it can and returns an error for each one it cannot. */
  public Map<String, SetSessionOptionsResult.Error> apply(ClientSession session, Map<String, SessionOptionValue> options) {
    Map<String, SetSessionOptionsResult.Error> errors = new HashMap<>();
    for (Map.Entry<String, SessionOptionValue> option : options.entrySet()) {
      String name = option.getKey();
      Optional<String> value = text(option.getValue());
      switch (name) {
        case CATALOG:
          if (value.isEmpty() || !isName(value.get()) || catalogs.find(value.get()).isEmpty()) {
            errors.put(name, error(SetSessionOptionsResult.ErrorValue.INVALID_VALUE));
          } else {
            String catalog = catalogs.find(value.get()).get().name();
            session.update(s -> s.withCatalog(catalog));
          }
          break;
        case SCHEMA:
          if (value.isEmpty() || value.get().isBlank()) {
            session.update(s -> s.withSchema(null));
          } else if (!isName(value.get()) || !schemaExists(session.session(), value.get())) {
            errors.put(name, error(SetSessionOptionsResult.ErrorValue.INVALID_VALUE));
          } else {
            session.update(s -> s.withSchema(value.get()));
          }
          break;
        case TIME_ZONE:
          try {
            ZoneId zone = ZoneId.of(value.orElse("UTC"));
            session.update(s -> s.withTimeZone(zone));
          } catch (DateTimeException e) {
            errors.put(name, error(SetSessionOptionsResult.ErrorValue.INVALID_VALUE));
          }
          break;
        case STATEMENT_TIMEOUT:
          if (option.getValue() == null || option.getValue().isEmpty()) {
            session.update(s -> s.withStatementTimeout(null));
          } else {
            Optional<Duration> timeout = timeout(option.getValue());
            if (timeout.isEmpty()) {
              errors.put(name, error(SetSessionOptionsResult.ErrorValue.INVALID_VALUE));
            } else {
              session.update(s -> s.withStatementTimeout(timeout.get()));
            }
          }
          break;
        default:
          errors.put(name, error(SetSessionOptionsResult.ErrorValue.INVALID_NAME));
      }
    }
    return errors;
  }

  public Map<String, SessionOptionValue> current(ClientSession session) {
    Session s = session.session();
    Map<String, SessionOptionValue> values = new HashMap<>();
    values.put(CATALOG, SessionOptionValueFactory.makeSessionOptionValue(s.catalog()));
    values.put(
        SCHEMA,
        s.schema() == null
            ? SessionOptionValueFactory.makeEmptySessionOptionValue()
            : SessionOptionValueFactory.makeSessionOptionValue(s.schema()));
    values.put(TIME_ZONE, SessionOptionValueFactory.makeSessionOptionValue(s.timeZone().getId()));
    // What statements run under, the server's ceiling applied.
    Duration timeout = engine.statementTimeout(s.statementTimeout());
    values.put(STATEMENT_TIMEOUT, SessionOptionValueFactory.makeSessionOptionValue(DurationText.format(timeout)));
    return values;
  }

  /** A timeout as text ({@code 30s}, {@code 500ms}) or as a whole number of milliseconds. */
  private static Optional<Duration> timeout(SessionOptionValue value) {
    Optional<String> text = text(value);
    if (text.isPresent()) {
      return DurationText.parseTimeout(text.get());
    }
    Long millis =
        value.acceptVisitor(
            new NoOpSessionOptionValueVisitor<Long>() {
              @Override
              public Long visit(long v) {
                return v;
              }
            });
    return millis == null || millis < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(millis));
  }

  /** No name holds a NUL character (SQL refuses one too); the catalog's store would end the name there. */
  private static boolean isName(String value) {
    return value.indexOf('\0') < 0;
  }

  private boolean schemaExists(Session session, String schema) {
    Optional<LakehouseCatalog> catalog = catalogs.find(session.catalog());
    return catalog.isPresent() && catalog.get().schemaExists(schema);
  }

  private static SetSessionOptionsResult.Error error(SetSessionOptionsResult.ErrorValue value) {
    return new SetSessionOptionsResult.Error(value);
  }

  private static Optional<String> text(SessionOptionValue value) {
    if (value == null || value.isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(
        value.acceptVisitor(
            new NoOpSessionOptionValueVisitor<String>() {
              @Override
              public String visit(String v) {
                return v;
              }
            }));
  }
}

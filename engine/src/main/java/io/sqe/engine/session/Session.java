package io.sqe.engine.session;

import static java.util.Objects.requireNonNull;

import java.time.ZoneId;
import java.util.Optional;

/**
 * What a statement runs with: the principal, the default catalog and schema that unqualified
 * names resolve against, and the time zone for TIMESTAMP WITH TIME ZONE values.
 */
public record Session(Principal principal, String catalog, String schema, ZoneId timeZone) {
  public Session {
    requireNonNull(principal, "principal is null");
    requireNonNull(catalog, "catalog is null");
    requireNonNull(timeZone, "timeZone is null");
  }

  public Optional<String> schemaName() {
    return Optional.ofNullable(schema);
  }

  public Session withCatalog(String catalog) {
    return new Session(principal, catalog, schema, timeZone);
  }

  public Session withSchema(String schema) {
    return new Session(principal, catalog, schema, timeZone);
  }

  public Session withTimeZone(ZoneId timeZone) {
    return new Session(principal, catalog, schema, timeZone);
  }
}

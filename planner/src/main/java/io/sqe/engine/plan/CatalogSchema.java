package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.session.Session;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.lookup.LikePattern;
import org.apache.calcite.schema.lookup.Lookup;
import org.apache.calcite.schema.lookup.Named;
import org.apache.iceberg.catalog.Namespace;

/**
 * A catalog as a Calcite schema whose sub-schemas are its namespaces, looked up on demand, and
 * the system schemas, which come first.
 */
final class CatalogSchema extends AbstractSchema {
  private final LakehouseCatalog catalog;
  private final List<SystemSchema> systemSchemas;
  private final Session session;
  private final AccessControl access;
  private final PlanReads reads;
  // One instance serves one statement's planning, whose validator asks for the same names many
  // times (every alias and column qualifier is tried as a schema first): ask the catalog once.
  private final Map<String, Optional<NamespaceSchema>> lookedUp = new HashMap<>();
  private Set<String> names;

  CatalogSchema(LakehouseCatalog catalog, List<SystemSchema> systemSchemas, Session session, AccessControl access, PlanReads reads) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.systemSchemas = List.copyOf(systemSchemas);
    this.session = requireNonNull(session, "session is null");
    this.access = requireNonNull(access, "access is null");
    this.reads = requireNonNull(reads, "reads is null");
  }

  /** The namespace as the session's principal sees it; null when it may not see it. */
  NamespaceSchema namespace(String name) {
    if (!access.canSeeSchema(session.principal(), catalog.name(), name)) {
      return null;
    }
    reads.schema(catalog.name(), name);
    return new NamespaceSchema(catalog, name, access, session.principal(), reads);
  }

  @Override
  public Lookup<Table> tables() {
    return Lookup.empty();
  }

  @Override
  public Lookup<? extends Schema> subSchemas() {
    return new Lookup<Schema>() {
      @Override
      public Schema get(String name) {
        for (SystemSchema system : systemSchemas) {
          if (system.name().equals(name)) {
            reads.unversioned("a system table");
            return system.schema(catalog, session);
          }
        }
        return lookedUp.computeIfAbsent(name, n -> Optional.ofNullable(catalog.schemaExists(n) ? namespace(n) : null)).orElse(null);
      }

      @Override
      public Named<Schema> getIgnoreCase(String name) {
        for (SystemSchema system : systemSchemas) {
          if (system.name().equalsIgnoreCase(name)) {
            reads.unversioned("a system table");
            return new Named<>(system.name(), system.schema(catalog, session));
          }
        }
        Schema exact = get(name);
        if (exact != null) {
          return new Named<>(name, exact);
        }
        for (String candidate : names()) {
          if (candidate.equalsIgnoreCase(name)) {
            NamespaceSchema namespace = namespace(candidate);
            return namespace == null ? null : new Named<>(candidate, namespace);
          }
        }
        return null;
      }

      @Override
      public Set<String> getNames(LikePattern pattern) {
        Set<String> result = new LinkedHashSet<>();
        for (SystemSchema system : systemSchemas) {
          if (pattern.matcher().apply(system.name())) {
            result.add(system.name());
          }
        }
        for (String name : names()) {
          if (pattern.matcher().apply(name) && access.canSeeSchema(session.principal(), catalog.name(), name)) {
            result.add(name);
          }
        }
        return result;
      }
    };
  }

  private Set<String> names() {
    if (names == null) {
      names = listNames();
    }
    return names;
  }

  private Set<String> listNames() {
    Set<String> names = new LinkedHashSet<>();
    for (Namespace ns : catalog.listSchemas()) {
      names.add(String.join(".", ns.levels()));
    }
    return names;
  }

  static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}

package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.security.Privilege;
import io.sqe.engine.security.TableAccess;
import io.sqe.engine.session.DurationText;
import io.sqe.engine.session.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.View;

/**
 * SQE's materialized views as the catalog keeps them, after Trino's Iceberg layout: an Iceberg
 * view (the query, as any view) whose properties name its storage table ({@value
 * #STORAGE_SCHEMA}, {@value #STORAGE_TABLE}), and that table, whose current snapshot records in
 * its summary the lineage of the refresh that wrote it ({@code sqe.lineage.inputs}: each table it
 * scanned at its snapshot id, each table planned with its schema id, each view at its version).
 * The view is fresh while every input is still as recorded.
 */
public final class MaterializedViews {
  /** View property: the schema of the storage table (Trino's name). */
  public static final String STORAGE_SCHEMA = "storage_schema";
  /** View property: the name of the storage table (Trino's name). */
  public static final String STORAGE_TABLE = "storage_table";
  /**
   * View property: how long after a source first moved the storage table may still be read, as
   * {@link DurationText} writes it (Trino's GRACE PERIOD); absent or zero, a moved source always
   * sends reads to the view's query.
   */
  public static final String MAX_STALENESS = "max_staleness";
  /** Storage table snapshot summary property: the inputs of the refresh that wrote it (see {@code io.sqe.write.reuse.Lineage}). */
  static final String LINEAGE_INPUTS = "sqe.lineage.inputs";

  /** How many materialized views this process created or replaced. */
  private static final AtomicLong DEFINITIONS = new AtomicLong();

  private MaterializedViews() {}

  /**
   * Counts a materialized view created or replaced: a plan cached before it never looked for it,
   * so the plan cache plans such a statement again ({@link PlanReads#soughtMaterializedViewsBefore}).
   */
  public static void defined() {
    DEFINITIONS.incrementAndGet();
  }

  /** See {@link #defined()}. */
  public static long definitions() {
    return DEFINITIONS.get();
  }

  /** Whether {@code view} is a materialized view: it names a storage table. */
  public static boolean isMaterialized(View view) {
    return view.properties().containsKey(STORAGE_TABLE);
  }

  /** The storage table of a materialized view in namespace {@code schema}; empty for a plain view. */
  public static Optional<TableIdentifier> storageTable(View view, String schema) {
    Map<String, String> properties = view.properties();
    String table = properties.get(STORAGE_TABLE);
    if (table == null) {
      return Optional.empty();
    }
    return Optional.of(TableIdentifier.of(properties.getOrDefault(STORAGE_SCHEMA, schema), table));
  }

  /** The view's {@value #MAX_STALENESS}; zero when it sets none or one that is not a duration. */
  public static Duration maxStaleness(View view) {
    return DurationText.parse(view.properties().get(MAX_STALENESS)).orElse(Duration.ZERO);
  }

  /** The materialized view {@code id} of {@code catalog}, or empty when there is none (or it is a plain view). */
  public static Optional<View> load(LakehouseCatalog catalog, TableIdentifier id) {
    if (catalog.views().isEmpty()) {
      return Optional.empty();
    }
    try {
      View view = catalog.views().get().loadView(id);
      return isMaterialized(view) ? Optional.of(view) : Optional.empty();
    } catch (NoSuchViewException e) {
      return Optional.empty();
    }
  }

  /** Whether a materialized view's storage table may answer for its query, and if not, why. */
  public record Freshness(boolean usable, String reason, List<List<String>> sources) {
    public Freshness {
      requireNonNull(reason, "reason is null");
      sources = List.copyOf(sources);
    }

    static Freshness stale(String reason) {
      return new Freshness(false, reason, List.of());
    }
  }

  /**
   * Whether {@code storage} (of a view in {@code catalog}) holds what the view's query returns now,
   * or returned at most {@code maxStaleness} ago. The sources are the catalog, schema and name of
   * every table and view the refresh read, whose access a reader of the storage table must have.
   *
   * @param now the current time in epoch milliseconds
   */
  public static Freshness freshness(LakehouseCatalog catalog, Table storage, Duration maxStaleness, long now) {
    return freshness(catalog, storage, null, maxStaleness, now);
  }

  /**
   * As {@link #freshness(LakehouseCatalog, Table, Duration, long)}, and the storage table must
   * have the columns of {@code view} (a refresh after a source's columns changed may have written
   * others, which the view does not declare).
   */
  public static Freshness freshness(LakehouseCatalog catalog, Table storage, View view, Duration maxStaleness, long now) {
    if (view != null && !sameColumns(storage.schema(), view.schema())) {
      return Freshness.stale("the storage table's columns are not the view's");
    }
    Snapshot current = storage.currentSnapshot();
    String inputs = current == null ? null : current.summary().get(LINEAGE_INPUTS);
    if (inputs == null) {
      return Freshness.stale("the storage table records no lineage (its query is not a function of versioned tables)");
    }
    List<List<String>> sources = new ArrayList<>();
    long staleSince = Long.MAX_VALUE;
    String moved = null;
    for (String input : inputs.isEmpty() ? new String[0] : inputs.split(";", -1)) {
      // Lineage's escapes: a quoted name may hold the separator.
      String[] tokens = input.replace("%3B", ";").replace("%25", "%").split(" ");
      if (tokens.length < 5) {
        return Freshness.stale("unknown input " + input);
      }
      String kind = tokens[0];
      String name = String.join(" ", List.of(tokens).subList(1, tokens.length - 3));
      String uuid = tokens[tokens.length - 3];
      String label = tokens[tokens.length - 2];
      long value = Long.parseLong(tokens[tokens.length - 1]);
      int dot = name.indexOf('.');
      if (dot < 0 || !name.substring(0, dot).equals(catalog.name())) {
        return Freshness.stale("it reads " + name + " of another catalog");
      }
      TableIdentifier id = TableIdentifier.parse(name.substring(dot + 1));
      sources.add(List.of(catalog.name(), id.namespace().level(0), id.name()));
      if (kind.equals("view")) {
        Optional<View> read = catalog.views().flatMap(v -> {
          try {
            return Optional.of(v.loadView(id));
          } catch (NoSuchViewException e) {
            return Optional.empty();
          }
        });
        if (read.isEmpty() || !read.get().uuid().toString().equals(uuid) || read.get().currentVersion().versionId() != value) {
          return Freshness.stale("view " + name + " was replaced");
        }
        continue;
      }
      Optional<Table> table = catalog.loadTable(id);
      if (table.isEmpty() || !table.get().uuid().toString().equals(uuid)) {
        return Freshness.stale("table " + name + " was dropped or re-created");
      }
      if (label.equals("schema")) {
        if (table.get().schema().schemaId() != value) {
          return Freshness.stale("the schema of " + name + " changed");
        }
        continue;
      }
      Snapshot snapshot = table.get().currentSnapshot();
      long snapshotId = snapshot == null ? -1 : snapshot.snapshotId();
      if (snapshotId != value) {
        moved = moved == null ? name : moved;
        staleSince = Math.min(staleSince, firstChangeAfter(table.get(), value));
      }
    }
    if (moved == null) {
      return new Freshness(true, "no source moved since the refresh", sources);
    }
    if (staleSince != Long.MIN_VALUE && now - staleSince <= maxStaleness.toMillis() && !maxStaleness.isZero()) {
      return new Freshness(true, moved + " moved, within the view's max_staleness of " + maxStaleness, sources);
    }
    return Freshness.stale(moved + " moved since the refresh");
  }

  /**
   * The first source of a fresh view that {@code principal} may not SELECT without restriction (a
   * row filter, mask or hidden column), or empty: only a reader of the sources as they are may
   * read the storage table in their place.
   */
  static Optional<List<String>> restrictedSource(Freshness freshness, AccessControl access, Principal principal) {
    return restrictedSource(freshness.sources(), access, principal);
  }

  /** As {@link #restrictedSource(Freshness, AccessControl, Principal)}, of {@code sources} (catalog, schema, name each). */
  static Optional<List<String>> restrictedSource(List<List<String>> sources, AccessControl access, Principal principal) {
    for (List<String> source : sources) {
      TableAccess sourceAccess = access.tableAccess(principal, source.get(0), source.get(1), source.get(2));
      if (!sourceAccess.has(Privilege.SELECT) || sourceAccess.restricts()) {
        return Optional.of(source);
      }
    }
    return Optional.empty();
  }

  /** Whether the two schemas have the same column names and types, field ids aside. */
  public static boolean sameColumns(Schema a, Schema b) {
    List<Types.NestedField> left = a.columns();
    List<Types.NestedField> right = b.columns();
    if (left.size() != right.size()) {
      return false;
    }
    for (int i = 0; i < left.size(); i++) {
      Type l = left.get(i).type();
      Type r = right.get(i).type();
      if (!left.get(i).name().equals(right.get(i).name()) || l.typeId() != r.typeId() || (l.isPrimitiveType() && !l.equals(r))) {
        return false;
      }
    }
    return true;
  }

  /**
   * When {@code table} first moved past snapshot {@code recorded}: the commit time of the oldest
   * snapshot after it in the current snapshot's ancestry; {@link Long#MIN_VALUE} (stale for ever)
   * when {@code recorded} is not an ancestor (a rollback, or expired history).
   */
  private static long firstChangeAfter(Table table, long recorded) {
    Snapshot snapshot = table.currentSnapshot();
    long first = Long.MIN_VALUE;
    while (snapshot != null) {
      if (snapshot.snapshotId() == recorded) {
        return first;
      }
      first = snapshot.timestampMillis();
      snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    }
    return recorded == -1 ? first : Long.MIN_VALUE;
  }
}

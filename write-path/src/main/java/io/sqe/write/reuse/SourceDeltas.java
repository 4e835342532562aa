package io.sqe.write.reuse;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.command.CommandContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * How the sources of a materialization moved between the lineage it recorded and the lineage it
 * would record now, when every move is a line of appends: each table is the same table (UUID),
 * with the same schema, and every snapshot after the recorded one up to the current one is an
 * {@code append}. An incremental refresh then reads, of each source that moved, only the rows
 * those snapshots appended.
 *
 * @param sources every table read, in the lineage's order, with the snapshot recorded and the
 *     one now; empty when {@code whyNot} says why the moves are not all appends
 * @param whyNot why a refresh must read the sources in full; null when it need not
 */
public record SourceDeltas(List<Source> sources, String whyNot) {
  /**
   * One table the materialization reads.
   *
   * @param before the snapshot the last refresh read
   * @param after the snapshot a refresh reads now; {@code before} when the table did not move
   */
  public record Source(LakehouseCatalog catalog, TableIdentifier id, String name, Table table, long before, long after) {
    public Source {
      requireNonNull(catalog, "catalog is null");
      requireNonNull(id, "id is null");
      requireNonNull(name, "name is null");
      requireNonNull(table, "table is null");
    }

    public boolean moved() {
      return before != after;
    }
  }

  public SourceDeltas {
    sources = List.copyOf(sources);
  }

  private static SourceDeltas no(String whyNot) {
    return new SourceDeltas(List.of(), whyNot);
  }

  /** The moves from {@code recorded} (the last refresh's lineage) to {@code now} (this one's). */
  public static SourceDeltas between(CommandContext context, Lineage recorded, Lineage now) {
    List<Lineage.Input> before = parse(recorded);
    List<Lineage.Input> after = parse(now);
    if (before == null || after == null) {
      return no("a lineage input is not in the form SQE writes");
    }
    TreeSet<String> schemasBefore = new TreeSet<>();
    TreeSet<String> schemasAfter = new TreeSet<>();
    for (Lineage.Input input : before) {
      if (input.kind().equals("view")) {
        return no("the query reads view " + input.name() + ", which has no snapshots to read appends from");
      }
      if (input.label().equals("schema")) {
        schemasBefore.add(input.text());
      }
    }
    for (Lineage.Input input : after) {
      if (input.label().equals("schema")) {
        schemasAfter.add(input.text());
      }
    }
    if (!schemasBefore.equals(schemasAfter)) {
      return no("the columns of a source changed");
    }
    List<Lineage.Input> scannedBefore = before.stream().filter(i -> i.label().equals("snapshot")).toList();
    List<Lineage.Input> scannedAfter = after.stream().filter(i -> i.label().equals("snapshot")).toList();
    if (scannedBefore.size() != scannedAfter.size()) {
      return no("the query reads other tables than at the last refresh");
    }
    List<Source> sources = new ArrayList<>();
    for (int i = 0; i < scannedAfter.size(); i++) {
      Lineage.Input was = scannedBefore.get(i);
      Lineage.Input is = scannedAfter.get(i);
      if (!was.name().equals(is.name()) || !was.uuid().equals(is.uuid())) {
        return no("table " + is.name() + " was dropped and created again");
      }
      int dot = is.name().indexOf('.');
      String catalogName = is.name().substring(0, dot);
      Optional<LakehouseCatalog> catalog = context.catalogs().find(catalogName);
      if (catalog.isEmpty()) {
        return no("catalog " + catalogName + " is gone");
      }
      TableIdentifier id = TableIdentifier.parse(is.name().substring(dot + 1));
      Optional<Table> table = catalog.get().loadTable(id);
      if (table.isEmpty() || !table.get().uuid().toString().equals(is.uuid())) {
        return no("table " + is.name() + " was dropped and created again");
      }
      if (was.value() != is.value()) {
        String appends = onlyAppends(table.get(), was.value(), is.value());
        if (appends != null) {
          return no(is.name() + " " + appends);
        }
      }
      sources.add(new Source(catalog.get(), id, is.name(), table.get(), was.value(), is.value()));
    }
    return new SourceDeltas(sources, null);
  }

  /**
   * Why the snapshots after {@code before} up to {@code after} are not all appends (a delete, an
   * overwrite, a replace that cut the history); null when they are.
   */
  private static String onlyAppends(Table table, long before, long after) {
    if (before == -1) {
      return "had no snapshot at the last refresh";
    }
    Snapshot snapshot = table.snapshot(after);
    while (snapshot != null && snapshot.snapshotId() != before) {
      if (!DataOperations.APPEND.equals(snapshot.operation())) {
        return "had a commit that is not an append since the last refresh (" + snapshot.operation() + ", snapshot " + snapshot.snapshotId() + ")";
      }
      snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    }
    return snapshot == null ? "does not descend from the snapshot of the last refresh (replaced, rolled back or expired)" : null;
  }

  private static List<Lineage.Input> parse(Lineage lineage) {
    List<Lineage.Input> inputs = new ArrayList<>();
    for (String text : lineage.inputs()) {
      Optional<Lineage.Input> input = Lineage.Input.parse(text);
      if (input.isEmpty() || input.get().name().indexOf('.') < 0) {
        return null;
      }
      inputs.add(input.get());
    }
    return inputs;
  }
}

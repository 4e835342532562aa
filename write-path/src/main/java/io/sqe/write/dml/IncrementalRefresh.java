package io.sqe.write.dml;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.SqeException;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.exec.RowStream;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.sql.SqeParser;
import io.sqe.write.dml.TableNames.TableRef;
import io.sqe.write.files.DataFileWriter;
import io.sqe.write.reuse.IncrementalQuery;
import io.sqe.write.reuse.Lineage;
import io.sqe.write.reuse.MaterializationReuse;
import io.sqe.write.reuse.SourceDeltas;
import io.sqe.write.txn.Commits;
import io.sqe.write.txn.TableWrite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A refresh of a materialized view's storage table (a CREATE OR REPLACE TABLE ... AS of the view's
 * query, {@code full}) that reads of its sources only the rows appended since the last refresh,
 * when every source only had appends since and the query is one {@link IncrementalQuery} accepts;
 * otherwise the full rewrite, or nothing when no source moved ({@link MaterializationReuse}).
 *
 * <p>The delta is the standard rule for a join of sources S1..Sn: for each source i that moved,
 * the query over i's appended rows, the sources before i at their new snapshots and those after i
 * at their old ones; the terms together are exactly the rows the new snapshots add to the query's
 * result. Without grouping they are appended to the storage table; with grouping each term's
 * groups are merged into the stored ones (SUM and COUNT add, MIN and MAX keep the smaller and the
 * larger, NULL being no value), and the table is written again from its groups, which are far
 * fewer than the sources' rows. Either way one commit, validated against any other commit to the
 * storage table since the one read, records the new lineage with the rows, exactly as the full
 * rewrite would.
 */
public final class IncrementalRefresh {
  /** The reason an incremental refresh gives for the trailers and the audit line. */
  public static final String REASON = "incremental";
  /** How many times a refresh decides and runs before a lost commit race fails it. */
  private static final int RACE_ATTEMPTS = 3;

  private final CreateTableAsCommand full;
  private final Lineage lineage;
  private final Table storage;
  private final Snapshot base;
  private final long storedRows;
  private final IncrementalQuery shape;
  private final List<SourceDeltas.Source> sources;
  private final String sql;

  private IncrementalRefresh(
      CreateTableAsCommand full,
      Lineage lineage,
      Table storage,
      Snapshot base,
      long storedRows,
      IncrementalQuery shape,
      List<SourceDeltas.Source> sources,
      String sql) {
    this.full = requireNonNull(full, "full is null");
    this.lineage = requireNonNull(lineage, "lineage is null");
    this.storage = requireNonNull(storage, "storage is null");
    this.base = requireNonNull(base, "base is null");
    this.storedRows = storedRows;
    this.shape = requireNonNull(shape, "shape is null");
    this.sources = List.copyOf(sources);
    this.sql = requireNonNull(sql, "sql is null");
  }

  /** What a refresh does now: reuse or rewrite ({@code decision}), or refresh incrementally (when {@code incremental} is not null). */
  private record Choice(MaterializationReuse.Decision decision, IncrementalRefresh incremental) {}

  /**
   * Refreshes the storage table that {@code full} (a CREATE OR REPLACE TABLE ... AS of {@code
   * sql}, the view's query) writes: nothing when no source moved, incrementally when it can, else
   * by {@code full}.
   */
  public static CommandResult refresh(CommandContext context, CreateTableAsCommand full, String sql) {
    for (int attempt = 0; ; attempt++) {
      // A retry writes files named apart from those of the attempt that lost.
      CommandContext run = attempt == 0 ? context : context.withAttempt(context.attempt() + attempt);
      Choice choice = choose(run, full, sql);
      if (choice.incremental() == null) {
        return full.run(run, List.of(), choice.decision());
      }
      try {
        return choice.incremental().run(run);
      } catch (ArithmeticException e) {
        // A sum outgrew its column's type: the full rewrite reports it as the query would.
        return full.run(run, List.of(), rewrite(choice.decision(), "a merged sum does not fit its column"));
      } catch (SqeException e) {
        // Another refresh committed first: decide again from what it wrote (most often, nothing to do).
        if (attempt >= RACE_ATTEMPTS - 1 || !Commits.lostRace(e)) {
          throw e;
        }
      }
    }
  }

  /** What {@link #refresh} would do now, and the plans it would run, one line each: EXPLAIN REFRESH. */
  public static List<String> explain(CommandContext context, CreateTableAsCommand full, String sql) {
    Choice choice = choose(context, full, sql);
    List<String> lines = new ArrayList<>();
    CommandResult.Reuse reuse = choice.decision().reuse();
    if (reuse.reused()) {
      lines.add("-- refresh: none (" + reuse.reason() + ": " + reuse.detail() + ")");
      return lines;
    }
    if (choice.incremental() == null) {
      lines.add("-- refresh: full (" + reuse.reason() + ": " + reuse.detail() + ")");
      lines.addAll(List.of(full.query().explain().split("\n")));
      return lines;
    }
    IncrementalRefresh incremental = choice.incremental();
    lines.add("-- refresh: " + REASON + " (" + incremental.detail() + ")");
    List<SourceDeltas.Source> moved = incremental.sources.stream().filter(SourceDeltas.Source::moved).toList();
    for (SourceDeltas.Source source : moved) {
      lines.add("-- rows appended to " + source.name() + " after snapshot " + source.before() + " up to " + source.after());
      lines.addAll(List.of(incremental.term(context, incremental.sources.indexOf(source)).explain().split("\n")));
    }
    return lines;
  }

  private static Choice choose(CommandContext context, CreateTableAsCommand full, String sql) {
    MaterializationReuse.Decision decision = full.decide(context, List.of());
    CommandResult.Reuse reuse = decision.reuse();
    // Only moved inputs can be followed incrementally, under a plan that may differ (the same query
    // planned with the sources' new statistics): another policy, SQE version, a transaction or
    // reuse turned off rewrite as they did.
    if (reuse.reused() || decision.lineage() == null || !(reuse.reason().equals("input_changed") || reuse.reason().equals("plan_changed"))) {
      return new Choice(decision, null);
    }
    TableRef target = full.target();
    Table storage = target.catalog().iceberg().loadTable(target.id());
    Snapshot base = storage.currentSnapshot();
    Optional<Lineage> recorded = base == null ? Optional.empty() : Lineage.of(base.summary());
    Lineage now = decision.lineage();
    String rows = base == null ? null : base.summary().get(Lineage.ROWS);
    if (recorded.isEmpty() || rows == null || !recorded.get().policy().equals(now.policy()) || !recorded.get().version().equals(now.version())) {
      return new Choice(rewrite(decision, "the storage table changed while the refresh was planned"), null);
    }
    if (!recorded.get().fingerprint().equals(now.fingerprint())
        && (recorded.get().context().isEmpty() || !recorded.get().context().equals(now.context()))) {
      return new Choice(rewrite(decision, "the session (time zone, defaults) or the table's shape changed, not only the plan"), null);
    }
    if (!MaterializationReuse.targetShape(storage).equals(base.summary().get(Lineage.TARGET))
        || !storage.schema().asStruct().equals(full.schema().asStruct())) {
      return new Choice(rewrite(decision, "the storage table was altered, or the query's columns changed"), null);
    }
    IncrementalQuery.Analysis analysis = IncrementalQuery.analyze(SqeParser.parse(sql));
    if (analysis.query() == null) {
      return new Choice(rewrite(decision, analysis.whyNot()), null);
    }
    IncrementalQuery shape = analysis.query();
    SourceDeltas deltas = SourceDeltas.between(context, recorded.get(), now);
    if (deltas.whyNot() != null) {
      return new Choice(rewrite(decision, deltas.whyNot()), null);
    }
    if (shape.tables() != deltas.sources().size()) {
      return new Choice(rewrite(decision, "the query reads a table more than once"), null);
    }
    if (shape.grouped()) {
      List<Types.NestedField> columns = storage.schema().columns();
      if (columns.size() != shape.columns().size()) {
        return new Choice(rewrite(decision, "the storage table's columns are not the query's"), null);
      }
      for (int i = 0; i < columns.size(); i++) {
        String unmergeable = unmergeable(shape.columns().get(i), columns.get(i).type().typeId());
        if (unmergeable != null) {
          return new Choice(rewrite(decision, "column " + columns.get(i).name() + " " + unmergeable), null);
        }
      }
    }
    return new Choice(decision, new IncrementalRefresh(full, now, storage, base, Long.parseLong(rows), shape, deltas.sources(), sql));
  }

  /** Why a stored column of type {@code type} cannot take a merge of {@code column}; null when it can. */
  private static String unmergeable(IncrementalQuery.Column column, Type.TypeID type) {
    return switch (column) {
      case KEY, DEPENDENT -> null;
      // A floating-point sum depends on the order of addition: merged, it would differ from the query's.
      case SUM, COUNT -> type == Type.TypeID.INTEGER || type == Type.TypeID.LONG || type == Type.TypeID.DECIMAL
          ? null
          : "sums " + type.name().toLowerCase(Locale.ROOT) + " values, which a merge cannot add exactly";
      // Floating point is left out too: NaN and -0.0 might compare otherwise than in the query.
      case MIN, MAX -> switch (type) {
        case BOOLEAN, INTEGER, LONG, DECIMAL, DATE, TIME, TIMESTAMP, STRING -> null;
        default -> "takes the least or greatest of " + type.name().toLowerCase(Locale.ROOT) + " values, which a merge does not compare";
      };
    };
  }

  /** {@code decision}'s full rewrite, saying why it is not incremental. */
  private static MaterializationReuse.Decision rewrite(MaterializationReuse.Decision decision, String whyNot) {
    CommandResult.Reuse reuse = decision.reuse();
    return new MaterializationReuse.Decision(
        CommandResult.Reuse.rebuilt(reuse.reason(), reuse.detail() + "; rewritten in full: " + whyNot), decision.lineage(), decision.rows());
  }

  private String detail() {
    List<String> moved = sources.stream().filter(SourceDeltas.Source::moved).map(s -> s.name() + " after snapshot " + s.before()).toList();
    return "rows appended to " + String.join(", ", moved) + (shape.grouped() ? ", merged into the stored groups" : ", appended");
  }

  /** The delta rule's term for source {@code moved}: its appended rows, the sources before it new, those after it old. */
  private PlannedQuery term(CommandContext context, int moved) {
    List<IcebergTable> tables = new ArrayList<>();
    for (int j = 0; j < sources.size(); j++) {
      SourceDeltas.Source source = sources.get(j);
      tables.add(j == moved
          ? IcebergTable.appendedBetween(source.catalog(), source.id(), source.table(), source.before(), source.after())
          : IcebergTable.atSnapshot(
              source.catalog(), source.id(), source.table(), j < moved ? source.after() : source.before(), source.table().schema()));
    }
    return context.queries().plan(context.session(), SqeParser.parse(sql), sql, tables);
  }

  private CommandResult run(CommandContext context) {
    TableRef target = full.target();
    Schema schema = storage.schema();
    List<ValueConversion> conversions = full.conversions();
    Record template = GenericRecord.create(schema);
    Map<List<Object>, Record> groups = shape.grouped() ? storedGroups(schema) : null;
    DataFileWriter writer = DataFileWriter.builder(storage).operationId(context.queryId()).partitionId(context.attempt()).build();
    List<DataFile> files;
    long rows;
    try {
      for (int i = 0; i < sources.size(); i++) {
        if (!sources.get(i).moved()) {
          continue;
        }
        try (RowStream stream = context.queries().rows(context.session(), term(context, i), List.of(), context.queryId())) {
          while (stream.next()) {
            Object[] row = stream.current();
            Record record = template.copy();
            for (int c = 0; c < row.length; c++) {
              record.set(c, conversions.get(c).apply(row[c]));
            }
            if (groups == null) {
              writer.write(record);
            } else {
              groups.merge(key(record), record, (stored, delta) -> merged(schema, stored, delta));
            }
          }
        }
      }
      if (groups != null) {
        groups.values().forEach(writer::write);
        rows = groups.size();
      } else {
        rows = storedRows + writer.rowCount();
      }
      files = writer.complete();
    } catch (RuntimeException | Error e) {
      writer.abort();
      throw e;
    }
    TableWrite write = TableWrite.existing(context.session(), target.catalog(), target.id(), () -> storage, context.queryId());
    write.summarize(lineage.summary(rows, MaterializationReuse.targetShape(storage)));
    OverwriteFiles overwrite = write.newOverwrite();
    if (groups != null) {
      baseFiles().forEach(overwrite::deleteFile);
    }
    files.forEach(overwrite::addFile);
    // Another refresh that committed since the snapshot read would be counted twice.
    overwrite.validateFromSnapshot(base.snapshotId())
        .conflictDetectionFilter(Expressions.alwaysTrue())
        .validateNoConflictingData()
        .validateNoConflictingDeletes();
    write.commit(overwrite, writer.paths(), "REFRESH of " + target.displayName());
    return CommandResult.materialized(rows, CommandResult.Reuse.rebuilt(REASON, detail()));
  }

  /** The stored groups by their keys, as the snapshot read has them. */
  private Map<List<Object>, Record> storedGroups(Schema schema) {
    Map<List<Object>, Record> groups = new LinkedHashMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(storage).useSnapshot(base.snapshotId()).build()) {
      for (Record record : records) {
        groups.put(key(record), record.copy());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return groups;
  }

  private List<DataFile> baseFiles() {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = storage.newScan().useSnapshot(base.snapshotId()).planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** The group a row is of: its key columns' values, arrays compared by content. */
  private List<Object> key(Record record) {
    List<Object> key = new ArrayList<>();
    for (int i = 0; i < shape.columns().size(); i++) {
      if (shape.columns().get(i) == IncrementalQuery.Column.KEY) {
        Object value = record.get(i);
        key.add(value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value instanceof CharSequence text ? text.toString() : value);
      }
    }
    return key;
  }

  /** A stored group with a delta's row of the same group merged in. */
  private Record merged(Schema schema, Record stored, Record delta) {
    Record result = stored.copy();
    for (int i = 0; i < shape.columns().size(); i++) {
      Types.NestedField column = schema.columns().get(i);
      Object was = stored.get(i);
      Object added = delta.get(i);
      if (added == null) {
        continue;
      }
      if (was == null) {
        result.set(i, added);
        continue;
      }
      result.set(i, switch (shape.columns().get(i)) {
        case KEY, DEPENDENT -> was;
        case SUM, COUNT -> sum(column, was, added);
        case MIN -> comparator(column).compare(was, added) <= 0 ? was : added;
        case MAX -> comparator(column).compare(was, added) >= 0 ? was : added;
      });
    }
    return result;
  }

  @SuppressWarnings("unchecked")
  private static Comparator<Object> comparator(Types.NestedField column) {
    return (Comparator<Object>) Comparators.forType(column.type().asPrimitiveType());
  }

  /** The sum of two values of an integer or decimal column; {@link ArithmeticException} when it does not fit. */
  private static Object sum(Types.NestedField column, Object a, Object b) {
    if (a instanceof Integer x && b instanceof Integer y) {
      return Math.addExact(x, y);
    }
    if (a instanceof Long x && b instanceof Long y) {
      return Math.addExact(x, y);
    }
    if (a instanceof BigDecimal x && b instanceof BigDecimal y && column.type() instanceof Types.DecimalType decimal) {
      BigDecimal sum = x.add(y);
      if (sum.precision() - sum.scale() > decimal.precision() - decimal.scale()) {
        throw new ArithmeticException("decimal overflow");
      }
      return sum;
    }
    throw new IllegalStateException("Cannot add " + Arrays.asList(a, b) + " in column " + column);
  }
}

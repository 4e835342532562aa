package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;
import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.session.DurationText;
import io.sqe.engine.sql.ddl.SqlAlterTableExecute;
import io.sqe.write.maintenance.Compaction;
import io.sqe.write.maintenance.MaintenanceSettings;
import io.sqe.write.maintenance.OrphanFiles;
import io.sqe.write.maintenance.SnapshotExpiry;
import io.sqe.write.storage.OtherTables;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * {@code ALTER TABLE t EXECUTE procedure(...)}: Trino's table maintenance procedures, each
 * reporting what it did as one row.
 *
 * <ul>
 *   <li>{@code optimize([file_size_threshold => '100MB'])}: compacts small data files ({@link Compaction}).
 *   <li>{@code expire_snapshots([retention_threshold => '7d'] [, retain_last => n])} ({@link SnapshotExpiry}).
 *   <li>{@code remove_orphan_files([retention_threshold => '7d'])} ({@link OrphanFiles}).
 *   <li>{@code rollback_to_snapshot(snapshot_id)}: makes an ancestor of the current snapshot current.
 *   <li>{@code set_current_snapshot(snapshot_id)}: makes any snapshot of the table current.
 * </ul>
 *
 * Arguments are named ({@code name => value}) or positional in the order above. Retention
 * thresholds below the server's {@link MaintenanceSettings#minRetention()} are refused. The two
 * that delete files delete only under the table's own location (for expiry, also the directories
 * its path properties name), and none that another table or view of the catalog references.
 */
final class TableProcedures {
  private static final long DEFAULT_FILE_SIZE_THRESHOLD = 100L << 20;
  private static final Pattern SIZE = Pattern.compile("^(\\d+(?:\\.\\d+)?)\\s*(b|kb|mb|gb|tb)?$");
  private static final Pattern DECIMAL_DURATION = Pattern.compile("^(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d)$");

  private static final Schema OPTIMIZE = schema(
      "rewritten_data_files_count", "added_data_files_count", "rewritten_bytes_count", "added_bytes_count");
  private static final Schema EXPIRE_SNAPSHOTS = schema(
      "expired_snapshots_count",
      "deleted_data_files_count",
      "deleted_manifest_files_count",
      "deleted_manifest_lists_count",
      "deleted_statistics_files_count");
  private static final Schema REMOVE_ORPHAN_FILES = schema("scanned_files_count", "reachable_files_count", "deleted_files_count");
  private static final Schema SNAPSHOT_CHANGE = new Schema(List.of(
      new Field("previous_snapshot_id", FieldType.nullable(new ArrowType.Int(64, true)), List.of()),
      new Field("current_snapshot_id", FieldType.notNullable(new ArrowType.Int(64, true)), List.of())));

  private TableProcedures() {}

  /** How a procedure runs, once its arguments are checked. */
  private interface Procedure {
    List<Object[]> run(Table table, CommandContext context);
  }

  static PreparedCommand prepare(CommandContext context, SqlAlterTableExecute execute, MaintenanceSettings settings) {
    ObjectName name = Names.object(context, execute.name());
    if (execute.where() != null) {
      throw error(ErrorCode.NOT_SUPPORTED, "ALTER TABLE EXECUTE ... WHERE is not supported; run the procedure on the whole table", execute.where());
    }
    String procedureName = execute.procedure().toLowerCase(Locale.ROOT);
    Schema report;
    Procedure procedure;
    switch (procedureName) {
      case "optimize": {
        Arguments arguments = Arguments.of(execute, "file_size_threshold");
        long threshold = arguments.value("file_size_threshold", TableProcedures::size).orElse(DEFAULT_FILE_SIZE_THRESHOLD);
        report = OPTIMIZE;
        procedure = (table, ctx) -> {
          Compaction.Result result = new Compaction(table, threshold, ctx.queryId()).run("optimize of " + name.qualified());
          return List.<Object[]>of(new Object[] {
            result.rewrittenFiles(), result.addedFiles(), result.rewrittenBytes(), result.addedBytes()});
        };
        break;
      }
      case "expire_snapshots": {
        Arguments arguments = Arguments.of(execute, "retention_threshold", "retain_last");
        Duration retention = retention(arguments, settings, "expire_snapshots");
        Integer retainLast = arguments.value("retain_last", TableProcedures::positiveInt).orElse(null);
        report = EXPIRE_SNAPSHOTS;
        procedure = (table, ctx) -> {
          SnapshotExpiry.Result result =
              SnapshotExpiry.expire(table, OtherTables.of(name.catalog(), name.id()), Instant.now().minus(retention), retainLast);
          return List.<Object[]>of(new Object[] {
            result.expiredSnapshots(),
            result.deletedDataFiles(),
            result.deletedManifests(),
            result.deletedManifestLists(),
            result.deletedStatisticsFiles()});
        };
        break;
      }
      case "remove_orphan_files": {
        Arguments arguments = Arguments.of(execute, "retention_threshold");
        Duration retention = retention(arguments, settings, "remove_orphan_files");
        report = REMOVE_ORPHAN_FILES;
        procedure = (table, ctx) -> {
          OrphanFiles.Result result = OrphanFiles.remove(table, OtherTables.of(name.catalog(), name.id()), Instant.now().minus(retention));
          return List.<Object[]>of(new Object[] {result.scannedFiles(), result.reachableFiles(), result.deletedFiles()});
        };
        break;
      }
      case "rollback_to_snapshot":
      case "set_current_snapshot": {
        Arguments arguments = Arguments.of(execute, "snapshot_id");
        SqlNode at = arguments.node("snapshot_id").orElseThrow(() -> error(
            ErrorCode.INVALID_ARGUMENT, procedureName + " needs the snapshot to go to: " + procedureName + "(snapshot_id => <id>)", execute.name()));
        long snapshotId = arguments.value("snapshot_id", TableProcedures::snapshotId).orElseThrow();
        boolean rollback = procedureName.equals("rollback_to_snapshot");
        report = SNAPSHOT_CHANGE;
        procedure = (table, ctx) -> {
          Snapshot previous = table.currentSnapshot();
          checkSnapshot(name, table, snapshotId, rollback, at);
          if (rollback) {
            table.manageSnapshots().rollbackTo(snapshotId).commit();
          } else {
            table.manageSnapshots().setCurrentSnapshot(snapshotId).commit();
          }
          return List.<Object[]>of(new Object[] {previous == null ? null : previous.snapshotId(), snapshotId});
        };
        break;
      }
      default:
        throw error(
            ErrorCode.NOT_FOUND,
            "Unknown table procedure '" + execute.procedure() + "'; SQE has optimize, expire_snapshots, remove_orphan_files,"
                + " rollback_to_snapshot and set_current_snapshot",
            execute.name());
    }
    if (!execute.ifExists()) {
      TableCommits.loadExisting(name);
    }
    return new PreparedCommand() {
      @Override
      public Optional<Schema> reportSchema() {
        return Optional.of(report);
      }

      @Override
      public CommandResult execute(CommandContext run, List<Object> parameters) {
        try {
          Optional<Table> table = TableCommits.load(name);
          if (table.isEmpty()) {
            if (execute.ifExists()) {
              return CommandResult.report(List.of());
            }
            throw TableCommits.notFound(name);
          }
          return CommandResult.report(procedure.run(table.get(), run));
        } catch (RuntimeException e) {
          throw DdlErrors.translate(e, execute.name());
        } finally {
          name.catalog().invalidate(name.id());
        }
      }
    };
  }

  private static void checkSnapshot(ObjectName name, Table table, long snapshotId, boolean ancestor, SqlNode at) {
    if (table.snapshot(snapshotId) == null) {
      throw error(ErrorCode.NOT_FOUND, "Table '" + name.qualified() + "' has no snapshot " + snapshotId, at);
    }
    if (ancestor && !isAncestor(table, snapshotId)) {
      throw error(
          ErrorCode.FAILED_PRECONDITION,
          "Snapshot " + snapshotId + " is not an ancestor of the current snapshot of table '" + name.qualified()
              + "'; set_current_snapshot makes any snapshot current",
          at);
    }
  }

  private static boolean isAncestor(Table table, long snapshotId) {
    for (Snapshot s = table.currentSnapshot(); s != null; s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      if (s.snapshotId() == snapshotId) {
        return true;
      }
    }
    return false;
  }

  /** A retention threshold: the argument, else the minimum; refused below the minimum. */
  private static Duration retention(Arguments arguments, MaintenanceSettings settings, String procedure) {
    Optional<Duration> given = arguments.value("retention_threshold", TableProcedures::duration);
    Duration retention = given.orElse(settings.minRetention());
    if (retention.compareTo(settings.minRetention()) < 0) {
      throw error(
          ErrorCode.INVALID_ARGUMENT,
          "Retention specified (" + DurationText.format(retention) + ") is shorter than the minimum retention configured in the system ("
              + DurationText.format(settings.minRetention()) + "); the server setting maintenance.min-retention lowers the minimum for "
              + procedure,
          arguments.node("retention_threshold").orElseThrow());
    }
    return retention;
  }

  private static Long size(SqlNode node) {
    String text = text(node).trim().toLowerCase(Locale.ROOT);
    Matcher m = SIZE.matcher(text);
    if (!m.matches()) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Invalid size '" + text(node) + "': write a number and a unit, such as '128MB'", node);
    }
    String unit = m.group(2) == null ? "b" : m.group(2);
    int shift = List.of("b", "kb", "mb", "gb", "tb").indexOf(unit) * 10;
    long bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(1L << shift)).longValue();
    if (bytes <= 0) {
      throw error(ErrorCode.INVALID_ARGUMENT, "A file size threshold must be positive, not '" + text(node) + "'", node);
    }
    return bytes;
  }

  /** Trino's durations ('7d', '7.00d', '36h') and SQE's own ('30s', 'PT1H'). */
  private static Duration duration(SqlNode node) {
    String text = text(node).trim();
    Matcher m = DECIMAL_DURATION.matcher(text.toLowerCase(Locale.ROOT));
    if (m.matches()) {
      BigDecimal amount = new BigDecimal(m.group(1));
      long unitMillis = switch (m.group(2)) {
        case "ms" -> 1L;
        case "s" -> 1_000L;
        case "m" -> 60_000L;
        case "h" -> 3_600_000L;
        default -> 86_400_000L;
      };
      return Duration.ofMillis(amount.multiply(BigDecimal.valueOf(unitMillis)).longValue());
    }
    return DurationText.parse(text).orElseThrow(() -> error(
        ErrorCode.INVALID_ARGUMENT, "Invalid duration '" + text + "': write a number and a unit (ms, s, m, h, d), such as '7d'", node));
  }

  private static Integer positiveInt(SqlNode node) {
    if (!(node instanceof SqlNumericLiteral) || !((SqlNumericLiteral) node).isInteger()
        || ((SqlNumericLiteral) node).longValue(false) < 1 || ((SqlNumericLiteral) node).longValue(false) > Integer.MAX_VALUE) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Expected a positive whole number, not " + node, node);
    }
    return ((SqlNumericLiteral) node).intValue(true);
  }

  private static Long snapshotId(SqlNode node) {
    SqlNode value = node;
    boolean negative = false;
    if (value instanceof SqlBasicCall && value.getKind() == SqlKind.MINUS_PREFIX) {
      negative = true;
      value = ((SqlBasicCall) value).operand(0);
    }
    if (value instanceof SqlNumericLiteral && ((SqlNumericLiteral) value).isInteger()) {
      long id = ((SqlNumericLiteral) value).longValue(true);
      return negative ? -id : id;
    }
    if (value instanceof SqlCharStringLiteral) {
      try {
        return Long.parseLong(text(value).trim());
      } catch (NumberFormatException e) {
        // Reported below.
      }
    }
    throw error(ErrorCode.INVALID_ARGUMENT, "A snapshot id is a whole number, not " + node, node);
  }

  private static String text(SqlNode node) {
    if (node instanceof SqlCharStringLiteral) {
      return ((SqlCharStringLiteral) node).getValueAs(String.class);
    }
    if (node instanceof SqlNumericLiteral) {
      return ((SqlNumericLiteral) node).toValue();
    }
    throw error(ErrorCode.INVALID_ARGUMENT, "Expected a literal, not " + node, node);
  }

  private static Schema schema(String... counts) {
    List<Field> fields = new ArrayList<>();
    for (String count : counts) {
      fields.add(new Field(count, FieldType.notNullable(new ArrowType.Int(64, true)), List.of()));
    }
    return new Schema(fields);
  }

  /** A procedure's arguments by parameter name: named ones, and positional ones in parameter order. */
  private static final class Arguments {
    private final Map<String, SqlNode> values;

    private Arguments(Map<String, SqlNode> values) {
      this.values = requireNonNull(values, "values is null");
    }

    static Arguments of(SqlAlterTableExecute execute, String... parameters) {
      List<String> names = List.of(parameters);
      Map<String, SqlNode> values = new LinkedHashMap<>();
      boolean named = false;
      List<SqlNode> arguments = execute.arguments().getList();
      for (int i = 0; i < arguments.size(); i++) {
        SqlNode argument = arguments.get(i);
        String parameter;
        SqlNode value;
        if (argument.getKind() == SqlKind.ARGUMENT_ASSIGNMENT) {
          SqlBasicCall assignment = (SqlBasicCall) argument;
          value = assignment.operand(0);
          parameter = ((SqlIdentifier) assignment.operand(1)).getSimple().toLowerCase(Locale.ROOT);
          named = true;
          if (!names.contains(parameter)) {
            throw error(
                ErrorCode.INVALID_ARGUMENT,
                execute.procedure() + " has no argument '" + parameter + "'; it takes " + (names.isEmpty() ? "none" : String.join(", ", names)),
                argument);
          }
        } else {
          if (named) {
            throw error(ErrorCode.INVALID_ARGUMENT, "A positional argument cannot follow a named one", argument);
          }
          if (i >= names.size()) {
            throw error(
                ErrorCode.INVALID_ARGUMENT,
                execute.procedure() + " takes at most " + names.size() + " argument" + (names.size() == 1 ? "" : "s")
                    + (names.isEmpty() ? "" : " (" + String.join(", ", names) + ")"),
                argument);
          }
          parameter = names.get(i);
          value = argument;
        }
        if (values.put(parameter, value) != null) {
          throw error(ErrorCode.INVALID_ARGUMENT, "Argument '" + parameter + "' is given twice", argument);
        }
      }
      return new Arguments(values);
    }

    Optional<SqlNode> node(String parameter) {
      return Optional.ofNullable(values.get(parameter));
    }

    <T> Optional<T> value(String parameter, Function<SqlNode, T> parse) {
      return node(parameter).map(parse);
    }
  }
}

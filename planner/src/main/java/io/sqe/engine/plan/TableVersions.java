package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.iceberg.IcebergMetadataTable;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.sql.ddl.SqlTableVersion;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.schema.Table;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlShuttle;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Resolves the time travel in a statement ({@link SqlTableVersion}, {@code t
 * FOR VERSION AS OF ...} and {@code t FOR TIMESTAMP AS OF ...}) before validation: each becomes an
 * identifier, aliased as the table was, that names the table pinned to the snapshot, with its schema
 * at that snapshot and the principal's access policy of today.
 */
final class TableVersions extends SqlShuttle {
  private static final Pattern TIMESTAMP_TEXT =
      Pattern.compile("(\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?)\\s*(\\S*)");
  /** Where the statement's pinned tables go: they are registered under a name of their own. */
  interface Registry {
    /**
     * Makes {@code table}, pinned to {@code snapshotId}, resolvable as {@code name} in the namespace
     * of {@code base} and returns the identifier that names it.
     */
    SqlIdentifier register(IcebergTable base, String name, IcebergTable table, long snapshotId, SqlParserPos pos);
  }

  /** Evaluates a FOR TIMESTAMP AS OF expression: its type and value as the engine holds it. */
  interface Evaluator {
    Value evaluate(SqlNode expression);
  }

  record Value(RelDataType type, Object value) {}

  private final Prepare.CatalogReader reader;
  private final Registry registry;
  private final Evaluator evaluator;
  private final ZoneId timeZone;

  private TableVersions(Prepare.CatalogReader reader, Registry registry, Evaluator evaluator, ZoneId timeZone) {
    this.reader = requireNonNull(reader, "reader is null");
    this.registry = requireNonNull(registry, "registry is null");
    this.evaluator = requireNonNull(evaluator, "evaluator is null");
    this.timeZone = requireNonNull(timeZone, "timeZone is null");
  }

  /** {@code query} with each table version replaced; {@code query} itself when it has none. */
  static SqlNode resolve(SqlNode query, Prepare.CatalogReader reader, Registry registry, Evaluator evaluator, ZoneId timeZone) {
    if (!contains(query)) {
      return query;
    }
    return query.accept(new TableVersions(reader, registry, evaluator, timeZone));
  }

  private static boolean contains(SqlNode node) {
    boolean[] found = {false};
    node.accept(new SqlShuttle() {
      @Override
      public SqlNode visit(SqlCall call) {
        if (call instanceof SqlTableVersion) {
          found[0] = true;
          return call;
        }
        return super.visit(call);
      }
    });
    return found[0];
  }

  @Override
  public SqlNode visit(SqlCall call) {
    if (call instanceof SqlTableVersion) {
      SqlTableVersion version = (SqlTableVersion) call;
      SqlIdentifier name = version.tableName();
      SqlIdentifier alias = new SqlIdentifier(name.names.get(name.names.size() - 1), name.getParserPosition());
      return SqlStdOperatorTable.AS.createCall(version.getParserPosition(), pinned(version), alias);
    }
    if (call.getKind() == SqlKind.AS && call.operand(0) instanceof SqlTableVersion) {
      List<SqlNode> operands = new ArrayList<>(call.getOperandList());
      operands.set(0, pinned(call.operand(0)));
      return call.getOperator().createCall(call.getFunctionQuantifier(), call.getParserPosition(), operands.toArray(new SqlNode[0]));
    }
    return super.visit(call);
  }

  private SqlIdentifier pinned(SqlTableVersion version) {
    SqlIdentifier name = version.tableName();
    Prepare.PreparingTable found = reader.getTable(name.names);
    String display = String.join(".", name.names);
    if (found == null) {
      throw error(ErrorCode.NOT_FOUND, "Table '" + display + "' does not exist", name);
    }
    display = String.join(".", found.getQualifiedName());
    Table table = found.unwrap(PolicyTable.class) != null ? found.unwrap(PolicyTable.class).table() : found.unwrap(Table.class);
    if (table instanceof IcebergViewTable) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Time travel reads tables, and " + display + " is a view", name);
    }
    if (table instanceof IcebergMetadataTable) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Time travel reads tables, and " + display + " is a metadata table", name);
    }
    if (!(table instanceof IcebergTable)) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Time travel reads Iceberg tables, and " + display + " is not one", name);
    }
    IcebergTable base = (IcebergTable) table;
    org.apache.iceberg.Table iceberg = base.table();
    if (isMissing(version, iceberg)) {
      // The server's table cache may predate the snapshot or ref: look once more in the catalog.
      base.catalog().invalidate(base.id());
      iceberg = base.catalog().loadTable(base.id()).orElse(iceberg);
    }
    long snapshotId;
    Schema schema;
    SqlNode value = version.value();
    if (value instanceof SqlDynamicParam) {
      throw error(ErrorCode.NOT_SUPPORTED, "Time travel to a parameter is not supported: give the version or time in the statement", value);
    }
    String suffix;
    if (version.kind() == SqlTableVersion.Kind.VERSION && version.snapshotId() != null) {
      snapshotId = version.snapshotId();
      if (iceberg.snapshot(snapshotId) == null) {
        throw error(ErrorCode.NOT_FOUND, "Table " + display + " has no snapshot " + snapshotId, value);
      }
      schema = SnapshotUtil.schemaFor(iceberg, snapshotId);
      suffix = "FOR VERSION AS OF " + snapshotId;
    } else if (version.kind() == SqlTableVersion.Kind.VERSION) {
      String ref = version.ref();
      SnapshotRef snapshotRef = iceberg.refs().get(ref);
      if (snapshotRef == null) {
        throw error(ErrorCode.NOT_FOUND, "Table " + display + " has no branch or tag '" + ref + "'", value);
      }
      snapshotId = snapshotRef.snapshotId();
      // A branch reads with the table's schema, a tag with its snapshot's, as Iceberg does.
      schema = SnapshotUtil.schemaFor(iceberg, ref);
      suffix = "FOR VERSION AS OF '" + ref + "'";
    } else {
      Instant instant = instant(value);
      Long atTime = SnapshotUtil.nullableSnapshotIdAsOfTime(iceberg, instant.toEpochMilli());
      if (atTime == null) {
        Snapshot first = firstSnapshot(iceberg);
        throw error(
            ErrorCode.INVALID_ARGUMENT,
            "Table " + display + " has no snapshot at or before " + instant
                + (first == null ? ": it has no snapshots" : ": its first is from " + Instant.ofEpochMilli(first.timestampMillis())),
            value);
      }
      snapshotId = atTime;
      schema = SnapshotUtil.schemaFor(iceberg, snapshotId);
      suffix = "FOR TIMESTAMP AS OF " + instant;
    }
    IcebergTable pinned = IcebergTable.atSnapshot(base.catalog(), base.id(), iceberg, snapshotId, schema);
    List<String> qualified = found.getQualifiedName();
    return registry.register(base, qualified.get(qualified.size() - 1) + " " + suffix, pinned, snapshotId, name.getParserPosition());
  }

  private static boolean isMissing(SqlTableVersion version, org.apache.iceberg.Table table) {
    if (version.kind() != SqlTableVersion.Kind.VERSION) {
      return false;
    }
    return version.snapshotId() != null ? table.snapshot(version.snapshotId()) == null : version.ref() != null && table.refs().get(version.ref()) == null;
  }

  private static Snapshot firstSnapshot(org.apache.iceberg.Table table) {
    Snapshot first = null;
    for (Snapshot snapshot : table.snapshots()) {
      if (first == null || snapshot.timestampMillis() < first.timestampMillis()) {
        first = snapshot;
      }
    }
    return first;
  }

  /**
   * The instant a FOR TIMESTAMP AS OF expression means: a timestamp with time zone as it is, one
   * without in the session's time zone (as Trino reads it), a date at its start.
   */
  private Instant instant(SqlNode expression) {
    Value value = evaluator.evaluate(expression);
    if (value.value() == null) {
      throw error(ErrorCode.INVALID_ARGUMENT, "FOR TIMESTAMP AS OF needs a time, not NULL", expression);
    }
    switch (value.type().getSqlTypeName()) {
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
      case TIMESTAMP_TZ:
        return micros(((Number) value.value()).longValue());
      case TIMESTAMP: {
        Instant wallClock = micros(((Number) value.value()).longValue());
        return LocalDateTime.ofInstant(wallClock, ZoneOffset.UTC).atZone(timeZone).toInstant();
      }
      case CHAR:
      case VARCHAR:
        return parse(value.value().toString(), expression);
      case DATE:
        return java.time.LocalDate.ofEpochDay(((Number) value.value()).longValue()).atStartOfDay(timeZone).toInstant();
      default:
        throw error(
            ErrorCode.INVALID_ARGUMENT,
            "FOR TIMESTAMP AS OF takes a timestamp, not a value of type " + value.type().getFullTypeString(),
            expression);
    }
  }

  /** A timestamp in text, with an optional zone or offset after it: {@code 2026-11-29 10:00:00 Europe/Paris}. */
  private Instant parse(String text, SqlNode expression) {
    Matcher matcher = TIMESTAMP_TEXT.matcher(text.trim());
    if (!matcher.matches()) {
      throw error(
          ErrorCode.INVALID_ARGUMENT,
          "FOR TIMESTAMP AS OF takes a timestamp, not '" + text + "' (a timestamp in text is 'YYYY-MM-DD HH:MM:SS[.fff] [zone]')",
          expression);
    }
    try {
      LocalDateTime local = LocalDateTime.parse(matcher.group(1).replace(' ', 'T'));
      String zone = matcher.group(2);
      return local.atZone(zone.isEmpty() ? timeZone : ZoneId.of(zone)).toInstant();
    } catch (java.time.DateTimeException e) {
      throw error(ErrorCode.INVALID_ARGUMENT, "FOR TIMESTAMP AS OF cannot read '" + text + "': " + e.getMessage(), expression);
    }
  }

  private static Instant micros(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
  }

  /** The query {@code SELECT expression}, for the evaluator. */
  static SqlSelect select(SqlNode expression) {
    return new SqlSelect(
        SqlParserPos.ZERO, null, SqlNodeList.of(expression), null, null, null, null, null, null, null, null, null, null);
  }

  private static SqeException error(ErrorCode code, String message, SqlNode at) {
    SqlParserPos pos = at.getParserPosition();
    SqeException.SqlPosition position = pos == null || pos.getLineNum() <= 0 ? null : new SqeException.SqlPosition(pos.getLineNum(), pos.getColumnNum());
    return new SqeException(code, message, position, null);
  }
}

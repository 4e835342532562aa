package io.sqe.write.dml;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.types.ArrowTypeMapping;
import io.sqe.catalog.types.UnsupportedTypeException;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.security.Privilege;
import io.sqe.engine.security.TableAccess;
import io.sqe.engine.session.Session;
import io.sqe.write.dml.TableNames.TableRef;
import io.sqe.write.files.DataFileWriter;
import io.sqe.write.ingest.ArrowValues;
import io.sqe.write.storage.PathSafeNames;
import io.sqe.write.txn.TableWrite;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Bulk ingest (Flight SQL's CommandStatementIngest, ADBC's {@code adbc_ingest}): Arrow record
 * batches become new data files of a table, landing as one commit, or staged in the session's
 * transaction. Appending is an append; creating a table is a create transaction; replacing one is
 * a create-or-replace transaction, which keeps the table's history.
 *
 * <p>Data columns are matched to table columns by name (exactly, else ignoring case); table
 * columns the data lacks are null. A new table has the data's columns, types mapped as
 * {@link ArrowTypeMapping#toIceberg} maps them.
 */
public final class BulkIngest {
  /** What to do when the table does not exist. */
  public enum IfMissing {
    CREATE,
    FAIL
  }

  /** What to do when the table exists. */
  public enum IfExists {
    FAIL,
    APPEND,
    REPLACE
  }

  /**
   * One ingest.
   *
   * @param catalog the table's catalog, or null for the session's
   * @param schema the table's schema, or null for the session's
   */
  public record Request(String catalog, String schema, String table, IfMissing ifMissing, IfExists ifExists) {
    public Request {
      requireNonNull(table, "table is null");
      requireNonNull(ifMissing, "ifMissing is null");
      requireNonNull(ifExists, "ifExists is null");
    }
  }

  private final Catalogs catalogs;
  private final AccessControl access;

  /** Ingests under {@code access}, as INSERT and CREATE TABLE are: see {@link #ingest}. */
  public BulkIngest(Catalogs catalogs, AccessControl access) {
    this.catalogs = requireNonNull(catalogs, "catalogs is null");
    this.access = requireNonNull(access, "access is null");
  }

  /**
   * Writes every batch into the table. Under an access policy, appending needs INSERT (a table the
   * user has no privilege on does not exist for them) and writes only columns the user may write
   * (see {@link WritableColumns}); creating a table needs CREATE, replacing one DROP and CREATE.
   *
   * @param root the batches' schema and, after each {@code next} that returns true, a batch
   * @return the rows written
   */
  public long ingest(Session session, Request request, VectorSchemaRoot root, BooleanSupplier next, String queryId) {
    if (request.table().isBlank()) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "Bulk ingest needs a table name");
    }
    String catalogName = request.catalog() == null ? session.catalog() : request.catalog();
    String schemaName = request.schema() != null ? request.schema() : session.schemaName().orElseThrow(() -> new SqeException(
        ErrorCode.INVALID_ARGUMENT, "No schema is selected; name the target schema of the ingest or set the session's schema"));
    // An ingest may create the table, whose default location the catalog makes of these names.
    PathSafeNames.check("schema", schemaName, null);
    PathSafeNames.check("table", request.table(), null);
    TableRef target = TableNames.resolve(
        session, catalogs, new SqlIdentifier(List.of(catalogName, schemaName, request.table()), SqlParserPos.ZERO));
    boolean exists = TableWrite.exists(session, target.catalog(), target.id());
    TableAccess granted = access.tableAccess(
        session.principal(), target.catalog().name(), String.join(".", target.id().namespace().levels()), target.id().name());
    if (exists && !granted.visible()) {
      // A table the user cannot see is as good as missing: the answers are those for a missing
      // table, and creating it needs CREATE, which would have made it visible.
      if (request.ifMissing() == IfMissing.FAIL) {
        throw new SqeException(ErrorCode.NOT_FOUND, "Table " + target.displayName() + " does not exist");
      }
      require(session, granted, Privilege.CREATE, "CREATE table " + target.displayName());
    }
    List<Field> fields = root.getSchema().getFields();
    TableWrite write;
    String what;
    WritableColumns writable = null;
    if (exists && request.ifExists() == IfExists.APPEND) {
      require(session, granted, Privilege.INSERT, "INSERT on " + target.displayName());
      write = TableWrite.existing(session, target.catalog(), target.id(), target::loadFresh, queryId);
      writable = WritableColumns.of(granted, write.table(), session.principal().user(), target.displayName());
      what = "ingest into " + target.displayName();
    } else if (exists && request.ifExists() == IfExists.FAIL) {
      throw new SqeException(ErrorCode.ALREADY_EXISTS, "Table " + target.displayName() + " already exists");
    } else if (!exists && request.ifMissing() == IfMissing.FAIL) {
      throw new SqeException(ErrorCode.NOT_FOUND, "Table " + target.displayName() + " does not exist");
    } else {
      boolean replace = exists;
      if (replace) {
        require(session, granted, Privilege.DROP, "DROP on " + target.displayName());
      }
      require(session, granted, Privilege.CREATE, "CREATE table " + target.displayName());
      Catalog.TableBuilder builder = target.catalog().iceberg().buildTable(target.id(), newSchema(fields));
      write = TableWrite.create(
          session,
          target.catalog(),
          target.id(),
          () -> replace ? builder.createOrReplaceTransaction() : builder.createTransaction(),
          queryId);
      what = "ingest " + (replace ? "replacing " : "creating ") + target.displayName();
    }
    return write(write, fields, root, next, what, writable, queryId);
  }

  private static void require(Session session, TableAccess granted, Privilege privilege, String what) {
    if (!granted.has(privilege)) {
      throw new SqeException(ErrorCode.PERMISSION_DENIED, "Access denied: user '" + session.principal().user() + "' cannot " + what);
    }
  }

  private static Schema newSchema(List<Field> fields) {
    Set<String> names = new HashSet<>();
    for (Field field : fields) {
      if (!names.add(field.getName().toLowerCase(Locale.ROOT))) {
        throw new SqeException(ErrorCode.INVALID_ARGUMENT, "The data has two columns named " + field.getName());
      }
    }
    Schema schema;
    try {
      schema = ArrowTypeMapping.toIceberg(fields);
    } catch (UnsupportedTypeException e) {
      throw new SqeException(ErrorCode.NOT_SUPPORTED, e.getMessage(), e);
    }
    // New tables are of Iceberg's format 2, which keeps timestamps to the microsecond; cutting the
    // nanoseconds off silently would change the data. (Appending to a microsecond column is fine:
    // its type says what it keeps.)
    for (Types.NestedField column : TypeUtil.indexById(schema.asStruct()).values()) {
      if (column.type().typeId() == Type.TypeID.TIMESTAMP_NANO) {
        throw new SqeException(
            ErrorCode.INVALID_ARGUMENT,
            "Column " + column.name() + " holds nanosecond timestamps, which a new table cannot keep: SQE creates tables of "
                + "Iceberg format 2, whose timestamps have microseconds. Send timestamp[us], or create the table first and append");
      }
    }
    return schema;
  }

  /** @param writable the columns the user may write into an existing table; null for a table the ingest creates */
  private static long write(
      TableWrite write, List<Field> fields, VectorSchemaRoot root, BooleanSupplier next, String what, WritableColumns writable, String queryId) {
    Table table = write.table();
    Schema schema = table.schema();
    int[] targets = targets(schema, fields, writable);
    DataFileWriter writer = DataFileWriter.builder(table).operationId(queryId).build();
    List<DataFile> files;
    // Every batch is loaded into the same vectors, so one set of readers serves them all.
    List<FieldVector> vectors = root.getFieldVectors();
    ArrowValues.Reader[] readers = new ArrowValues.Reader[vectors.size()];
    for (int i = 0; i < readers.length; i++) {
      Types.NestedField column = schema.columns().get(targets[i]);
      readers[i] = ArrowValues.reader(vectors.get(i), column.type(), column.name());
    }
    try {
      while (next.getAsBoolean()) {
        for (int row = 0; row < root.getRowCount(); row++) {
          Record record = GenericRecord.create(schema);
          for (int i = 0; i < readers.length; i++) {
            Object value = readers[i].read(row);
            if (value == null && schema.columns().get(targets[i]).isRequired()) {
              throw new SqeException(
                  ErrorCode.INVALID_ARGUMENT, "Column " + schema.columns().get(targets[i]).name() + " is NOT NULL but row " + (writer.rowCount() + 1) + " has no value for it");
            }
            record.set(targets[i], value);
          }
          writer.write(record);
        }
      }
      files = writer.complete();
    } catch (RuntimeException | Error e) {
      writer.abort();
      throw e;
    }
    write.commitAppend(files, writer.paths(), what);
    return writer.rowCount();
  }

  /**
   * The position in {@code schema} of each data column's table column; every required column must
   * have one. With {@code writable}, each must be a column the user may write, and a column the
   * table lacks or a required column left out is answered without naming a hidden column.
   */
  private static int[] targets(Schema schema, List<Field> fields, WritableColumns writable) {
    List<Types.NestedField> columns = schema.columns();
    int[] targets = new int[fields.size()];
    Set<Integer> covered = new HashSet<>();
    for (int i = 0; i < fields.size(); i++) {
      String name = fields.get(i).getName();
      int target = -1;
      for (int c = 0; c < columns.size() && target < 0; c++) {
        if (columns.get(c).name().equals(name)) {
          target = c;
        }
      }
      for (int c = 0; c < columns.size() && target < 0; c++) {
        if (columns.get(c).name().equalsIgnoreCase(name)) {
          target = c;
        }
      }
      if (writable != null && (target < 0 ? writable.restrictsColumns() : !writable.mayWrite(columns.get(target)))) {
        throw writable.denied(name, null);
      }
      if (target < 0 || !covered.add(target)) {
        throw new SqeException(
            ErrorCode.INVALID_ARGUMENT,
            (target < 0 ? "The table has no column " : "Two data columns go to column ") + name + "; its columns are "
                + names(columns, writable));
      }
      targets[i] = target;
    }
    List<String> missing = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      if (!covered.contains(c) && columns.get(c).isRequired()) {
        if (writable != null && writable.hides(columns.get(c))) {
          throw writable.needsHiddenValue("INGEST", null);
        }
        missing.add(columns.get(c).name());
      }
    }
    if (!missing.isEmpty()) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "The data has no values for the NOT NULL columns " + String.join(", ", missing));
    }
    return targets;
  }

  /** The names of the columns, those hidden from the user left out. */
  private static String names(List<Types.NestedField> columns, WritableColumns writable) {
    List<String> names = new ArrayList<>();
    for (Types.NestedField column : columns) {
      if (writable == null || !writable.hides(column)) {
        names.add(column.name());
      }
    }
    return String.join(", ", names);
  }
}

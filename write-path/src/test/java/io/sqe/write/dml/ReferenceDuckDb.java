package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Struct;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * DuckDB in process as the reference for the tables SQE writes. It keeps its own copy of a table
 * and runs the same statements on it, and it reads SQE's tables straight from their Parquet files
 * (the current snapshot's data files, as Iceberg lists them), so a table can be checked three
 * ways: Iceberg's generic reader, DuckDB's Parquet reader, and DuckDB's own copy.
 *
 * <p>Rows are compared as text, one line per row in sorted order, with values in one canonical
 * form whichever side they come from (Iceberg's Java values or DuckDB's JDBC values).
 */
final class ReferenceDuckDb implements AutoCloseable {
  private final Connection connection;
  private final java.util.function.Function<String, String> localFiles;

  ReferenceDuckDb() {
    this(location -> location.replace("file:", ""));
  }

  /**
   * A reference that reads a data file at {@code localFiles.apply(location)}, e.g. where an S3
   * test server keeps the object on the local disk.
   */
  ReferenceDuckDb(java.util.function.Function<String, String> localFiles) {
    this.localFiles = localFiles;
    try {
      connection = DriverManager.getConnection("jdbc:duckdb:");
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot start DuckDB", e);
    }
  }

  /** Runs a statement and returns DuckDB's row count. */
  long update(String sql) {
    try (Statement s = connection.createStatement()) {
      return s.executeUpdate(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("DuckDB failed on " + sql + ": " + e.getMessage(), e);
    }
  }

  /** The rows of a query, one canonical line each, sorted. */
  List<String> rows(String query) {
    List<String> rows = new ArrayList<>();
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(query)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          row.add(rs.getObject(i));
        }
        rows.add(line(row));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("DuckDB failed on " + query + ": " + e.getMessage(), e);
    }
    rows.sort(null);
    return rows;
  }

  /** The rows of DuckDB's own table {@code name}, columns in {@code schema}'s order. */
  List<String> tableRows(String name, Schema schema) {
    return rows("select " + columnList(schema) + " from " + name);
  }

  /** The rows of the table's current snapshot as DuckDB reads its Parquet data files. */
  List<String> parquetRows(Table table) {
    List<DataFile> files = Lakehouse.dataFiles(table);
    if (files.isEmpty()) {
      return List.of();
    }
    // Hive partitioning off: the column values come from the files, not from directory names.
    return rows("select " + columnList(table.schema()) + " from " + readParquet(files));
  }

  /** The rows of the table's current snapshot, read by Iceberg's own generic reader. */
  static List<String> icebergRows(Table table) {
    List<String> rows = new ArrayList<>();
    int columns = table.schema().columns().size();
    for (Record record : Lakehouse.records(table)) {
      List<Object> row = new ArrayList<>();
      for (int i = 0; i < columns; i++) {
        row.add(record.get(i));
      }
      rows.add(line(row));
    }
    rows.sort(null);
    return rows;
  }

  /** Creates DuckDB's table {@code name} with the columns of {@code table} and its current rows. */
  void copy(Table table, String name) {
    Schema schema = table.schema();
    update("create or replace table " + name + " ("
        + schema.columns().stream().map(c -> quote(c.name()) + " " + duckType(c.type())).collect(Collectors.joining(", ")) + ")");
    List<DataFile> files = Lakehouse.dataFiles(table);
    if (!files.isEmpty()) {
      update("insert into " + name + " select " + columnList(schema) + " from " + readParquet(files));
    }
  }

  /**
   * Asserts that Iceberg's reader and DuckDB's Parquet reader see the same rows in the table,
   * and that they are the rows of DuckDB's own table {@code reference}.
   */
  void assertSameRows(Table table, String reference, String after) {
    List<String> iceberg = icebergRows(table);
    assertThat(parquetRows(table)).as("DuckDB's read of the Parquet files after %s", after).isEqualTo(iceberg);
    assertThat(iceberg).as("rows after %s", after).isEqualTo(tableRows(reference, table.schema()));
  }

  private String readParquet(List<DataFile> files) {
    return "read_parquet(["
        + files.stream().map(f -> "'" + localFiles.apply(f.location()).replace("'", "''") + "'").collect(Collectors.joining(", "))
        + "], hive_partitioning = false)";
  }

  private static String columnList(Schema schema) {
    return schema.columns().stream().map(c -> quote(c.name())).collect(Collectors.joining(", "));
  }

  private static String quote(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  /** DuckDB's name for an Iceberg type. */
  static String duckType(Type type) {
    switch (type.typeId()) {
      case BOOLEAN:
        return "BOOLEAN";
      case INTEGER:
        return "INTEGER";
      case LONG:
        return "BIGINT";
      case FLOAT:
        return "REAL";
      case DOUBLE:
        return "DOUBLE";
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return "DECIMAL(" + decimal.precision() + ", " + decimal.scale() + ")";
      case DATE:
        return "DATE";
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC() ? "TIMESTAMPTZ" : "TIMESTAMP";
      case STRING:
        return "VARCHAR";
      case BINARY:
        return "BLOB";
      case STRUCT:
        return "STRUCT(" + type.asStructType().fields().stream()
            .map(f -> quote(f.name()) + " " + duckType(f.type())).collect(Collectors.joining(", ")) + ")";
      case LIST:
        return duckType(type.asListType().elementType()) + "[]";
      case MAP:
        return "MAP(" + duckType(type.asMapType().keyType()) + ", " + duckType(type.asMapType().valueType()) + ")";
      default:
        throw new IllegalArgumentException("No DuckDB type for " + type);
    }
  }

  private static String line(List<Object> row) {
    return row.stream().map(ReferenceDuckDb::text).collect(Collectors.joining(" | "));
  }

  /** One canonical text for a value, from Iceberg's Java values or DuckDB's JDBC values. */
  static String text(Object value) {
    try {
      if (value == null) {
        return "null";
      }
      if (value instanceof String) {
        return "'" + value + "'";
      }
      if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
        return Long.toString(((Number) value).longValue());
      }
      if (value instanceof BigDecimal) {
        return ((BigDecimal) value).toPlainString();
      }
      if (value instanceof Float || value instanceof Double || value instanceof Boolean) {
        return value.toString();
      }
      if (value instanceof java.sql.Date) {
        return ((java.sql.Date) value).toLocalDate().toString();
      }
      if (value instanceof java.sql.Timestamp) {
        return ((java.sql.Timestamp) value).toLocalDateTime().toString();
      }
      if (value instanceof LocalDate || value instanceof LocalDateTime) {
        return value.toString();
      }
      if (value instanceof OffsetDateTime) {
        return ((OffsetDateTime) value).withOffsetSameInstant(ZoneOffset.UTC).toString();
      }
      if (value instanceof ByteBuffer) {
        ByteBuffer buffer = ((ByteBuffer) value).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return "x'" + HexFormat.of().formatHex(bytes) + "'";
      }
      if (value instanceof byte[]) {
        return "x'" + HexFormat.of().formatHex((byte[]) value) + "'";
      }
      if (value instanceof Record) {
        Record record = (Record) value;
        List<String> fields = new ArrayList<>();
        for (int i = 0; i < record.size(); i++) {
          fields.add(text(record.get(i)));
        }
        return "{" + String.join(", ", fields) + "}";
      }
      if (value instanceof Struct) {
        List<String> fields = new ArrayList<>();
        for (Object field : ((Struct) value).getAttributes()) {
          fields.add(text(field));
        }
        return "{" + String.join(", ", fields) + "}";
      }
      if (value instanceof Array) {
        return text(Arrays.asList((Object[]) ((Array) value).getArray()));
      }
      if (value instanceof List) {
        return "[" + ((List<?>) value).stream().map(ReferenceDuckDb::text).collect(Collectors.joining(", ")) + "]";
      }
      if (value instanceof Map) {
        // Map entries have no order.
        return "map{" + ((Map<?, ?>) value).entrySet().stream()
            .map(e -> text(e.getKey()) + ": " + text(e.getValue()))
            .sorted()
            .collect(Collectors.joining(", ")) + "}";
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot read a DuckDB value", e);
    }
    throw new IllegalArgumentException("No canonical text for a " + value.getClass().getName() + ": " + value);
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}

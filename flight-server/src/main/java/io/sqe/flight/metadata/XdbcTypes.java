package io.sqe.flight.metadata;

import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.impl.FlightSql.Nullable;
import org.apache.arrow.flight.sql.impl.FlightSql.Searchable;
import org.apache.arrow.flight.sql.impl.FlightSql.XdbcDataType;
import org.apache.arrow.flight.sql.impl.FlightSql.XdbcDatetimeSubcode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;

/**
 * The SQL types SQE supports, as GetXdbcTypeInfo describes them.
 *
 * <p>{@code data_type} is the {@link java.sql.Types} code, which equals the ODBC code wherever
 * ODBC has one; it is the code the Flight SQL JDBC driver reports in {@code getColumns} for a
 * column of the type, so a client can look a column's type up here. UUID values travel as 16-byte
 * binaries, hence BINARY.
 */
final class XdbcTypes {
  private static final int SQL_DATETIME = XdbcDataType.XDBC_DATETIME_VALUE;
  private static final int SEARCHABLE_NONE = Searchable.SEARCHABLE_NONE_VALUE;
  private static final int SEARCHABLE_BASIC = Searchable.SEARCHABLE_BASIC_VALUE;
  private static final int SEARCHABLE_FULL = Searchable.SEARCHABLE_FULL_VALUE;

  /** One row of GetXdbcTypeInfo; null fields are null in the result. */
  record TypeInfo(
      String typeName,
      int dataType,
      Integer columnSize,
      String literalPrefix,
      String literalSuffix,
      List<String> createParams,
      boolean caseSensitive,
      int searchable,
      Boolean unsigned,
      Boolean autoIncrement,
      Integer minimumScale,
      Integer maximumScale,
      int sqlDataType,
      Integer datetimeSubcode,
      Integer numPrecRadix) {}

  static final List<TypeInfo> TYPES =
      List.of(
              scalar("BOOLEAN", Types.BOOLEAN, 1, null, null, SEARCHABLE_BASIC),
              number("INTEGER", Types.INTEGER, 10, 0, 0),
              number("BIGINT", Types.BIGINT, 19, 0, 0),
              number("REAL", Types.REAL, 7, null, null),
              number("DOUBLE", Types.DOUBLE, 15, null, null),
              new TypeInfo(
                  "DECIMAL", Types.DECIMAL, 38, null, null, List.of("precision", "scale"), false,
                  SEARCHABLE_BASIC, false, false, 0, 38, Types.DECIMAL, null, 10),
              datetime("DATE", Types.DATE, 10, "DATE '", null, XdbcDatetimeSubcode.XDBC_SUBCODE_DATE_VALUE),
              datetime("TIME", Types.TIME, 15, "TIME '", 6, XdbcDatetimeSubcode.XDBC_SUBCODE_TIME_VALUE),
              datetime(
                  "TIMESTAMP", Types.TIMESTAMP, 26, "TIMESTAMP '", 6,
                  XdbcDatetimeSubcode.XDBC_SUBCODE_TIMESTAMP_VALUE),
              datetime(
                  "TIMESTAMP WITH TIME ZONE", Types.TIMESTAMP_WITH_TIMEZONE, 32, null, 6,
                  XdbcDatetimeSubcode.XDBC_SUBCODE_TIMESTAMP_WITH_TIMEZONE_VALUE),
              new TypeInfo(
                  "VARCHAR", Types.VARCHAR, null, "'", "'", null, true, SEARCHABLE_FULL,
                  null, null, null, null, Types.VARCHAR, null, null),
              scalar("UUID", Types.BINARY, 16, null, null, SEARCHABLE_BASIC),
              new TypeInfo(
                  "BINARY", Types.BINARY, null, "X'", "'", List.of("length"), false, SEARCHABLE_BASIC,
                  null, null, null, null, Types.BINARY, null, null),
              scalar("VARBINARY", Types.VARBINARY, null, "X'", "'", SEARCHABLE_BASIC),
              scalar("ARRAY", Types.ARRAY, null, null, null, SEARCHABLE_NONE),
              scalar("MAP", Types.JAVA_OBJECT, null, null, null, SEARCHABLE_NONE),
              scalar("ROW", Types.STRUCT, null, null, null, SEARCHABLE_NONE))
          .stream()
          .sorted(Comparator.comparingInt(TypeInfo::dataType).thenComparing(TypeInfo::typeName))
          .toList();

  private XdbcTypes() {}

  private static TypeInfo scalar(
      String name, int dataType, Integer size, String prefix, String suffix, int searchable) {
    return new TypeInfo(
        name, dataType, size, prefix, suffix, null, false, searchable, null, null, null, null, dataType,
        null, null);
  }

  private static TypeInfo number(String name, int dataType, int size, Integer minScale, Integer maxScale) {
    return new TypeInfo(
        name, dataType, size, null, null, null, false, SEARCHABLE_BASIC, false, false, minScale, maxScale,
        dataType, null, 10);
  }

  private static TypeInfo datetime(
      String name, int dataType, int size, String prefix, Integer scale, int subcode) {
    return new TypeInfo(
        name, dataType, size, prefix, prefix == null ? null : "'", null, false, SEARCHABLE_BASIC, null, null,
        scale, scale, SQL_DATETIME, subcode, null);
  }

  /** A {@code GET_TYPE_INFO_SCHEMA} root: every type, or those of one data type when given. */
  static VectorSchemaRoot write(BufferAllocator allocator, Integer dataType) {
    List<TypeInfo> rows =
        TYPES.stream().filter(t -> dataType == null || t.dataType() == dataType).toList();
    return Vectors.fill(
        Schemas.GET_TYPE_INFO_SCHEMA,
        allocator,
        rows.size(),
        (root, i) -> writeRow(root, i, rows.get(i)));
  }

  private static void writeRow(VectorSchemaRoot root, int i, TypeInfo t) {
    Vectors.setString(root, "type_name", i, t.typeName());
    Vectors.setInt(root, "data_type", i, t.dataType());
    Vectors.setInt(root, "column_size", i, t.columnSize());
    Vectors.setString(root, "literal_prefix", i, t.literalPrefix());
    Vectors.setString(root, "literal_suffix", i, t.literalSuffix());
    if (t.createParams() != null) {
      ListVector params = (ListVector) root.getVector("create_params");
      int start = params.startNewValue(i);
      VarCharVector items = (VarCharVector) params.getDataVector();
      for (int p = 0; p < t.createParams().size(); p++) {
        items.setSafe(start + p, t.createParams().get(p).getBytes(StandardCharsets.UTF_8));
      }
      params.endValue(i, t.createParams().size());
    }
    Vectors.setInt(root, "nullable", i, Nullable.NULLABILITY_NULLABLE_VALUE);
    Vectors.setBoolean(root, "case_sensitive", i, t.caseSensitive());
    Vectors.setInt(root, "searchable", i, t.searchable());
    Vectors.setBoolean(root, "unsigned_attribute", i, t.unsigned());
    Vectors.setBoolean(root, "fixed_prec_scale", i, false);
    Vectors.setBoolean(root, "auto_increment", i, t.autoIncrement());
    Vectors.setString(root, "local_type_name", i, t.typeName());
    Vectors.setInt(root, "minimum_scale", i, t.minimumScale());
    Vectors.setInt(root, "maximum_scale", i, t.maximumScale());
    Vectors.setInt(root, "sql_data_type", i, t.sqlDataType());
    Vectors.setInt(root, "datetime_subcode", i, t.datetimeSubcode());
    Vectors.setInt(root, "num_prec_radix", i, t.numPrecRadix());
    Vectors.setInt(root, "interval_precision", i, null);
  }
}

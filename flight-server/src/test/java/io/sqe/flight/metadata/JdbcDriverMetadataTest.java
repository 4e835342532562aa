package io.sqe.flight.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.sqe.catalog.Catalogs;
import io.sqe.engine.session.ObjectVisibility;
import io.sqe.engine.session.Principal;
import io.sqe.infoschema.CatalogMetadata;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.NoOpFlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCatalogs;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTableTypes;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metadata answers as the Flight SQL JDBC driver reads them, through a Flight server on a
 * loopback port whose producer does nothing but hand the commands to {@link FlightSqlMetadata}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcDriverMetadataTest {
  private static final Principal PRINCIPAL = Principal.of("admin");

  private Catalogs catalogs;
  private BufferAllocator allocator;
  private FlightServer server;
  private Connection connection;

  @BeforeAll
  void start(@TempDir Path warehouse) throws IOException, SQLException {
    catalogs = TestLakehouse.create(warehouse);
    allocator = new RootAllocator();
    server =
        FlightServer.builder(
                allocator,
                Location.forGrpcInsecure("127.0.0.1", 0),
                new MetadataOnlyProducer(new FlightSqlMetadata(catalogs, new CatalogMetadata(ObjectVisibility.ALL), "SQE", "0.1.0-test"), allocator))
            .build()
            .start();
    connection =
        DriverManager.getConnection(
            "jdbc:arrow-flight-sql://127.0.0.1:" + server.getPort() + "/?useEncryption=false");
  }

  @AfterAll
  void stop() throws Exception {
    try (BufferAllocator a = allocator;
        FlightServer s = server;
        Catalogs c = catalogs;
        Connection conn = connection) {
      // Closed in reverse order: connection, catalogs, server, then the allocator checks for leaks.
    }
  }

  @Test
  void databaseMetaDataGettersAllAnswer() throws Exception {
    DatabaseMetaData meta = connection.getMetaData();
    assertThat(meta.getDatabaseProductName()).isEqualTo("SQE");
    assertThat(meta.getDatabaseProductVersion()).isEqualTo("0.1.0-test");
    assertThat(meta.getIdentifierQuoteString()).isEqualTo("\"");
    assertThat(meta.getSearchStringEscape()).isEqualTo("\\");
    assertThat(meta.getSQLKeywords()).contains("LIMIT");
    assertThat(meta.getNumericFunctions()).contains("ABS");
    assertThat(meta.getStringFunctions()).contains("UPPER");
    assertThat(meta.getTimeDateFunctions()).contains("CURRENT_DATE");
    assertThat(meta.getSystemFunctions()).contains("COALESCE");
    assertThat(meta.isReadOnly()).isFalse();
    assertThat(meta.supportsTransactions()).isTrue();
    assertThat(meta.getDefaultTransactionIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
    assertThat(meta.supportsTransactionIsolationLevel(Connection.TRANSACTION_READ_COMMITTED)).isTrue();
    assertThat(meta.supportsTransactionIsolationLevel(Connection.TRANSACTION_SERIALIZABLE)).isFalse();
    assertThat(meta.supportsResultSetType(ResultSet.TYPE_FORWARD_ONLY)).isTrue();
    assertThat(meta.supportsResultSetType(ResultSet.TYPE_SCROLL_INSENSITIVE)).isFalse();
    assertThat(meta.supportsFullOuterJoins()).isTrue();
    assertThat(meta.supportsGroupByUnrelated()).isTrue();
    assertThat(meta.supportsANSI92EntryLevelSQL()).isTrue();
    assertThat(meta.supportsCoreSQLGrammar()).isTrue();
    assertThat(meta.supportsCorrelatedSubqueries()).isTrue();
    assertThat(meta.supportsSubqueriesInExists()).isTrue();
    assertThat(meta.supportsUnionAll()).isTrue();
    assertThat(meta.supportsLikeEscapeClause()).isTrue();
    assertThat(meta.nullPlusNonNullIsNull()).isTrue();
    assertThat(meta.supportsConvert()).isTrue();
    assertThat(meta.supportsConvert(Types.INTEGER, Types.VARCHAR)).isTrue();
    assertThat(meta.getSchemaTerm()).isEqualTo("schema");
    assertThat(meta.getCatalogTerm()).isEqualTo("catalog");
    assertThat(meta.isCatalogAtStart()).isTrue();
    assertThat(meta.getMaxColumnNameLength()).isZero();

    // Every no-argument getter the driver answers from SqlInfo must find its key: a missing one
    // throws (or, in drivers before 19.0.0, NPEs) here.
    List<String> failures = new ArrayList<>();
    for (Method method : DatabaseMetaData.class.getMethods()) {
      if (method.getParameterCount() == 0 && !method.getName().startsWith("get") || isSqlInfoGetter(method)) {
        try {
          method.invoke(meta);
        } catch (InvocationTargetException e) {
          if (!(e.getCause() instanceof SQLFeatureNotSupportedException)) {
            failures.add(method.getName() + ": " + e.getCause());
          }
        }
      }
    }
    assertThat(failures).isEmpty();
  }

  private static boolean isSqlInfoGetter(Method method) {
    return method.getParameterCount() == 0
        && (method.getName().startsWith("getMax")
            || method.getName().endsWith("Functions")
            || method.getName().endsWith("Term")
            || List.of("getSQLKeywords", "getExtraNameCharacters", "getDefaultTransactionIsolation")
                .contains(method.getName()));
  }

  @Test
  void catalogsSchemasAndTables() throws SQLException {
    DatabaseMetaData meta = connection.getMetaData();
    assertThat(column(meta.getCatalogs(), "TABLE_CAT")).containsExactly("archive", "lake");
    assertThat(column(meta.getSchemas("lake", "sales%"), "TABLE_SCHEM"))
        .containsExactly("sales", "sales_2024", "salesx2024");
    assertThat(column(meta.getTableTypes(), "TABLE_TYPE")).containsExactly("TABLE", "VIEW");
    assertThat(column(meta.getTables(null, null, "%", new String[] {"VIEW"}), "TABLE_NAME"))
        .containsExactly("big_orders");
    assertThat(column(meta.getTables("lake", "sales", "%", null), "TABLE_NAME"))
        .containsExactly("all_types", "big_orders", "customers", "orders");
  }

  @Test
  void columnsCarryTypesSizesCommentsAndNullability() throws SQLException {
    Map<String, Map<String, Object>> columns = new TreeMap<>();
    try (ResultSet rs = connection.getMetaData().getColumns("lake", "sales", "all_types", "%")) {
      while (rs.next()) {
        columns.put(
            rs.getString("COLUMN_NAME"),
            Map.of(
                "DATA_TYPE", rs.getInt("DATA_TYPE"),
                "TYPE_NAME", rs.getString("TYPE_NAME"),
                "COLUMN_SIZE", rs.getInt("COLUMN_SIZE"),
                "DECIMAL_DIGITS", rs.getInt("DECIMAL_DIGITS"),
                "NULLABLE", rs.getInt("NULLABLE"),
                "REMARKS", String.valueOf(rs.getString("REMARKS")),
                "IS_AUTOINCREMENT", rs.getString("IS_AUTOINCREMENT"),
                "ORDINAL_POSITION", rs.getInt("ORDINAL_POSITION")));
      }
    }
    assertThat(columns).hasSize(TestLakehouse.ALL_TYPES.columns().size());
    assertThat(columns.get("amount"))
        .containsEntry("DATA_TYPE", Types.DECIMAL)
        .containsEntry("TYPE_NAME", "decimal(12,2)")
        .containsEntry("COLUMN_SIZE", 12)
        .containsEntry("DECIMAL_DIGITS", 2)
        .containsEntry("REMARKS", "Order total in EUR")
        .containsEntry("NULLABLE", DatabaseMetaData.columnNullable)
        .containsEntry("ORDINAL_POSITION", 6);
    assertThat(columns.get("id"))
        .containsEntry("DATA_TYPE", Types.BIGINT)
        .containsEntry("NULLABLE", DatabaseMetaData.columnNoNulls)
        .containsEntry("IS_AUTOINCREMENT", "NO");
    assertThat(columns.get("tstz"))
        .containsEntry("DATA_TYPE", Types.TIMESTAMP_WITH_TIMEZONE)
        .containsEntry("TYPE_NAME", "timestamp(6) with time zone")
        .containsEntry("DECIMAL_DIGITS", 6);
    assertThat(columns.get("ts")).containsEntry("DATA_TYPE", Types.TIMESTAMP).containsEntry("COLUMN_SIZE", 26);
    assertThat(columns.get("fx")).containsEntry("DATA_TYPE", Types.BINARY).containsEntry("COLUMN_SIZE", 4);
    assertThat(columns.get("u")).containsEntry("TYPE_NAME", "uuid").containsEntry("COLUMN_SIZE", 16);
    assertThat(columns.get("s")).containsEntry("DATA_TYPE", Types.VARCHAR).containsEntry("TYPE_NAME", "varchar");
  }

  @Test
  void primaryKeys() throws SQLException {
    List<String> keys = new ArrayList<>();
    try (ResultSet rs = connection.getMetaData().getPrimaryKeys("lake", "sales", "customers")) {
      while (rs.next()) {
        keys.add(rs.getString("COLUMN_NAME") + "#" + rs.getInt("KEY_SEQ"));
      }
    }
    assertThat(keys).containsExactly("customer_id#1", "tenant#2", "ext.code#3");
    try (ResultSet rs = connection.getMetaData().getImportedKeys("lake", "sales", "customers")) {
      assertThat(rs.next()).isFalse();
    }
  }

  private static List<String> column(ResultSet rs, String name) throws SQLException {
    List<String> values = new ArrayList<>();
    try (rs) {
      while (rs.next()) {
        values.add(rs.getString(name));
      }
    }
    return values;
  }

  /** Answers the metadata commands, one batch per stream; every other command stays unimplemented. */
  private static final class MetadataOnlyProducer extends NoOpFlightSqlProducer {
    private final FlightSqlMetadata metadata;
    private final BufferAllocator allocator;

    MetadataOnlyProducer(FlightSqlMetadata metadata, BufferAllocator allocator) {
      this.metadata = metadata;
      this.allocator = allocator;
    }

    private static FlightInfo info(Message command, FlightDescriptor descriptor, Schema schema) {
      Ticket ticket = new Ticket(Any.pack(command).toByteArray());
      return new FlightInfo(schema, descriptor, List.of(new FlightEndpoint(ticket)), -1, -1);
    }

    private void send(ServerStreamListener listener, Function<BufferAllocator, VectorSchemaRoot> answer) {
      try (VectorSchemaRoot root = answer.apply(allocator)) {
        listener.start(root);
        listener.putNext();
        listener.completed();
      } catch (RuntimeException e) {
        listener.error(e);
      }
    }

    @Override
    public FlightInfo getFlightInfoSqlInfo(CommandGetSqlInfo request, CallContext context, FlightDescriptor descriptor) {
      return info(request, descriptor, Schemas.GET_SQL_INFO_SCHEMA);
    }

    @Override
    public void getStreamSqlInfo(CommandGetSqlInfo command, CallContext context, ServerStreamListener listener) {
      send(listener, a -> metadata.getSqlInfo(a, command));
    }

    @Override
    public FlightInfo getFlightInfoCatalogs(CommandGetCatalogs request, CallContext context, FlightDescriptor descriptor) {
      return info(request, descriptor, Schemas.GET_CATALOGS_SCHEMA);
    }

    @Override
    public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
      send(listener, metadata::getCatalogs);
    }

    @Override
    public FlightInfo getFlightInfoSchemas(CommandGetDbSchemas request, CallContext context, FlightDescriptor descriptor) {
      return info(request, descriptor, Schemas.GET_SCHEMAS_SCHEMA);
    }

    @Override
    public void getStreamSchemas(CommandGetDbSchemas command, CallContext context, ServerStreamListener listener) {
      send(listener, a -> metadata.getDbSchemas(a, PRINCIPAL, command));
    }

    @Override
    public FlightInfo getFlightInfoTables(CommandGetTables request, CallContext context, FlightDescriptor descriptor) {
      return info(
          request,
          descriptor,
          request.getIncludeSchema() ? Schemas.GET_TABLES_SCHEMA : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA);
    }

    @Override
    public void getStreamTables(CommandGetTables command, CallContext context, ServerStreamListener listener) {
      send(listener, a -> metadata.getTables(a, PRINCIPAL, command));
    }

    @Override
    public FlightInfo getFlightInfoTableTypes(
        CommandGetTableTypes request, CallContext context, FlightDescriptor descriptor) {
      return info(request, descriptor, Schemas.GET_TABLE_TYPES_SCHEMA);
    }

    @Override
    public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
      send(listener, metadata::getTableTypes);
    }

    @Override
    public FlightInfo getFlightInfoPrimaryKeys(
        CommandGetPrimaryKeys request, CallContext context, FlightDescriptor descriptor) {
      return info(request, descriptor, Schemas.GET_PRIMARY_KEYS_SCHEMA);
    }

    @Override
    public void getStreamPrimaryKeys(CommandGetPrimaryKeys command, CallContext context, ServerStreamListener listener) {
      send(listener, a -> metadata.getPrimaryKeys(a, PRINCIPAL, command));
    }

    @Override
    public FlightInfo getFlightInfoImportedKeys(
        CommandGetImportedKeys request, CallContext context, FlightDescriptor descriptor) {
      return info(request, descriptor, Schemas.GET_IMPORTED_KEYS_SCHEMA);
    }

    @Override
    public void getStreamImportedKeys(CommandGetImportedKeys command, CallContext context, ServerStreamListener listener) {
      send(listener, a -> metadata.getImportedKeys(a, command));
    }

    @Override
    public FlightInfo getFlightInfoExportedKeys(
        CommandGetExportedKeys request, CallContext context, FlightDescriptor descriptor) {
      return info(request, descriptor, Schemas.GET_EXPORTED_KEYS_SCHEMA);
    }

    @Override
    public void getStreamExportedKeys(CommandGetExportedKeys command, CallContext context, ServerStreamListener listener) {
      send(listener, a -> metadata.getExportedKeys(a, command));
    }
  }
}

package io.sqe.flight.metadata;

import io.sqe.engine.sql.SqeJavaTypeFactory;
import io.sqe.engine.sql.SqlDialect;
import io.sqe.infoschema.LikePattern;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlNullOrdering;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlOuterJoinsSupportLevel;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedCaseSensitivity;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedGroupBy;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedResultSetConcurrency;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedResultSetType;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedSubqueries;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedTransaction;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedUnions;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlTransactionIsolationLevel;
import org.apache.arrow.flight.sql.impl.FlightSql.SupportedAnsi92SqlGrammarLevel;
import org.apache.arrow.flight.sql.impl.FlightSql.SupportedSqlGrammar;
import org.apache.calcite.adapter.enumerable.RexImpTable;
import org.apache.calcite.avatica.util.TimeUnit;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlGroupedWindowFunction;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.SqlTableFunction;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeCoercionRule;
import org.apache.calcite.sql.type.SqlTypeMappingRule;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * What SQE tells Flight SQL clients about itself and its SQL dialect (GetSqlInfo): every key the
 * Flight SQL JDBC driver's {@code DatabaseMetaData} reads, plus the server keys ADBC asks for.
 *
 * <p>Keywords, function lists and CAST support are read from the parser, operator table and type
 * rules the engine uses, so they cannot drift from what a query accepts.
 */
public final class ServerSqlInfo {
  /** "No limit or unknown", the spec's value for every maximum length. */
  private static final long NO_LIMIT = 0;

  /**
   * How long a prepared statement handle lives unused; each use starts the time again. This is
   * what FLIGHT_SQL_SERVER_STATEMENT_TIMEOUT means (handles, not running statements).
   */
  public static final Duration PREPARED_STATEMENT_IDLE_TIMEOUT = Duration.ofHours(2);

  /**
   * How long a session lives without a call unless {@code server.session-idle-timeout} says
   * otherwise; its open transactions roll back when it ends, so
   * this is also the FLIGHT_SQL_SERVER_TRANSACTION_TIMEOUT (every call in the transaction, which
   * goes through its session, starts the time again).
   */
  public static final Duration SESSION_IDLE_TIMEOUT = Duration.ofHours(8);

  private ServerSqlInfo() {}

  /** Every value this server answers GetSqlInfo with. */
  static SqlInfoValues values(String serverName, String serverVersion) {
    return values(serverName, serverVersion, SESSION_IDLE_TIMEOUT);
  }

  /** As above, for sessions that end after {@code sessionIdleTimeout} without a call. */
  static SqlInfoValues values(String serverName, String serverVersion, Duration sessionIdleTimeout) {
    return SqlInfoValues.from(builder(serverName, serverVersion, sessionIdleTimeout), resultSetConcurrencies());
  }

  /**
   * A builder holding every value it has a setter for; each call returns a new one, as builders
   * are mutable.
   */
  public static SqlInfoBuilder builder(String serverName, String serverVersion) {
    return builder(serverName, serverVersion, SESSION_IDLE_TIMEOUT);
  }

  /** As above, for sessions that end after {@code sessionIdleTimeout} without a call. */
  public static SqlInfoBuilder builder(String serverName, String serverVersion, Duration sessionIdleTimeout) {
    Objects.requireNonNull(serverName, "serverName is null");
    Objects.requireNonNull(serverVersion, "serverVersion is null");
    return new SqlInfoBuilder()
        .withFlightSqlServerName(serverName)
        .withFlightSqlServerVersion(serverVersion)
        .withFlightSqlServerArrowVersion(arrowVersion())
        .withFlightSqlServerReadOnly(false)
        .withFlightSqlServerSql(true)
        .withFlightSqlServerSubstrait(false)
        // Begin/EndTransaction and Begin/EndSavepoint; CancelFlightInfo and the older CancelQuery.
        .withFlightSqlServerTransaction(SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_SAVEPOINT)
        .withFlightSqlServerCancel(true)
        .withFlightSqlServerBulkIngestion(true)
        .withFlightSqlServerBulkIngestionTransaction(true)
        // Both in milliseconds, idle times of handles (the proto's meaning), not query run times.
        .withFlightSqlServerStatementTimeout(Math.toIntExact(PREPARED_STATEMENT_IDLE_TIMEOUT.toMillis()))
        .withFlightSqlServerTransactionTimeout((int) Math.min(Integer.MAX_VALUE, sessionIdleTimeout.toMillis()))
        // Catalogs come from the server configuration; schemas and tables are Iceberg namespaces
        // and tables, which SQL creates.
        .withSqlDdlCatalog(false)
        .withSqlDdlSchema(true)
        .withSqlDdlTable(true)
        // The parser folds unquoted names to lower case, but names are matched case-insensitively
        // whether quoted or not (SqlDialect: caseSensitive=false), and Iceberg keeps names in the
        // case they were created with. The protocol has no "case-sensitive" value anyway.
        .withSqlIdentifierCase(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE)
        .withSqlQuotedIdentifierCase(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE)
        .withSqlIdentifierQuoteChar("\"")
        .withSqlAllTablesAreSelectable(true)
        .withSqlNullOrdering(SqlNullOrdering.SQL_NULLS_SORTED_AT_END)
        .withSqlKeywords(keywords())
        .withSqlNumericFunctions(functions(SqlFunctionCategory.NUMERIC))
        .withSqlStringFunctions(functions(SqlFunctionCategory.STRING))
        .withSqlSystemFunctions(functions(SqlFunctionCategory.SYSTEM))
        .withSqlDatetimeFunctions(functions(SqlFunctionCategory.TIMEDATE))
        .withSqlSearchStringEscape(String.valueOf(LikePattern.ESCAPE))
        .withSqlExtraNameCharacters("")
        .withSqlSupportsColumnAliasing(true)
        .withSqlNullPlusNullIsNull(true)
        .withSqlSupportsConvert(conversions())
        .withSqlSupportsTableCorrelationNames(true)
        .withSqlSupportsDifferentTableCorrelationNames(false)
        .withSqlSupportsExpressionsInOrderBy(true)
        .withSqlSupportsOrderByUnrelated(true)
        .withSqlSupportedGroupBy(
            SqlSupportedGroupBy.SQL_GROUP_BY_UNRELATED, SqlSupportedGroupBy.SQL_GROUP_BY_BEYOND_SELECT)
        .withSqlSupportsLikeEscapeClause(true)
        .withSqlSupportsNonNullableColumns(true)
        .withSqlSupportedGrammar(
            SupportedSqlGrammar.SQL_MINIMUM_GRAMMAR, SupportedSqlGrammar.SQL_CORE_GRAMMAR)
        .withSqlAnsi92SupportedLevel(SupportedAnsi92SqlGrammarLevel.ANSI92_ENTRY_SQL)
        .withSqlSupportsIntegrityEnhancementFacility(false)
        .withSqlOuterJoinSupportLevel(SqlOuterJoinsSupportLevel.SQL_FULL_OUTER_JOINS)
        .withSqlSchemaTerm("schema")
        .withSqlProcedureTerm("procedure")
        .withSqlCatalogTerm("catalog")
        .withSqlCatalogAtStart(true)
        // Schema and catalog names are not allowed in procedure calls, index or privilege
        // definitions: SQE has none of those.
        .withSqlSchemasSupportedActions()
        .withSqlCatalogsSupportedActions()
        .withSqlSupportedPositionedCommands()
        .withSqlSelectForUpdateSupported(false)
        .withSqlStoredProceduresSupported(false)
        .withSqlSubQueriesSupported(
            SqlSupportedSubqueries.SQL_SUBQUERIES_IN_COMPARISONS,
            SqlSupportedSubqueries.SQL_SUBQUERIES_IN_EXISTS,
            SqlSupportedSubqueries.SQL_SUBQUERIES_IN_INS,
            SqlSupportedSubqueries.SQL_SUBQUERIES_IN_QUANTIFIEDS)
        .withSqlCorrelatedSubqueriesSupported(true)
        .withSqlSupportedUnions(SqlSupportedUnions.SQL_UNION, SqlSupportedUnions.SQL_UNION_ALL)
        .withSqlMaxBinaryLiteralLength(NO_LIMIT)
        .withSqlMaxCharLiteralLength(NO_LIMIT)
        .withSqlMaxColumnNameLength(NO_LIMIT)
        .withSqlMaxColumnsInGroupBy(NO_LIMIT)
        .withSqlMaxColumnsInIndex(NO_LIMIT)
        .withSqlMaxColumnsInOrderBy(NO_LIMIT)
        .withSqlMaxColumnsInSelect(NO_LIMIT)
        .withSqlMaxColumnsInTable(NO_LIMIT)
        .withSqlMaxConnections(NO_LIMIT)
        .withSqlMaxCursorNameLength(NO_LIMIT)
        .withSqlMaxIndexLength(NO_LIMIT)
        .withSqlDbSchemaNameLength(NO_LIMIT)
        .withSqlMaxProcedureNameLength(NO_LIMIT)
        .withSqlMaxCatalogNameLength(NO_LIMIT)
        .withSqlMaxRowSize(NO_LIMIT)
        .withSqlMaxRowSizeIncludesBlobs(false)
        .withSqlMaxStatementLength(NO_LIMIT)
        .withSqlMaxStatements(NO_LIMIT)
        .withSqlMaxTableNameLength(NO_LIMIT)
        .withSqlMaxTablesInSelect(NO_LIMIT)
        .withSqlMaxUsernameLength(NO_LIMIT)
        // A transaction reads its own staged writes and the committed state of other tables;
        // that is read committed. DDL other than CREATE TABLE ... AS is refused inside one.
        .withSqlDefaultTransactionIsolation(SqlTransactionIsolationLevel.SQL_TRANSACTION_READ_COMMITTED_VALUE)
        .withSqlTransactionsSupported(true)
        .withSqlSupportedTransactionsIsolationLevels(SqlTransactionIsolationLevel.SQL_TRANSACTION_READ_COMMITTED)
        .withSqlDataDefinitionCausesTransactionCommit(false)
        .withSqlDataDefinitionsInTransactionsIgnored(false)
        .withSqlSupportedResultSetTypes(SqlSupportedResultSetType.SQL_RESULT_SET_TYPE_FORWARD_ONLY)
        .withSqlBatchUpdatesSupported(false)
        .withSqlSavepointsSupported(true)
        .withSqlNamedParametersSupported(false)
        .withSqlLocatorsUpdateCopy(false)
        .withSqlStoredFunctionsUsingCallSyntaxSupported(false);
  }

  /**
   * Ids 568-571, which Arrow's builder has no setters for: results are forward-only and
   * read-only, so only those two result set types allow a concurrency, READ_ONLY.
   */
  static Map<Integer, SqlInfoValues.Value> resultSetConcurrencies() {
    SqlInfoValues.Value readOnly =
        new SqlInfoValues.Value(
            SqlInfoValues.INT32_BITMASK,
            1 << SqlSupportedResultSetConcurrency.SQL_RESULT_SET_CONCURRENCY_READ_ONLY_VALUE);
    SqlInfoValues.Value none = new SqlInfoValues.Value(SqlInfoValues.INT32_BITMASK, 0);
    return Map.of(
        SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_UNSPECIFIED_VALUE, readOnly,
        SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_FORWARD_ONLY_VALUE, readOnly,
        SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_SCROLL_SENSITIVE_VALUE, none,
        SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_SCROLL_INSENSITIVE_VALUE, none);
  }

  /** The Arrow Java version on the class path, as the jar manifest names it. */
  static String arrowVersion() {
    String version = FlightSqlProducer.class.getPackage().getImplementationVersion();
    return version == null ? "unknown" : version;
  }

  /**
   * The parser's keywords, reserved or not, that are not SQL:92 reserved words, which is what JDBC's
   * {@code getSQLKeywords} reports (keywords, not only reserved words: LIMIT and OFFSET are not
   * reserved, as in Trino, but are keywords).
   */
  static String[] keywords() {
    SqlAbstractParserImpl.Metadata metadata = SqlParser.create("", SqlDialect.parserConfig()).getMetadata();
    return metadata.getTokens().stream()
        .filter(t -> t.matches("[A-Z][A-Z0-9_]*") && metadata.isKeyword(t) && !metadata.isSql92ReservedWord(t))
        .sorted()
        .distinct()
        .toArray(String[]::new);
  }

  /**
   * Names of the scalar functions the engine's operator table resolves, in Calcite's category
   * (which puts a few where JDBC would not, e.g. CHAR_LENGTH under SYSTEM). SqlInfoThroughClientsTest
   * runs each one in a SELECT.
   */
  static String[] functions(SqlFunctionCategory category) {
    TreeSet<String> names = new TreeSet<>();
    for (SqlOperator operator : SqlDialect.operatorTable().getOperatorList()) {
      if (operator instanceof SqlFunction function
          && !(operator instanceof SqlAggFunction)
          && !(operator instanceof SqlGroupedWindowFunction)
          // TUMBLE, HOP, SESSION: table functions, called in FROM TABLE(...), not in expressions.
          && !(operator instanceof SqlTableFunction)
          && isImplemented(function)
          && function.getFunctionType() == category
          && isCalledByName(function.getSyntax())
          && function.getName().chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_')) {
        names.add(function.getName().toUpperCase(Locale.ROOT));
      }
    }
    return names.toArray(String[]::new);
  }

  /**
   * A function called without arguments (a context variable such as CURRENT_SCHEMA) is not
   * rewritten into other calls before code generation, so it runs only if Calcite's code
   * generator implements it. Functions with arguments may be rewritten (SQRT into POWER, YEAR
   * into EXTRACT), so the generator's table does not decide for them.
   */
  private static boolean isImplemented(SqlFunction function) {
    return function.getSyntax() != SqlSyntax.FUNCTION_ID || RexImpTable.INSTANCE.get(function) != null;
  }

  private static boolean isCalledByName(SqlSyntax syntax) {
    return syntax == SqlSyntax.FUNCTION
        || syntax == SqlSyntax.FUNCTION_STAR
        || syntax == SqlSyntax.FUNCTION_ID
        || syntax == SqlSyntax.ORDERED_FUNCTION;
  }

  /** For each JDBC convert type, the types CAST accepts it to, by the engine's type rules. */
  static Map<Integer, List<Integer>> conversions() {
    RelDataTypeFactory factory = new SqeJavaTypeFactory();
    SqlTypeMappingRule rule =
        SqlDialect.CONFORMANCE.allowLenientCoercion()
            ? SqlTypeCoercionRule.lenientInstance()
            : SqlTypeCoercionRule.instance();
    Map<SqlSupportsConvert, RelDataType> types = new EnumMap<>(SqlSupportsConvert.class);
    for (SqlSupportsConvert convert : SqlSupportsConvert.values()) {
      if (convert != SqlSupportsConvert.UNRECOGNIZED) {
        types.put(convert, calciteType(factory, convert));
      }
    }
    Map<Integer, List<Integer>> conversions = new LinkedHashMap<>();
    for (Map.Entry<SqlSupportsConvert, RelDataType> from : types.entrySet()) {
      List<Integer> targets = new ArrayList<>();
      for (Map.Entry<SqlSupportsConvert, RelDataType> to : types.entrySet()) {
        if (SqlTypeUtil.canCastFrom(to.getValue(), from.getValue(), rule)) {
          targets.add(to.getKey().getNumber());
        }
      }
      if (!targets.isEmpty()) {
        conversions.put(from.getKey().getNumber(), List.copyOf(targets));
      }
    }
    return conversions;
  }

  private static RelDataType calciteType(RelDataTypeFactory factory, SqlSupportsConvert convert) {
    switch (convert) {
      case SQL_CONVERT_BIGINT:
        return factory.createSqlType(SqlTypeName.BIGINT);
      case SQL_CONVERT_BINARY:
        return factory.createSqlType(SqlTypeName.BINARY);
      case SQL_CONVERT_BIT:
        return factory.createSqlType(SqlTypeName.BOOLEAN);
      case SQL_CONVERT_CHAR:
        return factory.createSqlType(SqlTypeName.CHAR);
      case SQL_CONVERT_DATE:
        return factory.createSqlType(SqlTypeName.DATE);
      case SQL_CONVERT_DECIMAL:
      case SQL_CONVERT_NUMERIC:
        return factory.createSqlType(SqlTypeName.DECIMAL);
      case SQL_CONVERT_FLOAT:
        return factory.createSqlType(SqlTypeName.FLOAT);
      case SQL_CONVERT_INTEGER:
        return factory.createSqlType(SqlTypeName.INTEGER);
      case SQL_CONVERT_INTERVAL_DAY_TIME:
        return factory.createSqlIntervalType(
            new SqlIntervalQualifier(TimeUnit.DAY, TimeUnit.SECOND, SqlParserPos.ZERO));
      case SQL_CONVERT_INTERVAL_YEAR_MONTH:
        return factory.createSqlIntervalType(
            new SqlIntervalQualifier(TimeUnit.YEAR, TimeUnit.MONTH, SqlParserPos.ZERO));
      case SQL_CONVERT_LONGVARBINARY:
      case SQL_CONVERT_VARBINARY:
        return factory.createSqlType(SqlTypeName.VARBINARY);
      case SQL_CONVERT_LONGVARCHAR:
      case SQL_CONVERT_VARCHAR:
        return factory.createSqlType(SqlTypeName.VARCHAR);
      case SQL_CONVERT_REAL:
        return factory.createSqlType(SqlTypeName.REAL);
      case SQL_CONVERT_SMALLINT:
        return factory.createSqlType(SqlTypeName.SMALLINT);
      case SQL_CONVERT_TIME:
        return factory.createSqlType(SqlTypeName.TIME);
      case SQL_CONVERT_TIMESTAMP:
        return factory.createSqlType(SqlTypeName.TIMESTAMP);
      case SQL_CONVERT_TINYINT:
        return factory.createSqlType(SqlTypeName.TINYINT);
      default:
        throw new IllegalArgumentException("Unknown JDBC convert type: " + convert);
    }
  }
}

package io.sqe.engine.sql;

import io.sqe.engine.sql.functions.AggregateFunctions;
import io.sqe.engine.sql.functions.ArrayFunctions;
import io.sqe.engine.sql.functions.BinaryFunctions;
import io.sqe.engine.sql.functions.BitwiseFunctions;
import io.sqe.engine.sql.functions.CalendarFunctions;
import io.sqe.engine.sql.functions.CollectionFunctions;
import io.sqe.engine.sql.functions.ConditionalFunctions;
import io.sqe.engine.sql.functions.DateTimeFunctions;
import io.sqe.engine.sql.functions.JsonFunctions;
import io.sqe.engine.sql.functions.LambdaFunctions;
import io.sqe.engine.sql.functions.MathFunctions;
import io.sqe.engine.sql.functions.RegexpFunctions;
import io.sqe.engine.sql.functions.StringFunctions;
import io.sqe.engine.sql.functions.TextFunctions;
import io.sqe.engine.sql.functions.UrlFunctions;
import io.sqe.engine.sql.parser.SqeSqlParserImpl;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.config.NullCollation;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.dialect.CalciteSqlDialect;
import org.apache.calcite.sql.fun.SqlLibrary;
import org.apache.calcite.sql.fun.SqlLibraryOperatorTableFactory;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SqlConformance;
import org.apache.calcite.sql.validate.SqlNameMatcher;
import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.apache.calcite.sql.validate.SqlValidator;

/**
 * SQE's SQL dialect: double-quoted identifiers, unquoted identifiers folded to lower case and
 * matched case-insensitively (as in Trino and PostgreSQL), NULLS LAST by default in both
 * directions (as in Trino and DuckDB), the standard plus PostgreSQL function libraries, TRY_CAST, and
 * the string-unit date functions of Trino and DuckDB. Statements are read by SQE's own parser,
 * generated from Calcite's grammar template with SQE's statements added (sql/src/main/codegen).
 */
public final class SqlDialect {
  public static final SqlConformance CONFORMANCE = SqlConformanceEnum.LENIENT;

  private static final SqlOperatorTable OPERATORS =
      SqlOperatorTables.chain(
          new WithoutReplaced(
              SqlLibraryOperatorTableFactory.INSTANCE.getOperatorTable(EnumSet.of(SqlLibrary.STANDARD, SqlLibrary.POSTGRESQL))),
          SqlOperatorTables.of(DateTimeFunctions.ALL.toArray(new SqlOperator[0])),
          SqlOperatorTables.of(StringFunctions.ALL),
          SqlOperatorTables.of(ArrayFunctions.ALL),
          SqlOperatorTables.of(MathFunctions.ALL),
          SqlOperatorTables.of(BitwiseFunctions.ALL),
          SqlOperatorTables.of(BinaryFunctions.ALL),
          SqlOperatorTables.of(TextFunctions.ALL),
          SqlOperatorTables.of(RegexpFunctions.ALL),
          SqlOperatorTables.of(JsonFunctions.ALL),
          SqlOperatorTables.of(UrlFunctions.ALL),
          SqlOperatorTables.of(CollectionFunctions.ALL),
          SqlOperatorTables.of(AggregateFunctions.ALL),
          SqlOperatorTables.of(CalendarFunctions.ALL),
          SqlOperatorTables.of(LambdaFunctions.ALL),
          SqlOperatorTables.of(ConditionalFunctions.ALL),
          SqlOperatorTables.of(SqlLibraryOperators.TRY_CAST));

  /** How {@link #toSql} writes SQL. */
  private static final org.apache.calcite.sql.SqlDialect WRITER =
      new CalciteSqlDialect(CalciteSqlDialect.DEFAULT_CONTEXT) {
        @Override
        public void unparseCall(SqlWriter writer, SqlCall call, int leftPrec, int rightPrec) {
          if (call.getKind() != SqlKind.EXISTS && call.getKind() != SqlKind.UNIQUE) {
            super.unparseCall(writer, call, leftPrec, rightPrec);
            return;
          }
          // Calcite's UPDATE and DELETE write WHERE inside a query frame, where the sub-query of
          // EXISTS would lose its parentheses; in a frame of its own it keeps them.
          SqlWriter.Frame frame = writer.startList(SqlWriter.FrameTypeEnum.SIMPLE);
          super.unparseCall(writer, call, leftPrec, rightPrec);
          writer.endList(frame);
        }
      };

  private SqlDialect() {}

  /**
   * Calcite's library functions without those SQE replaces ({@link StringFunctions#ALL}, {@link
   * RegexpFunctions#ALL}) and without
   * USER, SESSION_USER and SYSTEM_USER: Trino has none of them (only CURRENT_USER), and Calcite would
   * read a column named {@code user} as the function.
   */
  private static final class WithoutReplaced implements SqlOperatorTable {
    private final SqlOperatorTable library;

    WithoutReplaced(SqlOperatorTable library) {
      this.library = library;
    }

    @Override
    public void lookupOperatorOverloads(
        SqlIdentifier name, SqlFunctionCategory category, SqlSyntax syntax, List<SqlOperator> operators, SqlNameMatcher matcher) {
      List<SqlOperator> found = new ArrayList<>();
      library.lookupOperatorOverloads(name, category, syntax, found, matcher);
      found.removeIf(WithoutReplaced::isLeftOut);
      operators.addAll(found);
    }

    @Override
    public List<SqlOperator> getOperatorList() {
      return library.getOperatorList().stream().filter(o -> !isLeftOut(o)).toList();
    }

    private static boolean isLeftOut(SqlOperator operator) {
      return StringFunctions.isReplaced(operator)
          || RegexpFunctions.isReplaced(operator)
          || operator == SqlStdOperatorTable.USER
          || operator == SqlStdOperatorTable.SESSION_USER
          || operator == SqlStdOperatorTable.SYSTEM_USER;
    }
  }

  public static SqlParser.Config parserConfig() {
    return SqlParser.config()
        .withParserFactory(SqeSqlParserImpl.FACTORY)
        .withQuoting(Quoting.DOUBLE_QUOTE)
        .withUnquotedCasing(Casing.TO_LOWER)
        .withQuotedCasing(Casing.UNCHANGED)
        .withCaseSensitive(false)
        .withConformance(CONFORMANCE)
        .withIdentifierMaxLength(1024);
  }

  /**
   * Writes a parsed statement back as SQL that SQE's parser reads to an equal tree: identifiers in
   * double quotes, keywords in upper case.
   */
  public static String toSql(SqlNode node) {
    return node.toSqlString(c -> c.withDialect(WRITER).withQuoteAllIdentifiers(true)).getSql();
  }

  /** A name as SQE's SQL writes it: bare when a lower-case identifier that is no reserved word, else in double quotes. */
  public static String identifier(String name) {
    boolean bare = name.matches("[a-z_][a-z0-9_]*") && !ParserWords.METADATA.isReservedWord(name.toUpperCase(Locale.ROOT));
    return bare ? name : '"' + name.replace("\"", "\"\"") + '"';
  }

  /** What SQE's parser knows of its words, made once, when first asked. */
  private static final class ParserWords {
    static final SqlAbstractParserImpl.Metadata METADATA =
        parserConfig().parserFactory().getParser(new StringReader("")).getMetadata();
  }

  public static SqlValidator.Config validatorConfig() {
    return SqlValidator.Config.DEFAULT
        .withConformance(CONFORMANCE)
        .withDefaultNullCollation(NullCollation.LAST)
        .withIdentifierExpansion(true);
  }

  public static SqlOperatorTable operatorTable() {
    return OPERATORS;
  }
}

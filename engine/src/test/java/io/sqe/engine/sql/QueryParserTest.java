package io.sqe.engine.sql;

import static io.sqe.engine.sql.DdlParserTest.assertSyntaxError;
import static io.sqe.engine.sql.ParsedStatements.name;
import static io.sqe.engine.sql.ParsedStatements.parse;
import static io.sqe.engine.sql.ParsedStatements.sql;
import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.sql.ddl.SqlColumnDeclaration;
import io.sqe.engine.sql.ddl.SqlCreateTable;
import io.sqe.engine.sql.ddl.SqlExplainAnalyze;
import io.sqe.engine.sql.ddl.SqlMergeStatement;
import io.sqe.engine.sql.ddl.SqlTableVersion;
import io.sqe.engine.sql.functions.DateTimeFunctions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSnapshot;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.impl.SqlParserImpl;
import org.junit.jupiter.api.Test;

/** Queries: they parse as with Calcite's own parser, plus time travel, SQE's keywords as names, and date_diff. */
class QueryParserTest {
  /** The TPC-H queries of the sample data, from the module next to this one. */
  private static final Path TPCH = Path.of("..", "sample-data", "src", "main", "resources", "io", "sqe", "sample", "tpch");

  /** Queries of many shapes that Calcite's stock parser accepts; SQE's must read each one the same way. */
  private static final List<String> QUERIES = List.of(
      "select 1",
      "select a, b as c, t.* from s.t where a > 1 and b like 'x%' or c ilike 'y' order by 1 desc nulls first limit 10 offset 5",
      "select * from a join b on a.x = b.x left join c using (y) cross join d full outer join e on true",
      "select x, count(*), sum(y) filter (where z) from t group by grouping sets ((x), ()) having count(*) > 1",
      "select x, row_number() over (partition by y order by z rows between unbounded preceding and current row) from t",
      "select * from t qualify rank() over (order by x) = 1",
      "select * from (select x from t union all select y from u) v intersect select z from w except select 1",
      "with q (a) as (select 1), r as (select * from q) select * from r, lateral (select a + 1 as b) l",
      "select case when x then 'a' when y then 'b' else null end, cast(z as decimal(10, 2)), try_cast(w as int) from t",
      "select date '2020-01-01' + interval '3' month, timestamp '2020-01-01 10:00:00', current_timestamp, extract(year from d) from t",
      "select * from t where x in (select y from u) and exists (select 1 from v where v.a = t.a) and z between 1 and 2",
      "select array[1, 2], map['a', 1], row(1, 'x'), x[1], m['k'], coalesce(a, b), nullif(a, b) from t",
      "select * from unnest(array[1, 2, 3]) with ordinality as u (x, i)",
      "select distinct x from t fetch first 3 rows only",
      "values (1, 'a'), (2, 'b')",
      "select json_value(j, '$.a'), substring(s from 2 for 3), trim(both ' ' from s), position('a' in s), floor(d to month) from t",
      "select * from t for system_time as of timestamp '2024-01-01 00:00:00' as x",
      "select \"Mixed Case\", \"select\" from \"My Table\"",
      "select t.\"comment\", t.\"version\" from t",
      "select if(a > 1, 'x', 'y'), left(s, 2), right(s, 2), string_agg(s, ',') from t",
      "select * from t tablesample bernoulli (10)",
      "explain plan for select 1",
      "describe table t",
      "insert into t (a) values (1)",
      "delete from t where a = 1",
      "update t set a = 1 where b = 2",
      "set x = 1",
      "reset x",
      "alter session set x = 'y'");

  @Test
  void tpchQueriesParseAsBefore() throws IOException {
    List<Path> files;
    try (Stream<Path> listing = Files.list(TPCH)) {
      files = listing.filter(p -> p.toString().endsWith(".sql")).sorted().toList();
    }
    assertThat(files).as("TPC-H queries in %s", TPCH.toAbsolutePath()).hasSize(22);
    for (Path file : files) {
      String sql = Files.readString(file);
      SqlNode node = parse(sql, SqlNode.class);
      assertThat(node.isA(SqlKind.QUERY)).as(file.toString()).isTrue();
      assertThat(SqlDialect.toSql(node)).as(file.toString()).isEqualTo(SqlDialect.toSql(calciteParse(sql)));
    }
  }

  @Test
  void queriesParseAsWithCalcitesOwnParser() {
    for (String sql : QUERIES) {
      SqlNode node = parse(sql, SqlNode.class);
      assertThat(SqlDialect.toSql(node)).as(sql).isEqualTo(SqlDialect.toSql(calciteParse(sql)));
    }
  }

  @Test
  void explainAnalyzeRoundTripsAndAnalyzeStaysAName() {
    SqlExplainAnalyze explain = parse("EXPLAIN ANALYZE select a from t where b = 'x'", SqlExplainAnalyze.class);
    assertThat(explain.getKind()).isEqualTo(SqlKind.EXPLAIN);
    assertThat(sql(explain)).startsWith("EXPLAIN ANALYZE SELECT");
    assertThat(explain.getExplicandum().isA(SqlKind.QUERY)).isTrue();
    // A plain EXPLAIN is Calcite's, and analyze is still a column name.
    assertThat(parse("explain select analyze from t", SqlNode.class)).isNotInstanceOf(SqlExplainAnalyze.class);
  }

  @Test
  void timeTravelBySnapshotId() {
    SqlSelect select = parse("SELECT * FROM lake.s.t FOR VERSION AS OF 8954597067493422955", SqlSelect.class);
    SqlTableVersion version = (SqlTableVersion) select.getFrom();
    assertThat(version.kind()).isEqualTo(SqlTableVersion.Kind.VERSION);
    assertThat(name(version.tableName())).isEqualTo("lake.s.t");
    assertThat(version.snapshotId()).isEqualTo(8954597067493422955L);
    assertThat(version.ref()).isNull();
  }

  @Test
  void timeTravelByBranchOrTag() {
    SqlSelect select = parse("select * from t for version as of 'audit-branch' where x = 1", SqlSelect.class);
    SqlTableVersion version = (SqlTableVersion) select.getFrom();
    assertThat(version.ref()).isEqualTo("audit-branch");
    assertThat(version.snapshotId()).isNull();
    assertThat(select.getWhere()).isNotNull();
  }

  @Test
  void timeTravelByTimestamp() {
    SqlSelect select = parse(
        "select * from t for timestamp as of timestamp '2024-05-01 12:00:00' x"
            + " join u for timestamp as of current_timestamp - interval '1' day as y on x.id = y.id",
        SqlSelect.class);
    SqlJoin join = (SqlJoin) select.getFrom();
    SqlBasicCall left = (SqlBasicCall) join.getLeft();
    assertThat(left.getKind()).isEqualTo(SqlKind.AS);
    assertThat(name(left.operand(1))).isEqualTo("x");
    SqlTableVersion leftVersion = left.operand(0);
    assertThat(leftVersion.kind()).isEqualTo(SqlTableVersion.Kind.TIMESTAMP);
    assertThat(sql(leftVersion.value())).isEqualTo("TIMESTAMP '2024-05-01 12:00:00'");
    assertThat(leftVersion.snapshotId()).isNull();
    assertThat(leftVersion.ref()).isNull();
    SqlTableVersion rightVersion = ((SqlBasicCall) join.getRight()).operand(0);
    assertThat(sql(rightVersion.value())).isEqualTo("CURRENT_TIMESTAMP - INTERVAL '1' DAY");
  }

  @Test
  void timeTravelEverywhereATableGoes() {
    SqlNode node = parse(
        "with snap as (select * from t for version as of 1) select * from snap"
            + " where id in (select id from t for version as of 'tag1') and exists (select 1 from t for version as of ?)",
        SqlNode.class);
    List<SqlTableVersion> versions = new ArrayList<>();
    collect(node, versions);
    assertThat(versions).hasSize(3);
    assertThat(versions.get(2).value().getKind()).isEqualTo(SqlKind.DYNAMIC_PARAM);
    assertThat(parse("select * from t for system_time as of timestamp '2024-01-01 00:00:00'", SqlSelect.class).getFrom())
        .isInstanceOf(SqlSnapshot.class);
  }

  @Test
  void timeTravelSurvivesRewritingItsExpressions() {
    SqlNode query = SqeParser.parse("select * from t for timestamp as of date_trunc('day', current_timestamp)");
    SqlSelect rewritten = (SqlSelect) DateTimeFunctions.standardize(query);
    assertThat(rewritten.getFrom()).isInstanceOf(SqlTableVersion.class);
    assertThat(sql(((SqlTableVersion) rewritten.getFrom()).value())).isEqualTo("FLOOR(CURRENT_TIMESTAMP TO DAY)");
  }

  @Test
  void timeTravelErrors() {
    assertSyntaxError("select * from t for version as of 1.5", "FOR VERSION AS OF takes a snapshot id", 1, 35);
    assertSyntaxError("select * from t for version as of x", "FOR VERSION AS OF takes a snapshot id", 1, 35);
    assertSyntaxError("select * from t for versoin as of 1", "Encountered \"versoin\"", 1, 21);
  }

  @Test
  void sqesKeywordsStayUsableAsNames() {
    List<String> words = List.of(
        "branch", "tag", "version", "partitioned", "properties", "comment", "data", "purge", "cascade", "restrict",
        "tables", "columns", "schemas", "catalogs", "use", "if", "string", "target", "rename", "retain", "sorted",
        "unset", "tblproperties", "analyze", "source", "matched", "type", "session", "transaction", "work");
    for (String word : words) {
      String w = word;
      SqlOrderBy ordered = parse(
          "select " + w + ", t." + w + ", " + w + " + 1 as " + w + "_plus, x " + w + " from s." + w + " t"
              + " where " + w + " = 1 group by " + w + " order by " + w,
          SqlOrderBy.class);
      assertThat(sql(ordered.orderList.get(0))).as(w).isEqualTo("\"" + w + "\"");
      SqlSelect select = (SqlSelect) ordered.query;
      assertThat(sql(select.getSelectList().get(0))).as(w).isEqualTo("\"" + w + "\"");
      assertThat(name(((SqlBasicCall) select.getSelectList().get(3)).operand(1))).as(w).isEqualTo(w);
      assertThat(name(((SqlBasicCall) select.getFrom()).operand(0))).as(w).isEqualTo("s." + w);
      parse("select * from t " + w, SqlSelect.class);
      parse("select * from t for version as of 1 as " + w, SqlNode.class);

      SqlCreateTable create = parse("create table " + w + " (" + w + " string comment 'x', id int)", SqlCreateTable.class);
      assertThat(name(((SqlColumnDeclaration) create.columns().get(0)).name())).as(w).isEqualTo(w);
      parse("insert into t (" + w + ") values (1)", SqlNode.class);
      parse("update t set " + w + " = 1 where " + w + " is null", SqlNode.class);
      parse("alter table t add column " + w + " int", SqlNode.class);
      parse("alter table t rename column " + w + " to " + w + "2", SqlNode.class);
      parse("merge into t using u on t." + w + " = u." + w + " when matched then update set " + w + " = u." + w
          + " when not matched then insert (" + w + ") values (u." + w + ")", SqlMergeStatement.class);
    }
  }

  @Test
  void dateDiffIsAnOrdinaryFunctionCall() {
    SqlSelect select = parse(
        "select date_diff('day', date '2020-01-01', d), datediff('week', a, b), date_trunc('month', d) from t",
        SqlSelect.class);
    SqlCall dateDiff = (SqlCall) select.getSelectList().get(0);
    assertThat(dateDiff.getOperator().getName()).isEqualToIgnoringCase("date_diff");
    assertThat(dateDiff.operandCount()).isEqualTo(3);
    assertThat(dateDiff.getOperator().getKind()).isEqualTo(SqlKind.OTHER_FUNCTION);

    SqlSelect standardized = (SqlSelect) DateTimeFunctions.standardize(select);
    assertThat(sql(standardized.getSelectList().get(2))).isEqualTo("FLOOR(\"d\" TO MONTH)");
  }

  @Test
  void commentsAndSemicolons() {
    String sql = "-- orders of one day\n/* all of them */ select /* the id */ id -- and no more\nfrom t;";
    SqlSelect select = parse(sql, SqlSelect.class);
    assertThat(select.getSelectList()).hasSize(1);
    parse("create table t (a int /* the key */) -- done\n;", SqlCreateTable.class);
    parse("merge into t using u on t.a = u.a -- match on a\n when matched then delete;", SqlMergeStatement.class);
  }

  @Test
  void misspelledKeywordsReportWhere() {
    assertSyntaxError("SELECT a FORM t", "Encountered \"t\"", 1, 15);
    assertSyntaxError("CREATE TABEL t (a int)", "Encountered \"TABEL\"", 1, 8);
    assertSyntaxError("DROP TABEL t", "Encountered \"TABEL\"", 1, 6);
    assertSyntaxError("select 1;\nALTER TABLE t RENAME COLUMNS a TO b", "Encountered \"COLUMNS\"", 2, 22);
    assertSyntaxError("merge into t using u on t.a = u.a\nwhen matchd then delete", "Encountered \"matchd\"", 2, 6);
    assertSyntaxError("show tabels", "Unknown SHOW statement: SHOW tabels", 1, 6);
    assertSyntaxError("MERGE INTOO t USING u ON a = b WHEN MATCHED THEN DELETE", "Encountered \"INTOO\"", 1, 7);
    assertSyntaxError("ALTER TABEL t RENAME TO u", "Encountered \"TABEL\"", 1, 7);
    assertSyntaxError("create table t (a int) partitioned (a)", "Encountered \"(\"", 1, 36);
  }

  private static void collect(SqlNode node, List<SqlTableVersion> found) {
    if (node instanceof SqlTableVersion) {
      found.add((SqlTableVersion) node);
    }
    if (node instanceof SqlNodeList) {
      ((SqlNodeList) node).forEach(n -> collect(n, found));
    } else if (node instanceof SqlCall) {
      ((SqlCall) node).getOperandList().forEach(n -> {
        if (n != null) {
          collect(n, found);
        }
      });
    }
  }

  private static SqlNode calciteParse(String sql) {
    try {
      SqlNodeList statements =
          SqlParser.create(sql, SqlDialect.parserConfig().withParserFactory(SqlParserImpl.FACTORY)).parseStmtList();
      assertThat(statements).hasSize(1);
      return statements.get(0);
    } catch (SqlParseException e) {
      throw new AssertionError("Calcite's own parser rejects " + sql, e);
    }
  }
}

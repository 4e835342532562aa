package io.sqe.engine.sql;

import static io.sqe.engine.sql.ParsedStatements.parse;
import static io.sqe.engine.sql.ParsedStatements.sql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.sql.parser.SqeSqlParserImpl;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.junit.jupiter.api.Test;

/**
 * Exactly Trino's reserved words are reserved: every other keyword of the grammar is a name in every
 * place a name goes, and the constructs those words start still parse.
 */
class KeywordNamesTest {
  /** Trino's reserved words, from its documentation (language/reserved.html), release 476. */
  static final Set<String> TRINO_RESERVED = Set.of(
      "ALTER", "AND", "AS", "BETWEEN", "BY", "CASE", "CAST", "CONSTRAINT", "CREATE", "CROSS", "CUBE",
      "CURRENT_CATALOG", "CURRENT_DATE", "CURRENT_PATH", "CURRENT_ROLE", "CURRENT_SCHEMA", "CURRENT_TIME",
      "CURRENT_TIMESTAMP", "CURRENT_USER", "DEALLOCATE", "DELETE", "DESCRIBE", "DISTINCT", "DROP", "ELSE",
      "END", "ESCAPE", "EXCEPT", "EXECUTE", "EXISTS", "EXTRACT", "FALSE", "FOR", "FROM", "FULL", "GROUP",
      "GROUPING", "HAVING", "IN", "INNER", "INSERT", "INTERSECT", "INTO", "IS", "JOIN", "JSON_ARRAY",
      "JSON_EXISTS", "JSON_OBJECT", "JSON_QUERY", "JSON_TABLE", "JSON_VALUE", "LEFT", "LIKE", "LISTAGG",
      "LOCALTIME", "LOCALTIMESTAMP", "NATURAL", "NORMALIZE", "NOT", "NULL", "ON", "OR", "ORDER", "OUTER",
      "PREPARE", "RECURSIVE", "RIGHT", "ROLLUP", "SELECT", "SKIP", "TABLE", "THEN", "TRIM", "TRUE",
      "UESCAPE", "UNION", "UNNEST", "USING", "VALUES", "WHEN", "WHERE", "WITH");

  /** Trino's reserved words that are not keywords of SQE's grammar at all (listagg(...) is a function). */
  static final Set<String> NOT_KEYWORDS = Set.of("JSON_TABLE", "LISTAGG");

  /** Words SQE reserves although Trino does not (docs/sql.md says why). */
  static final Set<String> ALSO_RESERVED = Set.of("ALL", "UNIQUE");

  /** Words that start a clause after a table: there they are keywords, and an alias of that name needs AS. */
  private static final Set<String> CLAUSE_WORDS = Set.of(
      "limit", "offset", "fetch", "window", "qualify", "set", "minus", "tablesample", "match_recognize", "extend", "asof");

  private static final Set<String> UNQUOTED_BY_CALCITE = Set.of("user", "session_user", "system_user");

  /** Every place a name goes; {w} is the word. Each must parse and survive a round trip through SQL text. */
  private static final List<String> PLACES = List.of(
      "select {w} from t",
      "select {w}.x from {w}",
      "select t.{w} from s.t",
      "select * from {w}.t",
      "select * from c.{w}.{w}",
      "select a as {w} from t",
      "select a {w} from t",
      "select x from t as {w}",
      "select {w}.a from t {w} where {w}.a > 0",
      "with {w} as (select 1 as {w}) select {w} from {w}",
      "with q ({w}) as (select 1) select {w} from q",
      "select * from t where {w} = 1 group by {w} having {w} > 0 order by {w}",
      "select * from t join u on t.{w} = u.{w}",
      "select {w} * 2, f({w}), {w}[1], -{w}, {w} is null, 1 + {w} from t",
      "select count(*) over (partition by {w} order by {w}) from t",
      "insert into t ({w}) values (1)",
      "insert into {w}.{w} ({w}) select {w} from u",
      "update t set {w} = 1 where {w} > 0",
      "update t as {w} set {w} = {w}.{w} + 1",
      "delete from t where {w} = 1",
      "delete from {w} as {w} where {w}.{w} = 1",
      "merge into t using s on t.{w} = s.{w} when matched then update set {w} = s.{w}"
          + " when not matched then insert ({w}) values (s.{w})",
      "create table t ({w} int, y varchar)",
      "create table {w}.{w} ({w} int) partitioned by ({w})",
      "create table t as select {w} from u",
      "alter table {w} add column {w} int",
      "alter table t rename column {w} to x",
      "alter table t drop column {w}",
      "create view v as select {w} from t",
      "create view {w} ({w}) as select x from t",
      "create schema {w}",
      "drop table {w}",
      "use {w}");

  /** The constructs the words start, which must keep their meaning. */
  private static final List<String> CONSTRUCTS = List.of(
      "select date '2020-01-01', time '10:00:00', timestamp '2020-01-01 00:00:00', interval '1' day",
      "select current_date, current_time, current_timestamp, localtime, localtimestamp, current_user",
      "select count(*), count(distinct x), rank() over (order by x), row_number() over w from t window w as (order by y)",
      "select position('a' in s), substring(s from 2 for 3), trim(both ' ' from s), overlay(s placing 'x' from 2) from t",
      "select sum(x) filter (where x > 1) from t",
      "select sum(x) over (order by y range between unbounded preceding and current row) from t",
      "select sum(x) over (order by y rows between 1 preceding and 1 following) from t",
      "select sum(x) over (w rows between 1 preceding and current row), sum(x) over (w) from t window w as (partition by y)",
      "select * from t order by x offset 5 rows",
      "select * from t order by x limit 5 offset 5",
      "select * from t limit 5",
      "select * from t offset 5",
      "select * from t fetch first 5 rows only",
      "select * from t tablesample bernoulli (10) where x > 1",
      "select cast(x as interval day), cast(x as date), cast(x as timestamp(3)), cast(x as double), try_cast(x as int) from t",
      "select array[1, 2], map['a', 1], row(1, 2), x[1] from t",
      "select extract(year from d), floor(d to month), ceil(d to day), year(d), month(d) from t",
      "select case when x then 1 else 0 end, coalesce(a, b), nullif(a, b), x between 1 and 2 from t",
      "select * from t where x in (select y from u) and exists (select 1 from u)",
      "select * from t match_recognize (partition by x order by y measures a.x as ax pattern (a b+) define b as b.x > a.x)",
      "insert into t values (default, 1), (2, default)",
      "update t set x = 1",
      "values (1), (2)");

  @Test
  void exactlyTrinosReservedWordsAreReserved() {
    SqlAbstractParserImpl.Metadata metadata = SqeSqlParserImpl.FACTORY.getParser(new StringReader("")).getMetadata();
    Set<String> reserved = new TreeSet<>();
    for (String token : metadata.getTokens()) {
      if (token.matches("[A-Z][A-Z0-9_]*") && metadata.isReservedWord(token)) {
        reserved.add(token);
      }
    }
    Set<String> expected = new TreeSet<>(TRINO_RESERVED);
    expected.removeAll(NOT_KEYWORDS);
    expected.addAll(ALSO_RESERVED);
    assertThat(reserved).isEqualTo(expected);
  }

  @Test
  void everyOtherKeywordIsANameEverywhere() {
    List<String> failures = new ArrayList<>();
    for (String word : nonReservedWords()) {
      for (String place : PLACES) {
        if (CLAUSE_WORDS.contains(word) && (place.equals("select a {w} from t") || place.contains("from t {w}"))) {
          continue;
        }
        String statement = place.replace("{w}", word);
        try {
          SqlNode node = parse(statement, SqlNode.class);
          // Calcite writes user, session_user and system_user unquoted (as the functions of the standard,
          // which SQE's grammar does not have); parse() checked that they read back as they were.
          if (!UNQUOTED_BY_CALCITE.contains(word)) {
            assertThat(SqlDialect.toSql(node)).as(statement).contains("\"" + word + "\"");
          }
        } catch (SqeException | AssertionError e) {
          failures.add(statement + "  ->  " + e.getMessage().lines().findFirst().orElse(""));
        }
      }
    }
    assertThat(failures).as("statements that failed").isEmpty();
  }

  @Test
  void keywordsNameColumnsInTheirOwnConstructs() {
    SqlSelect select = parse(
        "select date, time, timestamp, interval, position, count, rank, filter, window, range, offset, current, default,"
            + " partition, uuid, user, value, year, method, language, start from t",
        SqlSelect.class);
    assertThat(select.getSelectList()).allSatisfy(item -> assertThat(item).isInstanceOf(SqlIdentifier.class));
    assertThat(sql(parse("select * from t where date = date '2020-01-01' and time < time '10:00:00'", SqlSelect.class)
        .getWhere())).isEqualTo("\"date\" = DATE '2020-01-01' AND \"time\" < TIME '10:00:00'");
    assertThat(sql(parse("select position('a' in position) from t", SqlSelect.class).getSelectList()))
        .isEqualTo("POSITION('a' IN \"position\")");
    assertThat(sql(parse("select count(count), rank() over (order by rank) from t", SqlSelect.class).getSelectList()))
        .isEqualTo("COUNT(\"count\"), RANK() OVER (ORDER BY \"rank\")");
    assertThat(sql(parse("select sum(filter) filter (where filter > 0) from t", SqlSelect.class).getSelectList()))
        .isEqualTo("SUM(\"filter\") FILTER (WHERE \"filter\" > 0)");
  }

  @Test
  void constructsStillParse() {
    for (String sql : CONSTRUCTS) {
      parse(sql, SqlNode.class);
    }
    SqlInsert insert = parse("insert into t values (default, 1)", SqlInsert.class);
    SqlCall row = (SqlCall) ((SqlCall) insert.getSource()).operand(0);
    assertThat(row.operand(0).getKind()).isEqualTo(SqlKind.DEFAULT);
    assertThat(parse("select row(1, 2) from t", SqlSelect.class).getSelectList().get(0).getKind()).isEqualTo(SqlKind.ROW);
    assertThat(parse("update t set x = 1", SqlUpdate.class).getAlias()).isNull();
  }

  @Test
  void clauseWordsAfterATableStartTheClause() {
    SqlOrderBy limited = parse("select * from t limit 5", SqlOrderBy.class);
    assertThat(sql(limited.fetch)).isEqualTo("5");
    SqlSelect aliased = parse("select limit.x from t as limit", SqlSelect.class);
    assertThat(sql(aliased.getFrom())).isEqualTo("\"t\" AS \"limit\"");
    SqlOrderBy offset = parse("select * from t x offset 5", SqlOrderBy.class);
    assertThat(sql(offset.offset)).isEqualTo("5");
    assertThat(parse("select * from t window w as (order by x)", SqlSelect.class).getWindowList()).hasSize(1);
    assertThatThrownBy(() -> SqeParser.parse("select * from t limit"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
  }

  @Test
  void reservedWordsNeedQuotes() {
    assertThatThrownBy(() -> SqeParser.parse("select from from t")).isInstanceOf(SqeException.class);
    assertThatThrownBy(() -> SqeParser.parse("create table t (select int)")).isInstanceOf(SqeException.class);
    assertThat(sql(parse("select \"from\", \"all\" from t", SqlSelect.class).getSelectList())).isEqualTo("\"from\", \"all\"");
  }

  /** The grammar's keywords that are not reserved, in lower case. */
  static List<String> nonReservedWords() {
    SqlAbstractParserImpl.Metadata metadata = SqeSqlParserImpl.FACTORY.getParser(new StringReader("")).getMetadata();
    List<String> words = new ArrayList<>();
    for (String token : new TreeSet<>(metadata.getTokens())) {
      if (token.matches("[A-Z][A-Z0-9_]*") && metadata.isKeyword(token) && !metadata.isReservedWord(token)) {
        words.add(token.toLowerCase(Locale.ROOT));
      }
    }
    return words;
  }
}

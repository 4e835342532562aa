package io.sqe.engine.sql;

import static io.sqe.engine.sql.DdlParserTest.assertSyntaxError;
import static io.sqe.engine.sql.ParsedStatements.name;
import static io.sqe.engine.sql.ParsedStatements.parse;
import static io.sqe.engine.sql.ParsedStatements.sql;
import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.sql.ddl.SqlMergeClause;
import io.sqe.engine.sql.ddl.SqlMergeClause.Action;
import io.sqe.engine.sql.ddl.SqlMergeClause.Match;
import io.sqe.engine.sql.ddl.SqlMergeStatement;
import io.sqe.engine.sql.ddl.SqlTableVersion;
import io.sqe.engine.sql.functions.DateTimeFunctions;
import java.util.List;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlUpdate;
import org.junit.jupiter.api.Test;

/** INSERT, DELETE, UPDATE and MERGE. */
class DmlParserTest {
  @Test
  void insert() {
    SqlInsert select = parse("INSERT INTO s.t (a, b) SELECT x, y FROM u WHERE x > 0", SqlInsert.class);
    assertThat(name((SqlIdentifier) select.getTargetTable())).isEqualTo("s.t");
    assertThat(select.getTargetColumnList()).extracting(ParsedStatements::sql).containsExactly("\"a\"", "\"b\"");
    assertThat(select.getSource().getKind()).isEqualTo(SqlKind.SELECT);

    SqlInsert values = parse("insert into t values (1, 'a'), (2, null)", SqlInsert.class);
    assertThat(values.getTargetColumnList()).isNull();
    assertThat(values.getSource().getKind()).isEqualTo(SqlKind.VALUES);
    assertThat(((SqlBasicCall) values.getSource()).getOperandList()).hasSize(2);

    assertThat(parse("insert into t with q as (select 1 as a) select a from q", SqlInsert.class).getSource().getKind())
        .isEqualTo(SqlKind.WITH);
  }

  @Test
  void delete() {
    SqlDelete delete = parse("DELETE FROM s.t AS x WHERE x.a IN (SELECT a FROM u) OR EXISTS (SELECT 1 FROM v WHERE v.b = x.b)",
        SqlDelete.class);
    assertThat(name((SqlIdentifier) delete.getTargetTable())).isEqualTo("s.t");
    assertThat(name(delete.getAlias())).isEqualTo("x");
    assertThat(delete.getCondition().getKind()).isEqualTo(SqlKind.OR);

    SqlDelete all = parse("delete from t", SqlDelete.class);
    assertThat(all.getAlias()).isNull();
    assertThat(all.getCondition()).isNull();
    assertThat(parse("delete from t u where u.a = 1", SqlDelete.class).getAlias().getSimple()).isEqualTo("u");
  }

  @Test
  void update() {
    SqlUpdate update = parse(
        "UPDATE t AS x SET a = (SELECT max(b) FROM u WHERE u.c = x.c), b = b + 1"
            + " WHERE x.d IN (SELECT d FROM v) AND NOT EXISTS (SELECT 1 FROM w WHERE w.e = x.e)",
        SqlUpdate.class);
    assertThat(name(update.getAlias())).isEqualTo("x");
    assertThat(update.getTargetColumnList()).extracting(ParsedStatements::sql).containsExactly("\"a\"", "\"b\"");
    assertThat(update.getSourceExpressionList().get(0).getKind()).isEqualTo(SqlKind.SELECT);
    assertThat(update.getCondition().getKind()).isEqualTo(SqlKind.AND);

    SqlUpdate plain = parse("update t set a = 1", SqlUpdate.class);
    assertThat(plain.getAlias()).isNull();
    assertThat(plain.getCondition()).isNull();
  }

  @Test
  void mergeWithClausesInAnyNumberAndOrder() {
    SqlMergeStatement merge = parse(
        "MERGE INTO lake.s.t AS a USING (WITH q AS (SELECT id, v, op FROM changes) SELECT * FROM q) AS b ON a.id = b.id"
            + " WHEN MATCHED AND b.op = 'd' THEN DELETE"
            + " WHEN MATCHED THEN UPDATE SET v = b.v, a.w = DEFAULT"
            + " WHEN NOT MATCHED BY TARGET AND b.v > 1 THEN INSERT (id, v) VALUES (b.id, b.v)"
            + " WHEN NOT MATCHED THEN INSERT VALUES (b.id, b.v, NULL)"
            + " WHEN NOT MATCHED BY SOURCE AND a.v < 0 THEN DELETE"
            + " WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 0"
            + " WHEN MATCHED AND a.v IN (SELECT v FROM banned) THEN UPDATE SET v = (SELECT min(v) FROM t)",
        SqlMergeStatement.class);
    assertThat(merge.getKind()).isEqualTo(SqlKind.MERGE);
    assertThat(merge.isA(SqlKind.DML)).isTrue();
    assertThat(name(merge.target())).isEqualTo("lake.s.t");
    assertThat(name(merge.alias())).isEqualTo("a");
    assertThat(merge.source().getKind()).isEqualTo(SqlKind.AS);
    assertThat(((SqlBasicCall) merge.source()).operand(0).getKind()).isEqualTo(SqlKind.WITH);
    assertThat(sql(merge.condition())).isEqualTo("\"a\".\"id\" = \"b\".\"id\"");

    List<SqlMergeClause> clauses = merge.clauses();
    assertThat(clauses).extracting(SqlMergeClause::match).containsExactly(
        Match.MATCHED, Match.MATCHED, Match.NOT_MATCHED, Match.NOT_MATCHED, Match.NOT_MATCHED_BY_SOURCE,
        Match.NOT_MATCHED_BY_SOURCE, Match.MATCHED);
    assertThat(clauses).extracting(SqlMergeClause::action).containsExactly(
        Action.DELETE, Action.UPDATE, Action.INSERT, Action.INSERT, Action.DELETE, Action.UPDATE, Action.UPDATE);
    assertThat(clauses).extracting(c -> sql(c.condition())).containsExactly(
        "\"b\".\"op\" = 'd'", null, "\"b\".\"v\" > 1", null, "\"a\".\"v\" < 0", null,
        "\"a\".\"v\" IN (SELECT \"v\" FROM \"banned\")");

    SqlMergeClause update = clauses.get(1);
    assertThat(update.columns()).extracting(ParsedStatements::sql).containsExactly("\"v\"", "\"a\".\"w\"");
    assertThat(update.values()).extracting(ParsedStatements::sql).containsExactly("\"b\".\"v\"", "DEFAULT");
    SqlMergeClause insert = clauses.get(2);
    assertThat(insert.columns()).extracting(ParsedStatements::sql).containsExactly("\"id\"", "\"v\"");
    assertThat(insert.values()).extracting(ParsedStatements::sql).containsExactly("\"b\".\"id\"", "\"b\".\"v\"");
    SqlMergeClause insertAll = clauses.get(3);
    assertThat(insertAll.columns()).isEmpty();
    assertThat(insertAll.values()).hasSize(3);
    assertThat(clauses.get(0).columns()).isEmpty();
    assertThat(clauses.get(0).values()).isEmpty();
    assertThat(clauses.get(6).values().get(0).getKind()).isEqualTo(SqlKind.SELECT);
  }

  @Test
  void mergeSources() {
    SqlMergeStatement table = parse(
        "merge into t using u on t.id = u.id when matched then update set t.v = u.v", SqlMergeStatement.class);
    assertThat(table.alias()).isNull();
    assertThat(table.source()).isInstanceOf(SqlIdentifier.class);

    SqlMergeStatement subquery = parse(
        "merge into t x using (select * from u where u.ok) on x.id = id when not matched then insert values (id)",
        SqlMergeStatement.class);
    assertThat(subquery.source().getKind()).isEqualTo(SqlKind.SELECT);

    SqlMergeStatement versioned = parse(
        "merge into t using u for version as of 42 as s on t.id = s.id when matched then delete", SqlMergeStatement.class);
    SqlNode source = ((SqlBasicCall) versioned.source()).operand(0);
    assertThat(source).isInstanceOf(SqlTableVersion.class);
    assertThat(((SqlTableVersion) source).snapshotId()).isEqualTo(42L);
  }

  @Test
  void mergeClausesThatCannotBe() {
    assertSyntaxError("merge into t using u on t.a = u.a when not matched then delete", "Encountered \"delete\"", 1, 57);
    assertSyntaxError("merge into t using u on t.a = u.a when matched then insert values (1)", "Encountered \"insert\"", 1, 53);
    assertSyntaxError("merge into t using u on t.a = u.a when not matched by source then insert values (1)",
        "Encountered \"insert\"", 1, 67);
    assertSyntaxError("merge into t using u on t.a = u.a when not matched then insert (a, b) values (1)",
        "INSERT lists 2 columns but 1 values", 1, 79);
    assertSyntaxError("merge into t using u on t.a = u.a", "Encountered \"<EOF>\"", 1, 33);
  }

  @Test
  void mergeSurvivesRewritingItsExpressions() {
    SqlNode merge = SqeParser.parse(
        "merge into t using u on t.d = date_trunc('month', u.d)"
            + " when matched and date_trunc('day', u.ts) > t.ts then update set ts = date_trunc('day', u.ts)");
    SqlNode rewritten = DateTimeFunctions.standardize(merge);
    assertThat(rewritten).isInstanceOf(SqlMergeStatement.class).isNotSameAs(merge);
    String text = SqlDialect.toSql(rewritten);
    assertThat(text).doesNotContain("DATE_TRUNC").contains("FLOOR(\"u\".\"d\" TO MONTH)", "FLOOR(\"u\".\"ts\" TO DAY)");
    assertThat(((SqlMergeStatement) rewritten).clauses()).singleElement()
        .satisfies(c -> assertThat(c.action()).isEqualTo(Action.UPDATE));
  }
}

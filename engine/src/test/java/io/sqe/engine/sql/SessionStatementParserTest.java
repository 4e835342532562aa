package io.sqe.engine.sql;

import static io.sqe.engine.sql.DdlParserTest.assertSyntaxError;
import static io.sqe.engine.sql.ParsedStatements.name;
import static io.sqe.engine.sql.ParsedStatements.parse;
import static io.sqe.engine.sql.ParsedStatements.sql;
import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.sql.ddl.SqlAnalyzeTable;
import io.sqe.engine.sql.ddl.SqlCallProcedure;
import io.sqe.engine.sql.ddl.SqlDeallocate;
import io.sqe.engine.sql.ddl.SqlDescribePrepared;
import io.sqe.engine.sql.ddl.SqlExecute;
import io.sqe.engine.sql.ddl.SqlPrepare;
import io.sqe.engine.sql.ddl.SqlShow;
import io.sqe.engine.sql.ddl.SqlShowCreate;
import io.sqe.engine.sql.ddl.SqlTransactionStatement;
import io.sqe.engine.sql.ddl.SqlTransactionStatement.Action;
import io.sqe.engine.sql.ddl.SqlUse;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlDescribeTable;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlSetOption;
import org.junit.jupiter.api.Test;

/** USE, SET, RESET, SHOW, DESCRIBE, transaction statements, CALL and ANALYZE: what clients send besides queries. */
class SessionStatementParserTest {
  @Test
  void use() {
    SqlUse both = parse("USE lake.sales", SqlUse.class);
    assertThat(both.catalog()).isEqualTo("lake");
    assertThat(both.schema()).isEqualTo("sales");
    SqlUse schema = parse("use \"Sales\"", SqlUse.class);
    assertThat(schema.catalog()).isNull();
    assertThat(schema.schema()).isEqualTo("Sales");
    assertSyntaxError("use a.b.c", "USE takes a schema or catalog.schema", 1, 5);
  }

  @Test
  void setAndReset() {
    SqlSetOption session = parse("SET SESSION query_max_memory = '1GB'", SqlSetOption.class);
    assertThat(session.getKind()).isEqualTo(SqlKind.SET_OPTION);
    assertThat(name(session.getName())).isEqualTo("query_max_memory");
    assertThat(sql(session.getValue())).isEqualTo("'1GB'");

    SqlSetOption plain = parse("set iceberg.split_size = -1", SqlSetOption.class);
    assertThat(name(plain.getName())).isEqualTo("iceberg.split_size");
    assertThat(sql(plain.getValue())).isEqualTo("-1");
    assertThat(sql(parse("set x = true", SqlSetOption.class).getValue())).isEqualTo("TRUE");
    assertThat(sql(parse("set time_zone = 'Europe/Vienna'", SqlSetOption.class).getValue())).isEqualTo("'Europe/Vienna'");
    assertThat(sql(parse("set x = on", SqlSetOption.class).getValue())).isEqualTo("\"ON\"");
    assertThat(sql(parse("set x = off", SqlSetOption.class).getValue())).isEqualTo("\"off\"");
    // "session" alone is the option's name, not the SESSION keyword
    assertThat(name(parse("set session = 1", SqlSetOption.class).getName())).isEqualTo("session");

    SqlSetOption reset = parse("RESET SESSION query_max_memory", SqlSetOption.class);
    assertThat(name(reset.getName())).isEqualTo("query_max_memory");
    assertThat(reset.getValue()).isNull();
    assertThat(name(parse("reset x", SqlSetOption.class).getName())).isEqualTo("x");
    assertThat(name(parse("reset all", SqlSetOption.class).getName())).isEqualTo("ALL");
    assertThat(parse("alter session set x = 1", SqlSetOption.class).getScope()).isEqualTo("SESSION");
  }

  @Test
  void show() {
    SqlShow catalogs = parse("SHOW CATALOGS", SqlShow.class);
    assertThat(catalogs.kind()).isEqualTo(SqlShow.Kind.CATALOGS);
    assertThat(catalogs.from()).isNull();
    assertThat(catalogs.like()).isNull();
    assertThat(parse("show catalogs like 'l%'", SqlShow.class).like()).isEqualTo("l%");

    SqlShow schemas = parse("SHOW SCHEMAS FROM lake LIKE 'sa%'", SqlShow.class);
    assertThat(schemas.kind()).isEqualTo(SqlShow.Kind.SCHEMAS);
    assertThat(name(schemas.from())).isEqualTo("lake");
    assertThat(schemas.like()).isEqualTo("sa%");
    assertThat(parse("show schemas", SqlShow.class).from()).isNull();

    SqlShow tables = parse("show tables in lake.sales like 'o\\_%'", SqlShow.class);
    assertThat(tables.kind()).isEqualTo(SqlShow.Kind.TABLES);
    assertThat(name(tables.from())).isEqualTo("lake.sales");
    assertThat(tables.like()).isEqualTo("o\\_%");
    assertThat(parse("SHOW TABLES", SqlShow.class).from()).isNull();

    SqlShow columns = parse("SHOW COLUMNS FROM sales.orders", SqlShow.class);
    assertThat(columns.kind()).isEqualTo(SqlShow.Kind.COLUMNS);
    assertThat(name(columns.from())).isEqualTo("sales.orders");

    SqlShowCreate create = parse("SHOW CREATE TABLE sales.orders", SqlShowCreate.class);
    assertThat(create.objectKind()).isEqualTo(SqlShowCreate.ObjectKind.TABLE);
    assertThat(name(create.name())).isEqualTo("sales.orders");
    assertThat(parse("show create view v", SqlShowCreate.class).objectKind()).isEqualTo(SqlShowCreate.ObjectKind.VIEW);
    assertThat(parse("show create schema s", SqlShowCreate.class).objectKind()).isEqualTo(SqlShowCreate.ObjectKind.SCHEMA);

    assertThat(parse("SHOW QUERIES", SqlShow.class).kind()).isEqualTo(SqlShow.Kind.QUERIES);
    // Still a name elsewhere.
    parse("select queries from t", org.apache.calcite.sql.SqlSelect.class);

    assertSyntaxError("show columns", "Encountered \"<EOF>\"", 1, 12);
    assertSyntaxError("show schemas from a.b", "Too many name segments for SHOW SCHEMAS", 1, 19);
  }

  @Test
  void describe() {
    SqlDescribeTable describe = parse("DESCRIBE sales.orders", SqlDescribeTable.class);
    assertThat(name(describe.getTable())).isEqualTo("sales.orders");
    assertThat(name(parse("describe table t", SqlDescribeTable.class).getTable())).isEqualTo("t");
  }

  @Test
  void transactions() {
    assertThat(parse("BEGIN", SqlTransactionStatement.class).action()).isEqualTo(Action.BEGIN);
    assertThat(parse("begin transaction", SqlTransactionStatement.class).action()).isEqualTo(Action.BEGIN);
    assertThat(parse("begin work", SqlTransactionStatement.class).action()).isEqualTo(Action.BEGIN);
    assertThat(parse("START TRANSACTION", SqlTransactionStatement.class).action()).isEqualTo(Action.BEGIN);
    assertThat(parse("COMMIT", SqlTransactionStatement.class).action()).isEqualTo(Action.COMMIT);
    assertThat(parse("commit work", SqlTransactionStatement.class).action()).isEqualTo(Action.COMMIT);
    assertThat(parse("ROLLBACK", SqlTransactionStatement.class).action()).isEqualTo(Action.ROLLBACK);
    assertThat(parse("rollback work;", SqlTransactionStatement.class).action()).isEqualTo(Action.ROLLBACK);
  }

  @Test
  void transactionModesAsTrinosDriverSendsThem() {
    SqlTransactionStatement begin =
        parse("START TRANSACTION ISOLATION LEVEL READ UNCOMMITTED, READ WRITE", SqlTransactionStatement.class);
    assertThat(begin.action()).isEqualTo(Action.BEGIN);
    assertThat(begin.modes()).containsExactly("READ UNCOMMITTED", "READ WRITE");
    assertThat(parse("begin isolation level serializable", SqlTransactionStatement.class).modes()).containsExactly("SERIALIZABLE");
    assertThat(parse("START TRANSACTION READ ONLY, ISOLATION LEVEL REPEATABLE READ", SqlTransactionStatement.class).modes())
        .containsExactly("READ ONLY", "REPEATABLE READ");
    assertThat(parse("START TRANSACTION", SqlTransactionStatement.class).modes()).isEmpty();
  }

  @Test
  void prepareKeepsTheStatementAsWritten() {
    String sql = "PREPARE q1 FROM\n  SELECT *\n\tFROM t WHERE a = ? AND b = ?;";
    SqlPrepare prepare = parse(sql, SqlPrepare.class);
    assertThat(prepare.name()).isEqualTo("q1");
    assertThat(prepare.statementText(sql)).isEqualTo("SELECT *\n\tFROM t WHERE a = ? AND b = ?");
    assertThat(prepare.statement().getKind()).isEqualTo(SqlKind.SELECT);
    String insert = "prepare statement2 from insert into t values (?, 'a')";
    assertThat(parse(insert, SqlPrepare.class).statementText(insert)).isEqualTo("insert into t values (?, 'a')");
  }

  @Test
  void executeTakesValuesAndTrinosTypedLiterals() {
    SqlExecute execute = parse("EXECUTE q1 USING INTEGER '5', DOUBLE '1.5E0', DECIMAL '-12.30', 'text', NULL,"
        + " DATE '2024-01-31', TIMESTAMP '2024-01-31 12:34:56.123456', X'00FF', CAST(NULL AS BIGINT), true", SqlExecute.class);
    assertThat(execute.name()).isEqualTo("q1");
    assertThat(execute.arguments()).extracting(ParsedStatements::sql).containsExactly(
        "CAST('5' AS INTEGER)", "CAST('1.5E0' AS DOUBLE)", "-12.30", "'text'", "NULL",
        "DATE '2024-01-31'", "TIMESTAMP '2024-01-31 12:34:56.123456'", "X'00FF'", "CAST(NULL AS BIGINT)", "TRUE");
    assertThat(parse("execute q2", SqlExecute.class).arguments()).isEmpty();
    SqlExecute immediate = parse("EXECUTE IMMEDIATE 'SELECT ?' USING BIGINT '7'", SqlExecute.class);
    assertThat(immediate.name()).isNull();
    assertThat(immediate.immediateText()).isEqualTo("SELECT ?");
    assertSyntaxError("EXECUTE q1 USING DECIMAL 'abc'", "Invalid DECIMAL literal 'abc'", 1, 26);
  }

  @Test
  void deallocateAndDescribeOfPreparedStatements() {
    assertThat(parse("DEALLOCATE PREPARE q1", SqlDeallocate.class).name()).isEqualTo("q1");
    SqlDescribePrepared input = parse("DESCRIBE INPUT q1", SqlDescribePrepared.class);
    assertThat(input.input()).isTrue();
    assertThat(input.name()).isEqualTo("q1");
    assertThat(parse("describe output q1", SqlDescribePrepared.class).input()).isFalse();
  }

  @Test
  void callProcedure() {
    SqlCallProcedure positional = parse("CALL system.rollback_to_snapshot('sales.orders', 8954597067493422955)",
        SqlCallProcedure.class);
    assertThat(positional.getKind()).isEqualTo(SqlKind.PROCEDURE_CALL);
    assertThat(name(positional.name())).isEqualTo("system.rollback_to_snapshot");
    assertThat(positional.arguments()).extracting(ParsedStatements::sql)
        .containsExactly("'sales.orders'", "8954597067493422955");

    SqlCallProcedure named = parse(
        "call lake.system.expire_snapshots(table => 'db.t', older_than => TIMESTAMP '2024-01-01 00:00:00',"
            + " retain_last => 5, where => 'id > 3')",
        SqlCallProcedure.class);
    assertThat(name(named.name())).isEqualTo("lake.system.expire_snapshots");
    assertThat(named.arguments()).allSatisfy(a -> assertThat(a.getKind()).isEqualTo(SqlKind.ARGUMENT_ASSIGNMENT));
    assertThat(named.arguments()).extracting(a -> name(((SqlBasicCall) a).operand(1)))
        .containsExactly("table", "older_than", "retain_last", "where");
    assertThat(sql(((SqlBasicCall) named.arguments().get(2)).operand(0))).isEqualTo("5");

    assertThat(parse("call my_procedure()", SqlCallProcedure.class).arguments()).isEmpty();
  }

  @Test
  void analyze() {
    assertThat(name(parse("ANALYZE sales.orders", SqlAnalyzeTable.class).name())).isEqualTo("sales.orders");
    assertThat(name(parse("analyze table t", SqlAnalyzeTable.class).name())).isEqualTo("t");
  }
}

package io.sqe.engine.sql;

import static io.sqe.engine.sql.ParsedStatements.name;
import static io.sqe.engine.sql.ParsedStatements.parse;
import static io.sqe.engine.sql.ParsedStatements.sql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.sql.ddl.SqlAlterTableAddColumn;
import io.sqe.engine.sql.ddl.SqlAlterTableAlterColumnNullability;
import io.sqe.engine.sql.ddl.SqlAlterTableAlterColumnType;
import io.sqe.engine.sql.ddl.SqlAlterTableCreateRef;
import io.sqe.engine.sql.ddl.SqlAlterTableCreateRef.RefKind;
import io.sqe.engine.sql.ddl.SqlAlterTableDropColumn;
import io.sqe.engine.sql.ddl.SqlAlterTableDropRef;
import io.sqe.engine.sql.ddl.SqlAlterTableExecute;
import io.sqe.engine.sql.ddl.SqlAlterTableRename;
import io.sqe.engine.sql.ddl.SqlAlterTableRenameColumn;
import io.sqe.engine.sql.ddl.SqlAlterTableSetProperties;
import io.sqe.engine.sql.ddl.SqlAlterTableUnsetProperties;
import io.sqe.engine.sql.ddl.SqlAlterUser;
import io.sqe.engine.sql.ddl.SqlColumnDeclaration;
import io.sqe.engine.sql.ddl.SqlCommentOn;
import io.sqe.engine.sql.ddl.SqlCreateMaterializedView;
import io.sqe.engine.sql.ddl.SqlCreateSchema;
import io.sqe.engine.sql.ddl.SqlCreateTable;
import io.sqe.engine.sql.ddl.SqlCreateUser;
import io.sqe.engine.sql.ddl.SqlCreateView;
import io.sqe.engine.sql.ddl.SqlDropMaterializedView;
import io.sqe.engine.sql.ddl.SqlDropSchema;
import io.sqe.engine.sql.ddl.SqlDropTable;
import io.sqe.engine.sql.ddl.SqlDropUser;
import io.sqe.engine.sql.ddl.SqlDropView;
import io.sqe.engine.sql.ddl.SqlProperty;
import io.sqe.engine.sql.ddl.SqlRefreshMaterializedView;
import io.sqe.engine.sql.ddl.SqlShowCreate;
import io.sqe.engine.sql.ddl.SqlSortField;
import io.sqe.engine.sql.ddl.SqlTransform;
import io.sqe.engine.sql.ddl.SqlTruncateTable;
import java.time.Duration;
import java.util.List;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCollectionTypeNameSpec;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlMapTypeNameSpec;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlRowTypeNameSpec;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

/** CREATE, DROP, ALTER, TRUNCATE and COMMENT ON: what each parses to, and that it writes back to the same SQL. */
class DdlParserTest {
  @Test
  void createSchema() {
    SqlCreateSchema create = parse(
        "CREATE SCHEMA IF NOT EXISTS lake.sales WITH (location = 's3://bucket/sales', \"owner.team\" = 'bi')",
        SqlCreateSchema.class);
    assertThat(create.getKind()).isEqualTo(SqlKind.CREATE_SCHEMA);
    assertThat(create.ifNotExists).isTrue();
    assertThat(name(create.name())).isEqualTo("lake.sales");
    assertThat(properties(create.properties())).containsExactly("location=s3://bucket/sales", "owner.team=bi");

    SqlCreateSchema plain = parse("create schema s", SqlCreateSchema.class);
    assertThat(plain.ifNotExists).isFalse();
    assertThat(plain.properties()).isEmpty();
  }

  @Test
  void dropSchema() {
    SqlDropSchema cascade = parse("DROP SCHEMA IF EXISTS lake.sales CASCADE", SqlDropSchema.class);
    assertThat(cascade.ifExists).isTrue();
    assertThat(cascade.cascade()).isTrue();
    assertThat(name(cascade.name())).isEqualTo("lake.sales");

    assertThat(parse("drop schema s restrict", SqlDropSchema.class).cascade()).isFalse();
    SqlDropSchema plain = parse("drop schema s", SqlDropSchema.class);
    assertThat(plain.cascade()).isFalse();
    assertThat(plain.ifExists).isFalse();
  }

  @Test
  void createUser() {
    SqlCreateUser create = parse("CREATE USER IF NOT EXISTS Alice WITH PASSWORD 'it''s secret' ROLES (analyst, 'data-eng')",
        SqlCreateUser.class);
    assertThat(create.ifNotExists).isTrue();
    assertThat(name(create.name())).isEqualTo("alice");
    assertThat(create.password()).isEqualTo("it's secret");
    assertThat(create.roles()).map(ParsedStatements::sql).containsExactly("\"analyst\"", "\"data-eng\"");
    // The text written back never holds the password.
    assertThat(SqlDialect.toSql(create))
        .isEqualTo("CREATE USER IF NOT EXISTS \"alice\" PASSWORD '***' ROLES (\"analyst\", \"data-eng\")")
        .isEqualTo(create.redactedText())
        .isEqualTo(create.toString().replace('`', '"'));

    SqlCreateUser plain = parse("create user \"Bob@example.com\" password 'pw'", SqlCreateUser.class);
    assertThat(name(plain.name())).isEqualTo("Bob@example.com");
    assertThat(plain.ifNotExists).isFalse();
    assertThat(plain.roles()).isEmpty();
    assertThat(plain.getOperandList()).noneMatch(node -> node != null && node.toString().contains("pw"));

    assertSyntaxError("create or replace user bob password 'pw'", "CREATE OR REPLACE USER is not supported", 1, 1);
    assertSyntaxError("create user bob password pw", "Encountered \"pw\"", 1, 26);
    assertSyntaxError("create user bob", "Encountered \"<EOF>\"", 1, 15);
  }

  @Test
  void alterAndDropUser() {
    SqlAlterUser own = parse("ALTER USER CURRENT_USER SET PASSWORD 'new-pw'", SqlAlterUser.class);
    assertThat(own.name()).isNull();
    assertThat(own.setsPassword()).isTrue();
    assertThat(own.password()).isEqualTo("new-pw");
    assertThat(own.redactedText()).isEqualTo("ALTER USER CURRENT_USER SET PASSWORD '***'");

    SqlAlterUser postgres = parse("alter user bob with password 'pw'", SqlAlterUser.class);
    assertThat(name(postgres.name())).isEqualTo("bob");
    assertThat(postgres.password()).isEqualTo("pw");
    assertThat(parse("alter user bob password 'pw'", SqlAlterUser.class).password()).isEqualTo("pw");

    SqlAlterUser roles = parse("ALTER USER bob SET ROLES (writer, \"Ops\")", SqlAlterUser.class);
    assertThat(roles.setsPassword()).isFalse();
    assertThat(roles.roles()).map(ParsedStatements::sql).containsExactly("\"writer\"", "\"Ops\"");
    assertThat(parse("alter user bob set roles ()", SqlAlterUser.class).roles()).isEmpty();

    SqlDropUser drop = parse("DROP USER IF EXISTS bob", SqlDropUser.class);
    assertThat(drop.ifExists).isTrue();
    assertThat(name(drop.name())).isEqualTo("bob");
    assertThat(parse("drop user bob", SqlDropUser.class).ifExists).isFalse();

    // The new words stay usable as names.
    parse("select password, roles from t", SqlNode.class);
  }

  @Test
  void createTableWithEveryClause() {
    SqlCreateTable create = parse(
        "CREATE TABLE IF NOT EXISTS lake.s.events ("
            + " id BIGINT NOT NULL COMMENT 'event id',"
            + " name STRING,"
            + " ts TIMESTAMP(6),"
            + " price DECIMAL(12, 2) NULL"
            + ") COMMENT 'all events'"
            + " PARTITIONED BY (day(ts), bucket(16, id), truncate(4, name), name, year(ts), month(ts), hour(ts))"
            + " SORTED BY (id DESC NULLS LAST, name ASC NULLS FIRST, ts)"
            + " WITH (format = 'PARQUET', 'write.target-file-size-bytes' = 134217728, write.metadata.compression = 'gzip')",
        SqlCreateTable.class);
    assertThat(create.getKind()).isEqualTo(SqlKind.CREATE_TABLE);
    assertThat(create.getReplace()).isFalse();
    assertThat(create.ifNotExists).isTrue();
    assertThat(name(create.name())).isEqualTo("lake.s.events");
    assertThat(create.comment()).isEqualTo("all events");
    assertThat(create.query()).isNull();

    List<SqlColumnDeclaration> columns = columns(create.columns());
    assertThat(columns).extracting(c -> name(c.name())).containsExactly("id", "name", "ts", "price");
    assertThat(columns).extracting(SqlColumnDeclaration::notNull).containsExactly(true, false, false, false);
    assertThat(columns.get(0).comment()).isEqualTo("event id");
    assertThat(columns.get(1).comment()).isNull();
    assertThat(typeName(columns.get(0).type())).isEqualTo(SqlTypeName.BIGINT);
    assertThat(typeName(columns.get(1).type())).isEqualTo(SqlTypeName.VARCHAR);
    assertThat(typeName(columns.get(2).type())).isEqualTo(SqlTypeName.TIMESTAMP);
    assertThat(((SqlBasicTypeNameSpec) columns.get(2).type().getTypeNameSpec()).getPrecision()).isEqualTo(6);
    assertThat(((SqlBasicTypeNameSpec) columns.get(3).type().getTypeNameSpec()).getScale()).isEqualTo(2);

    List<SqlTransform> partitions = create.partitionBy().stream().map(SqlTransform.class::cast).toList();
    assertThat(partitions).extracting(SqlTransform::kind).containsExactly(
        SqlTransform.Kind.DAY, SqlTransform.Kind.BUCKET, SqlTransform.Kind.TRUNCATE, SqlTransform.Kind.IDENTITY,
        SqlTransform.Kind.YEAR, SqlTransform.Kind.MONTH, SqlTransform.Kind.HOUR);
    assertThat(partitions).extracting(t -> name(t.column())).containsExactly("ts", "id", "name", "name", "ts", "ts", "ts");
    assertThat(partitions).extracting(SqlTransform::argument).containsExactly(null, 16, 4, null, null, null, null);

    List<SqlSortField> sort = create.sortedBy().stream().map(SqlSortField.class::cast).toList();
    assertThat(sort).extracting(f -> name(f.term().column())).containsExactly("id", "name", "ts");
    assertThat(sort).extracting(SqlSortField::descending).containsExactly(true, false, false);
    assertThat(sort).extracting(SqlSortField::nullOrder).containsExactly(
        SqlSortField.NullOrder.LAST, SqlSortField.NullOrder.FIRST, SqlSortField.NullOrder.DEFAULT);

    assertThat(properties(create.properties())).containsExactly(
        "format=PARQUET", "write.target-file-size-bytes=134217728", "write.metadata.compression=gzip");
  }

  @Test
  void partitionTransformsInOtherSpellings() {
    SqlCreateTable create = parse(
        "create table t (id int, ts timestamp) partitioned by (days(ts), hours(ts), bucket(id, 8))",
        SqlCreateTable.class);
    List<SqlTransform> partitions = create.partitionBy().stream().map(SqlTransform.class::cast).toList();
    assertThat(partitions).extracting(SqlTransform::kind)
        .containsExactly(SqlTransform.Kind.DAY, SqlTransform.Kind.HOUR, SqlTransform.Kind.BUCKET);
    assertThat(partitions.get(2).argument()).isEqualTo(8);
    assertThat(name(partitions.get(2).column())).isEqualTo("id");

    assertSyntaxError("create table t (a int) partitioned by (sort_key(a))", "Unknown partition transform 'sort_key'", 1, 40);
    assertSyntaxError("create table t (a int) partitioned by (bucket(a))", "Expected bucket(count, column)", 1, 40);
    assertSyntaxError("create table t (a int) partitioned by (bucket(0, a))", "The bucket width must be a positive integer", 1, 47);
    assertSyntaxError("create table t (a int) partitioned by (year(a, 3))", "Unexpected argument of year(column)", 1, 48);
  }

  @Test
  void columnTypes() {
    SqlCreateTable create = parse(
        "create table t ("
            + " r ROW(a INT, b VARCHAR, c ROW(d DOUBLE NOT NULL)),"
            + " a1 ARRAY(INT), a2 INT ARRAY, a3 ARRAY<VARCHAR>, a4 ARRAY(ARRAY(BIGINT)),"
            + " m1 MAP(VARCHAR, INT), m2 MAP<VARCHAR, ARRAY(INT)>,"
            + " dc DECIMAL(38, 10), ts TIMESTAMP(6), tz TIMESTAMP WITH TIME ZONE, tz6 TIMESTAMP(6) WITH TIME ZONE,"
            + " ltz TIMESTAMP WITH LOCAL TIME ZONE, u UUID, bin BINARY(16), vb VARBINARY, s STRING, v VARCHAR(10),"
            + " b BOOLEAN, i INTEGER, si SMALLINT, ti TINYINT, f REAL, d DOUBLE, dt DATE, tm TIME)",
        SqlCreateTable.class);
    List<SqlColumnDeclaration> columns = columns(create.columns());

    SqlRowTypeNameSpec row = (SqlRowTypeNameSpec) columns.get(0).type().getTypeNameSpec();
    assertThat(row.getFieldNames()).extracting(ParsedStatements::name).containsExactly("a", "b", "c");
    assertThat(row.getFieldTypes().get(2).getTypeNameSpec()).isInstanceOf(SqlRowTypeNameSpec.class);

    for (int i = 1; i <= 4; i++) {
      SqlCollectionTypeNameSpec array = (SqlCollectionTypeNameSpec) columns.get(i).type().getTypeNameSpec();
      assertThat(array.getTypeName().getSimple()).as(columns.get(i).name().toString()).isEqualTo("ARRAY");
    }
    assertThat(((SqlCollectionTypeNameSpec) columns.get(4).type().getTypeNameSpec()).getElementTypeName())
        .isInstanceOf(SqlCollectionTypeNameSpec.class);
    SqlMapTypeNameSpec map = (SqlMapTypeNameSpec) columns.get(5).type().getTypeNameSpec();
    assertThat(typeName(map.getKeyType())).isEqualTo(SqlTypeName.VARCHAR);
    assertThat(typeName(map.getValType())).isEqualTo(SqlTypeName.INTEGER);
    assertThat(columns.get(6).type().getTypeNameSpec()).isInstanceOf(SqlMapTypeNameSpec.class);

    assertThat(columns.subList(7, columns.size())).extracting(c -> typeName(c.type())).containsExactly(
        SqlTypeName.DECIMAL, SqlTypeName.TIMESTAMP, SqlTypeName.TIMESTAMP_TZ, SqlTypeName.TIMESTAMP_TZ,
        SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, SqlTypeName.UUID, SqlTypeName.BINARY, SqlTypeName.VARBINARY,
        SqlTypeName.VARCHAR, SqlTypeName.VARCHAR, SqlTypeName.BOOLEAN, SqlTypeName.INTEGER, SqlTypeName.SMALLINT,
        SqlTypeName.TINYINT, SqlTypeName.REAL, SqlTypeName.DOUBLE, SqlTypeName.DATE, SqlTypeName.TIME);
    assertThat(((SqlBasicTypeNameSpec) columns.get(13).type().getTypeNameSpec()).getPrecision()).isEqualTo(16);
  }

  @Test
  void createOrReplaceTable() {
    SqlCreateTable create = parse("create or replace table t (a int)", SqlCreateTable.class);
    assertThat(create.getReplace()).isTrue();
    assertThat(create.ifNotExists).isFalse();
    assertSyntaxError("create or replace table if not exists t (a int)", "CREATE OR REPLACE TABLE cannot have IF NOT EXISTS", 1, 1);
  }

  @Test
  void createTableAsQuery() {
    SqlCreateTable ctas = parse("CREATE TABLE t AS SELECT 1 AS a, 'x' AS b", SqlCreateTable.class);
    assertThat(ctas.columns()).isEmpty();
    assertThat(ctas.query().getKind()).isEqualTo(SqlKind.SELECT);

    SqlCreateTable named = parse(
        "create or replace table s.t (a, b) comment 'copy' partitioned by (a) with (format = 'parquet')"
            + " as with q as (select 1 as x, 2 as y) select * from q order by x",
        SqlCreateTable.class);
    assertThat(named.getReplace()).isTrue();
    assertThat(columns(named.columns())).extracting(c -> name(c.name())).containsExactly("a", "b");
    assertThat(columns(named.columns())).allSatisfy(c -> assertThat(c.type()).isNull());
    assertThat(named.comment()).isEqualTo("copy");
    assertThat(named.partitionBy()).hasSize(1);
    assertThat(named.query().getKind()).isEqualTo(SqlKind.ORDER_BY);

    assertThat(parse("create table t as (select 1 as a)", SqlCreateTable.class).query().getKind())
        .isEqualTo(SqlKind.SELECT);
    assertThat(parse("create table t as values (1, 2)", SqlCreateTable.class).query().getKind())
        .isEqualTo(SqlKind.VALUES);

    assertSyntaxError("create table t (a int) as select 1", "takes column names only", 1, 17);
    assertSyntaxError("create table t (a)", "Column a needs a type", 1, 17);
    assertSyntaxError("create table t", "CREATE TABLE needs a column list or AS query", 1, 1);
  }

  @Test
  void dropAndTruncateTable() {
    SqlDropTable drop = parse("DROP TABLE IF EXISTS s.t PURGE", SqlDropTable.class);
    assertThat(drop.getKind()).isEqualTo(SqlKind.DROP_TABLE);
    assertThat(drop.ifExists).isTrue();
    assertThat(drop.purge()).isTrue();
    assertThat(name(drop.name())).isEqualTo("s.t");
    SqlDropTable plain = parse("drop table t", SqlDropTable.class);
    assertThat(plain.ifExists).isFalse();
    assertThat(plain.purge()).isFalse();

    SqlTruncateTable truncate = parse("TRUNCATE TABLE lake.s.t", SqlTruncateTable.class);
    assertThat(truncate.getKind()).isEqualTo(SqlKind.TRUNCATE_TABLE);
    assertThat(name(truncate.name())).isEqualTo("lake.s.t");
  }

  @Test
  void alterTableRename() {
    SqlAlterTableRename rename = parse("ALTER TABLE IF EXISTS s.t RENAME TO s.t2", SqlAlterTableRename.class);
    assertThat(rename.getKind()).isEqualTo(SqlKind.ALTER_TABLE);
    assertThat(rename.ifExists()).isTrue();
    assertThat(name(rename.name())).isEqualTo("s.t");
    assertThat(name(rename.newName())).isEqualTo("s.t2");
    assertThat(parse("alter table t rename to u", SqlAlterTableRename.class).ifExists()).isFalse();
  }

  @Test
  void alterTableColumns() {
    SqlAlterTableAddColumn add = parse(
        "ALTER TABLE t ADD COLUMN IF NOT EXISTS c DECIMAL(10, 2) NOT NULL COMMENT 'price'", SqlAlterTableAddColumn.class);
    assertThat(add.ifNotExists()).isTrue();
    assertThat(name(add.column().name())).isEqualTo("c");
    assertThat(typeName(add.column().type())).isEqualTo(SqlTypeName.DECIMAL);
    assertThat(add.column().notNull()).isTrue();
    assertThat(add.column().comment()).isEqualTo("price");
    SqlAlterTableAddColumn nested = parse("alter table t add point.z double", SqlAlterTableAddColumn.class);
    assertThat(nested.ifNotExists()).isFalse();
    assertThat(name(nested.column().name())).isEqualTo("point.z");

    SqlAlterTableDropColumn drop = parse("ALTER TABLE t DROP COLUMN IF EXISTS c", SqlAlterTableDropColumn.class);
    assertThat(drop.columnIfExists()).isTrue();
    assertThat(name(drop.column())).isEqualTo("c");
    assertThat(parse("alter table t drop column c", SqlAlterTableDropColumn.class).columnIfExists()).isFalse();

    SqlAlterTableRenameColumn renameColumn = parse("ALTER TABLE t RENAME COLUMN a TO b", SqlAlterTableRenameColumn.class);
    assertThat(name(renameColumn.column())).isEqualTo("a");
    assertThat(name(renameColumn.newName())).isEqualTo("b");

    SqlAlterTableAlterColumnType setType = parse("ALTER TABLE t ALTER COLUMN c SET DATA TYPE BIGINT", SqlAlterTableAlterColumnType.class);
    assertThat(name(setType.column())).isEqualTo("c");
    assertThat(typeName(setType.type())).isEqualTo(SqlTypeName.BIGINT);
    SqlAlterTableAlterColumnType type = parse("alter table t alter column c type decimal(20, 2)", SqlAlterTableAlterColumnType.class);
    assertThat(((SqlBasicTypeNameSpec) type.type().getTypeNameSpec()).getPrecision()).isEqualTo(20);
    assertThat(parse("alter table t alter c type double", SqlAlterTableAlterColumnType.class).type()).isNotNull();

    assertThat(parse("ALTER TABLE t ALTER COLUMN c SET NOT NULL", SqlAlterTableAlterColumnNullability.class).notNull()).isTrue();
    assertThat(parse("ALTER TABLE t ALTER COLUMN c DROP NOT NULL", SqlAlterTableAlterColumnNullability.class).notNull()).isFalse();
  }

  @Test
  void alterTableProperties() {
    SqlAlterTableSetProperties set = parse(
        "ALTER TABLE t SET PROPERTIES format_version = 2, write.metadata.metrics.max_inferred = 50, \"write.format.default\" = 'orc'", SqlAlterTableSetProperties.class);
    assertThat(properties(set.properties()))
        .containsExactly("format_version=2", "write.metadata.metrics.max_inferred=50", "write.format.default=orc");
    SqlAlterTableSetProperties spark = parse(
        "alter table t set tblproperties ('write.format.default' = 'parquet', 'commit.retry.num-retries' = '10')",
        SqlAlterTableSetProperties.class);
    assertThat(properties(spark.properties())).containsExactly("write.format.default=parquet", "commit.retry.num-retries=10");

    SqlAlterTableUnsetProperties unset = parse("ALTER TABLE t UNSET PROPERTIES a, b.c", SqlAlterTableUnsetProperties.class);
    assertThat(unset.keys()).containsExactly("a", "b.c");
    assertThat(unset.propertiesIfExist()).isFalse();
    SqlAlterTableUnsetProperties unsetSpark = parse(
        "alter table t unset tblproperties if exists ('write.format.default')", SqlAlterTableUnsetProperties.class);
    assertThat(unsetSpark.keys()).containsExactly("write.format.default");
    assertThat(unsetSpark.propertiesIfExist()).isTrue();
  }

  @Test
  void alterTableBranchesAndTags() {
    SqlAlterTableCreateRef branch = parse(
        "ALTER TABLE t CREATE OR REPLACE BRANCH audit AS OF VERSION 8954597067493422955 RETAIN 7 DAYS",
        SqlAlterTableCreateRef.class);
    assertThat(branch.replace()).isTrue();
    assertThat(branch.refKind()).isEqualTo(RefKind.BRANCH);
    assertThat(branch.ifNotExists()).isFalse();
    assertThat(branch.ref()).isEqualTo("audit");
    assertThat(branch.snapshotId()).isEqualTo(8954597067493422955L);
    assertThat(branch.retain()).isEqualTo(Duration.ofDays(7));

    SqlAlterTableCreateRef tag = parse("alter table t create tag if not exists \"v1.0\"", SqlAlterTableCreateRef.class);
    assertThat(tag.refKind()).isEqualTo(RefKind.TAG);
    assertThat(tag.replace()).isFalse();
    assertThat(tag.ifNotExists()).isTrue();
    assertThat(tag.ref()).isEqualTo("v1.0");
    assertThat(tag.snapshotId()).isNull();
    assertThat(tag.retain()).isNull();
    assertThat(parse("alter table t create tag v2 retain 12 hours", SqlAlterTableCreateRef.class).retain())
        .isEqualTo(Duration.ofHours(12));

    SqlAlterTableDropRef dropBranch = parse("ALTER TABLE t DROP BRANCH IF EXISTS audit", SqlAlterTableDropRef.class);
    assertThat(dropBranch.refKind()).isEqualTo(RefKind.BRANCH);
    assertThat(dropBranch.refIfExists()).isTrue();
    assertThat(dropBranch.ref()).isEqualTo("audit");
    SqlAlterTableDropRef dropTag = parse("alter table t drop tag v1", SqlAlterTableDropRef.class);
    assertThat(dropTag.refKind()).isEqualTo(RefKind.TAG);
    assertThat(dropTag.refIfExists()).isFalse();

    assertSyntaxError("alter table t create or replace branch if not exists b", "cannot have IF NOT EXISTS", 1, 1);
    assertSyntaxError("alter table t create branch b as of version 1.5", "A snapshot id is an integer", 1, 45);
  }

  @Test
  void alterTableExecute() {
    SqlAlterTableExecute optimize = parse(
        "ALTER TABLE t EXECUTE optimize(file_size_threshold => '10MB') WHERE d >= DATE '2024-01-01'",
        SqlAlterTableExecute.class);
    assertThat(optimize.procedure()).isEqualTo("optimize");
    assertThat(optimize.arguments()).hasSize(1);
    assertThat(optimize.arguments().get(0).getKind()).isEqualTo(SqlKind.ARGUMENT_ASSIGNMENT);
    assertThat(sql(optimize.where())).isEqualTo("\"d\" >= DATE '2024-01-01'");

    SqlAlterTableExecute expire = parse("alter table t execute expire_snapshots(retention_threshold => '7d')", SqlAlterTableExecute.class);
    assertThat(expire.where()).isNull();
    assertThat(parse("alter table t execute remove_orphan_files()", SqlAlterTableExecute.class).arguments()).isEmpty();
    SqlAlterTableExecute bare = parse("alter table t execute optimize", SqlAlterTableExecute.class);
    assertThat(bare.procedure()).isEqualTo("optimize");
    assertThat(bare.arguments()).isEmpty();
    assertThat(parse("alter table t execute rollback_to_snapshot(123)", SqlAlterTableExecute.class).arguments())
        .extracting(ParsedStatements::sql).containsExactly("123");
  }

  @Test
  void views() {
    SqlCreateView view = parse(
        "CREATE OR REPLACE VIEW s.v (id, total) COMMENT 'totals' AS SELECT id, sum(x) FROM t GROUP BY id",
        SqlCreateView.class);
    assertThat(view.getKind()).isEqualTo(SqlKind.CREATE_VIEW);
    assertThat(view.getReplace()).isTrue();
    assertThat(view.ifNotExists).isFalse();
    assertThat(name(view.name())).isEqualTo("s.v");
    assertThat(view.columns()).extracting(ParsedStatements::sql).containsExactly("\"id\"", "\"total\"");
    assertThat(view.comment()).isEqualTo("totals");
    assertThat(view.query().getKind()).isEqualTo(SqlKind.SELECT);

    SqlCreateView plain = parse("create view if not exists v as select * from t order by 1 limit 3", SqlCreateView.class);
    assertThat(plain.getReplace()).isFalse();
    assertThat(plain.ifNotExists).isTrue();
    assertThat(plain.columns()).isEmpty();
    assertThat(plain.comment()).isNull();
    assertThat(plain.query().getKind()).isEqualTo(SqlKind.ORDER_BY);

    SqlDropView drop = parse("DROP VIEW IF EXISTS s.v", SqlDropView.class);
    assertThat(drop.getKind()).isEqualTo(SqlKind.DROP_VIEW);
    assertThat(drop.ifExists).isTrue();
    assertThat(parse("drop view v", SqlDropView.class).ifExists).isFalse();

    assertSyntaxError("create or replace view if not exists v as select 1", "cannot have IF NOT EXISTS", 1, 1);
  }

  @Test
  void materializedViews() {
    SqlCreateMaterializedView view = parse(
        "CREATE OR REPLACE MATERIALIZED VIEW s.mv COMMENT 'totals' WITH (max_staleness = '1h') AS SELECT id, sum(x) AS s FROM t GROUP BY id",
        SqlCreateMaterializedView.class);
    assertThat(view.getKind()).isEqualTo(SqlKind.CREATE_MATERIALIZED_VIEW);
    assertThat(view.getReplace()).isTrue();
    assertThat(name(view.name())).isEqualTo("s.mv");
    assertThat(view.comment()).isEqualTo("totals");
    assertThat(view.properties()).extracting(p -> ((SqlProperty) p).key()).containsExactly("max_staleness");
    assertThat(view.query().getKind()).isEqualTo(SqlKind.SELECT);
    SqlCreateMaterializedView plain = parse("create materialized view if not exists mv as select 1 as x", SqlCreateMaterializedView.class);
    assertThat(plain.ifNotExists).isTrue();
    assertThat(plain.properties()).isEmpty();

    assertThat(parse("DROP MATERIALIZED VIEW IF EXISTS s.mv", SqlDropMaterializedView.class).ifExists).isTrue();
    assertThat(name(parse("refresh materialized view s.mv", SqlRefreshMaterializedView.class).name())).isEqualTo("s.mv");
    assertThat(parse("SHOW CREATE MATERIALIZED VIEW s.mv", SqlShowCreate.class).objectKind())
        .isEqualTo(SqlShowCreate.ObjectKind.MATERIALIZED_VIEW);
    // The new words stay usable as names.
    assertThat(parse("select materialized, refresh from t", SqlSelect.class).getSelectList()).hasSize(2);

    assertSyntaxError("create or replace materialized view if not exists mv as select 1", "cannot have IF NOT EXISTS", 1, 1);
  }

  @Test
  void viewsTakeTrinosSecurityClause() {
    // dbt-trino writes SECURITY DEFINER by default; SQE's views always run with the reader's rights.
    SqlCreateView definer = parse("create or replace view v comment 'c' security definer as select 1 as x",
        SqlCreateView.class);
    assertThat(definer.comment()).isEqualTo("c");
    assertThat(definer.query().getKind()).isEqualTo(SqlKind.SELECT);
    assertThat(parse("CREATE VIEW v SECURITY INVOKER AS SELECT 1", SqlCreateView.class).query().getKind())
        .isEqualTo(SqlKind.SELECT);
    assertSyntaxError("create view v security owner as select 1", "Encountered \"owner\"", 1, 24);
  }

  @Test
  void commentOn() {
    SqlCommentOn table = parse("COMMENT ON TABLE s.t IS 'all orders'", SqlCommentOn.class);
    assertThat(table.target()).isEqualTo(SqlCommentOn.Target.TABLE);
    assertThat(name(table.objectName())).isEqualTo("s.t");
    assertThat(table.column()).isNull();
    assertThat(table.comment()).isEqualTo("all orders");

    SqlCommentOn column = parse("comment on column s.t.price is 'in ''EUR'''", SqlCommentOn.class);
    assertThat(column.target()).isEqualTo(SqlCommentOn.Target.COLUMN);
    assertThat(name(column.objectName())).isEqualTo("s.t");
    assertThat(column.column()).isEqualTo("price");
    assertThat(column.comment()).isEqualTo("in 'EUR'");

    assertThat(parse("comment on view v is null", SqlCommentOn.class).comment()).isNull();
    assertSyntaxError("comment on column c is 'x'", "COMMENT ON COLUMN needs table.column", 1, 19);
  }

  private static List<SqlColumnDeclaration> columns(List<SqlNode> nodes) {
    return nodes.stream().map(SqlColumnDeclaration.class::cast).toList();
  }

  private static List<String> properties(List<SqlNode> nodes) {
    return nodes.stream().map(SqlProperty.class::cast).map(p -> p.key() + "=" + p.valueText()).toList();
  }

  private static SqlTypeName typeName(SqlDataTypeSpec type) {
    return SqlTypeName.valueOf(((SqlBasicTypeNameSpec) type.getTypeNameSpec()).getTypeName().getSimple());
  }

  static void assertSyntaxError(String sql, String message, int line, int column) {
    assertThatThrownBy(() -> SqeParser.parse(sql))
        .as(sql)
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains(message);
          assertThat(e.position()).as("position of the error in %s", sql)
              .contains(new SqeException.SqlPosition(line, column));
        });
  }
}

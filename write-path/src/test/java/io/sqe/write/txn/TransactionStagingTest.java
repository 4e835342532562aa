package io.sqe.write.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.SqeException;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.write.WritePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Statements staged in the engine's transactions over the embedded catalog, checked against Iceberg's own view of the tables. */
class TransactionStagingTest {
  private static final AtomicInteger QUERY_IDS = new AtomicInteger();

  @TempDir Path dir;
  private RootAllocator allocator;
  private LakehouseCatalog catalog;
  private QueryEngine engine;
  /** The session of the connection under test; statements apply their session changes to it. */
  private Session session;
  /** Another connection, outside any transaction. */
  private Session other;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    catalog = IcebergCatalogFactory.embedded("lake", dir.resolve("warehouse"), Duration.ofMinutes(5));
    catalog.namespaces().createNamespace(Namespace.of("s"));
    engine = new QueryEngine(
        new Catalogs(List.of(catalog), "lake"), allocator, EngineConfig.DEFAULT, WritePath.executors(), WritePath.transactions());
    session = new Session(Principal.of("test"), "lake", "s", ZoneOffset.UTC);
    other = session;
    run(other, "create table t (id bigint, v varchar)");
    run(other, "insert into t values (1, 'a'), (2, 'b')");
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    allocator.close();
  }

  @Test
  void writesAreVisibleInsideAtOnceAndOutsideOnlyAfterCommit() {
    long before = snapshotId("t");
    run("begin");
    assertThat(run("insert into t values (3, 'c')")).isEqualTo(1);
    assertThat(run("update t set v = 'x' where id = 1")).isEqualTo(1);
    assertThat(run("delete from t where id = 2")).isEqualTo(1);
    assertThat(query(session, "select id, v from t order by id")).containsExactly(List.of(1L, "x"), List.of(3L, "c"));
    assertThat(query(other, "select id, v from t order by id")).containsExactly(List.of(1L, "a"), List.of(2L, "b"));
    assertThat(snapshotId("t")).isEqualTo(before);
    run("commit");
    assertThat(session.openTransaction()).isEmpty();
    assertThat(query(other, "select id, v from t order by id")).containsExactly(List.of(1L, "x"), List.of(3L, "c"));
    assertThat(table("t").currentSnapshot().summary()).containsKey(Commits.TRANSACTION_ID_PROPERTY);
  }

  @Test
  void rollbackLeavesTheTableAsItWasAndDeletesTheFiles() throws IOException {
    long before = snapshotId("t");
    List<Path> filesBefore = files();
    run("begin");
    run("insert into t select id + 10, v from t");
    run("delete from t where id = 1");
    assertThat(files()).hasSizeGreaterThan(filesBefore.size());
    run("rollback");
    assertThat(snapshotId("t")).isEqualTo(before);
    assertThat(query(session, "select count(*) from t")).containsExactly(List.of(2L));
    assertThat(files()).containsExactlyInAnyOrderElementsOf(filesBefore);
  }

  @Test
  void createTableAsIsStagedAndReadable() {
    run("begin");
    run("create or replace table u as select id * 2 as id2 from t");
    run("insert into u values (100)");
    assertThat(query(session, "select sum(id2) from u")).containsExactly(List.of(106L));
    assertThat(catalog.iceberg().tableExists(TableIdentifier.of("s", "u"))).isFalse();
    assertThatThrownBy(() -> query(other, "select * from u")).isInstanceOf(SqeException.class);
    run("commit");
    assertThat(query(other, "select sum(id2) from u")).containsExactly(List.of(106L));
  }

  @Test
  void embeddedCatalogRefusesASecondTableAndDdl() {
    run(other, "create table w (id bigint)");
    run("begin");
    run("insert into t values (5, 'e')");
    assertThatThrownBy(() -> run("insert into w values (1)"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageContaining("cannot commit several tables atomically");
    assertThatThrownBy(() -> run("alter table t add column z int"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION))
        .hasMessageContaining("cannot run inside a transaction");
    // The refused statements left the transaction as it was.
    run("commit");
    assertThat(query(other, "select count(*) from t")).containsExactly(List.of(3L));
    assertThat(query(other, "select count(*) from w")).containsExactly(List.of(0L));
  }

  @Test
  void aFailedStatementLeavesTheTransactionAsItWas() {
    run(other, "create table w (id bigint)");
    run(other, "insert into w values (1)");
    run("begin");
    assertThatThrownBy(() -> run("delete from w where 1 / (id - id) = 1")).isInstanceOf(SqeException.class);
    // The failed statement wrote nothing, so the embedded catalog still takes one other table.
    run("insert into t values (3, 'c')");
    run("commit");
    assertThat(query(other, "select count(*) from t")).containsExactly(List.of(3L));
    assertThat(query(other, "select count(*) from w")).containsExactly(List.of(1L));
  }

  @Test
  void aConflictingCommitFailsAndLandsNothing() {
    run("begin");
    run("update t set v = 'in' where id = 1");
    run(other, "update t set v = 'out' where id = 1");
    long outside = snapshotId("t");
    assertThatThrownBy(() -> run("commit"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION));
    assertThat(snapshotId("t")).isEqualTo(outside);
    assertThat(query(other, "select v from t where id = 1")).containsExactly(List.of("out"));
    assertThat(session.openTransaction()).isEmpty();
  }

  @Test
  void appendsCommitOnTopOfConcurrentAppends() {
    run("begin");
    run("insert into t values (3, 'in')");
    run(other, "insert into t values (4, 'out')");
    run("commit");
    assertThat(query(other, "select id from t order by id")).containsExactly(List.of(1L), List.of(2L), List.of(3L), List.of(4L));
  }

  @Test
  void savepointsReturnToTheStagedStateAtTheMark() {
    run("begin");
    run("insert into t values (3, 'c')");
    String mark = session.openTransaction().orElseThrow().savepoint("a");
    run("delete from t where id = 1");
    run("insert into t values (4, 'd')");
    session.openTransaction().orElseThrow().rollbackToSavepoint(mark);
    assertThat(query(session, "select id from t order by id")).containsExactly(List.of(1L), List.of(2L), List.of(3L));
    run("insert into t values (5, 'e')");
    run("commit");
    assertThat(query(other, "select id from t order by id")).containsExactly(List.of(1L), List.of(2L), List.of(3L), List.of(5L));
  }

  private long run(String sql) {
    CommandResult result = command(session, sql);
    session = result.sessionChange().apply(session);
    return result.rowCount();
  }

  private long run(Session in, String sql) {
    return command(in, sql).rowCount();
  }

  private CommandResult command(Session in, String sql) {
    Prepared prepared = engine.prepare(in, sql);
    return engine.run(in, (Prepared.Command) prepared, List.of(), "q" + QUERY_IDS.incrementAndGet());
  }

  private List<List<Object>> query(Session in, String sql) {
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution exec = engine.execute(in, engine.prepare(in, sql), List.of(), "q" + QUERY_IDS.incrementAndGet())) {
      while (exec.next()) {
        VectorSchemaRoot root = exec.root();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            Object value = v.getObject(r);
            row.add(value instanceof org.apache.arrow.vector.util.Text ? value.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  private Table table(String name) {
    return catalog.iceberg().loadTable(TableIdentifier.of("s", name));
  }

  private long snapshotId(String name) {
    return table(name).currentSnapshot().snapshotId();
  }

  /** Every file under the warehouse's table directory of {@code t}. */
  private List<Path> files() {
    try (Stream<Path> walk = Files.walk(dir.resolve("warehouse").resolve("s").resolve("t"))) {
      return walk.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".metadata.json")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

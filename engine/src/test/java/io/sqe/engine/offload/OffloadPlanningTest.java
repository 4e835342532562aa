package io.sqe.engine.offload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.EmbeddedLake;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.SqeException;
import io.sqe.engine.TestQueries;
import io.sqe.engine.TestTables;
import io.sqe.engine.session.Session;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What SQE does with a query its session offloads, up to the Trino cluster: EXPLAIN shows where it
 * runs and the statement, pinned to the planned snapshot; a query of SQE's own tables stays here;
 * a cluster that cannot be reached is UNAVAILABLE naming it, or a local run with fallback. The
 * cluster itself is tested in flight-server's {@code OffloadToTrinoTest}.
 */
class OffloadPlanningTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private Table table;
  private String nobody;

  @BeforeEach
  void setUp() throws IOException {
    Schema schema = new Schema(
        Types.NestedField.required(1, "g", Types.LongType.get()), Types.NestedField.optional(2, "name", Types.StringType.get()));
    table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "t"), schema);
    List<Record> records = new ArrayList<>();
    for (long i = 0; i < 10; i++) {
      Record r = GenericRecord.create(schema);
      r.setField("g", i);
      r.setField("name", "n" + i);
      records.add(r);
    }
    TestTables.appendFile(table, records);
    // A port nothing listens on: a cluster that is down.
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nobody = "http://127.0.0.1:" + socket.getLocalPort();
    }
  }

  private QueryEngine engine(boolean fallback) {
    return lake.engine(EngineConfig.DEFAULT.withOffload(
        new OffloadConfig(Optional.of(nobody), "svc", OffloadConfig.DEFAULT_MIN_SCAN_BYTES, fallback)));
  }

  private static Session always() {
    return EmbeddedLake.session("test").withOption(OffloadConfig.SESSION_OPTION, "always");
  }

  @Test
  void explainShowsTheClusterAndTheStatementPinnedToThePlannedSnapshot() {
    long snapshot = lake.catalog().iceberg().loadTable(TableIdentifier.of("s", "t")).currentSnapshot().snapshotId();
    String plan = TestQueries.plan(engine(false), always(), "select name from s.t where g > 3 order by g");
    assertThat(plan).startsWith("offloaded to trino " + nobody + "\n");
    assertThat(plan).contains("FROM \"lake\".\"s\".\"t\" FOR VERSION AS OF " + snapshot + " AS \"t\"");
    assertThat(plan).contains("WHERE \"g\" > 3");
  }

  @Test
  void aSessionThatDoesNotAskRunsHere() {
    String plan = TestQueries.plan(engine(false), EmbeddedLake.session("test"), "select name from s.t");
    assertThat(plan).doesNotContain("offloaded to trino");
    assertThat(TestQueries.rows(engine(false), EmbeddedLake.session("test"), "select count(*) from s.t"))
        .containsExactly(List.of(10L));
  }

  @Test
  void aClusterThatIsDownIsUnavailableNamingIt() {
    assertThatThrownBy(() -> TestQueries.rows(engine(false), always(), "select count(*) from s.t"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE))
        .hasMessageContaining("The Trino cluster " + nobody);
  }

  @Test
  void withFallbackAClusterThatIsDownMeansALocalRun() {
    assertThat(TestQueries.rows(engine(true), always(), "select count(*), min(name) from s.t"))
        .containsExactly(List.of(10L, "n0"));
  }
}

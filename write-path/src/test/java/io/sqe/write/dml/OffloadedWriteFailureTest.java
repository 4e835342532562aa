package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.EngineConfig;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.offload.OffloadConfig;
import io.sqe.engine.session.Session;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes placed on a Trino cluster that is down (a loopback port nothing listens on): without
 * {@code offload.fallback} the write fails UNAVAILABLE naming the cluster and leaves the table as
 * it was; with it, the write runs here. What Trino would write differently (VALUES, a CTAS with a
 * NOT NULL column) never goes there. That a running cluster writes what a local run writes is
 * flight-server's {@code OffloadToTrinoTest}.
 */
class OffloadedWriteFailureTest {
  @TempDir Path dir;

  @Test
  void aFailedClusterIsUnavailableAndLeavesTheTableAsItWas() throws Exception {
    String cluster = nobody();
    try (Lakehouse lake = new Lakehouse(dir, config(cluster, false))) {
      lake.createNumbers("numbers", 100, 1000);
      lake.update("create table t (x bigint)");
      lake.update("insert into t values (1)");
      long before = lake.table("t").currentSnapshot().snapshotId();
      Session always = lake.session.withOption(OffloadConfig.SESSION_OPTION, "always");
      for (String write : List.of("insert into t select x from numbers", "create table u as select x from numbers")) {
        assertThatThrownBy(() -> lake.update(always, write))
            .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE))
            .hasMessageContaining("The Trino cluster " + cluster + " failed to run the offloaded write");
      }
      assertThat(lake.table("t").currentSnapshot().snapshotId()).isEqualTo(before);
      assertThat(lake.catalog.iceberg().tableExists(org.apache.iceberg.catalog.TableIdentifier.of("s", "u"))).isFalse();

      // Never placed on the cluster: no query to offload, and a column Trino would make nullable.
      assertThat(lake.update(always, "insert into t values (2), (3)")).isEqualTo(2);
      assertThat(lake.update(always, "create table v (x not null) as select x from numbers")).isEqualTo(100);
      assertThat(lake.update(lake.session.withOption(OffloadConfig.SESSION_OPTION, "never"), "insert into t select x from numbers"))
          .isEqualTo(100);
    }
  }

  @Test
  void withFallbackAWriteTheClusterFailedRunsHere() throws Exception {
    try (Lakehouse lake = new Lakehouse(dir, config(nobody(), true))) {
      lake.createNumbers("numbers", 100, 1000);
      lake.update("create table t (x bigint)");
      Session always = lake.session.withOption(OffloadConfig.SESSION_OPTION, "always");
      assertThat(lake.update(always, "insert into t select x from numbers where x <= 40")).isEqualTo(40);
      assertThat(lake.update(always, "create table u as select x * 2 as y from numbers")).isEqualTo(100);
      assertThat(lake.query("select count(*), sum(x) from t")).containsExactly(List.of(40L, 820L));
      assertThat(lake.query("select count(*), sum(y) from u")).containsExactly(List.of(100L, 10100L));
    }
  }

  private static EngineConfig config(String cluster, boolean fallback) {
    return EngineConfig.DEFAULT.withOffload(new OffloadConfig(Optional.of(cluster), "svc", 0, fallback));
  }

  /** A coordinator's address where nothing listens. */
  private static String nobody() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return "http://127.0.0.1:" + socket.getLocalPort();
    }
  }
}

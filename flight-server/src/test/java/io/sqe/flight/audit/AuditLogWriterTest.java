package io.sqe.flight.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditLogWriterTest {
  @TempDir Path dir;

  @Test
  void closingWritesEveryLineRecordedBeforeAndTheFileIsTheOwnersOnly() throws Exception {
    Path file = dir.resolve("audit/audit.jsonl");
    int threads = 4;
    int perThread = 5_000;
    AuditLog log = AuditLog.open(file);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    for (int t = 0; t < threads; t++) {
      int thread = t;
      pool.execute(() -> {
        for (int i = 0; i < perThread; i++) {
          log.login("user-" + thread, "127.0.0.1", "password", null, Instant.now(), i);
        }
      });
    }
    pool.shutdown();
    assertThat(pool.awaitTermination(2, TimeUnit.MINUTES)).isTrue();
    log.close();
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(threads * perThread);
    ObjectMapper json = new ObjectMapper();
    for (String line : lines) {
      assertThat(json.readTree(line).get("event").asText()).isEqualTo("login");
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");

    // A restart appends.
    AuditLog again = AuditLog.open(file);
    again.login("late", null, "token", null, Instant.now(), 0);
    again.close();
    assertThat(Files.readAllLines(file)).hasSize(threads * perThread + 1);
  }
}

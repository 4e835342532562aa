package io.sqe.engine.exec.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The spill space on a real directory: runs written and read back, owner-only files, cleanup, the cap. */
class SpillSpaceTest {
  private static final Schema SCHEMA =
      new Schema(List.of(new Field("x", FieldType.nullable(new ArrowType.Int(64, true)), null)));

  @TempDir Path dir;

  @Test
  void aRunReadsBackItsBatchesAndTheQueryDirectoryGoesAtClose() throws Exception {
    QueryStats stats = new QueryStats();
    try (BufferAllocator allocator = new RootAllocator()) {
      QuerySpill spill = SpillSpace.open(new SpillConfig(dir, 1L << 30)).forQuery("q/1", stats);
      assertThat(spill.directory()).as("no disk touched before the first run").isNull();
      SpilledRun run;
      try (RunWriter writer = spill.newRun(SCHEMA, allocator)) {
        for (int b = 0; b < 3; b++) {
          try (VectorSchemaRoot batch = batch(allocator, b * 100, 100)) {
            writer.write(batch);
          }
        }
        run = writer.finish();
      }
      assertThat(run.rows()).isEqualTo(300);
      Path queryDir = spill.directory();
      assertThat(queryDir.getParent()).isEqualTo(dir);
      assertThat(queryDir.getFileName().toString()).startsWith("query-q_1-");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(queryDir))).isEqualTo("rwx------");
      try (Stream<Path> files = Files.list(queryDir)) {
        for (Path file : files.toList()) {
          assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        }
      }
      long next = 0;
      try (RunReader reader = run.open(allocator)) {
        while (reader.loadNext()) {
          BigIntVector x = (BigIntVector) reader.batch().getVector(0);
          for (int i = 0; i < x.getValueCount(); i++) {
            assertThat(x.get(i)).isEqualTo(next++);
          }
        }
      }
      assertThat(next).isEqualTo(300);
      assertThat(stats.spillFiles()).isEqualTo(1);
      assertThat(stats.spilledBytes()).isEqualTo(run.bytes()).isEqualTo(Files.size(only(queryDir)));
      spill.close();
      assertThat(queryDir).doesNotExist();
    }
  }

  @Test
  void writingPastTheCapFailsResourceExhaustedAndLeavesNoFile() throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      QuerySpill spill = SpillSpace.open(new SpillConfig(dir, 10_000)).forQuery("q2", new QueryStats());
      try (RunWriter writer = spill.newRun(SCHEMA, allocator)) {
        assertThatThrownBy(() -> {
              for (int b = 0; b < 100; b++) {
                try (VectorSchemaRoot batch = batch(allocator, 0, 1000)) {
                  writer.write(batch);
                }
              }
            })
            .isInstanceOf(SqeException.class)
            .hasMessageContaining("query.max-spill")
            .extracting(e -> ((SqeException) e).code())
            .isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      }
      try (Stream<Path> files = Files.list(spill.directory())) {
        assertThat(files).isEmpty();
      }
      spill.close();
    }
  }

  @Test
  void openingTheSpaceRemovesLeftoverQueryDirectoriesOnly() throws Exception {
    Path leftover = Files.createDirectories(dir.resolve("query-crashed-1"));
    Files.writeString(leftover.resolve("run-1.arrow"), "x");
    Path other = Files.writeString(dir.resolve("notes.txt"), "kept");
    SpillSpace.open(new SpillConfig(dir, SpillConfig.DEFAULT_MAX_BYTES_PER_QUERY));
    try (Stream<Path> entries = Files.list(dir)) {
      assertThat(entries).containsExactly(other);
    }
  }

  private static VectorSchemaRoot batch(BufferAllocator allocator, long first, int rows) {
    VectorSchemaRoot batch = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector x = (BigIntVector) batch.getVector(0);
    x.allocateNew(rows);
    for (int i = 0; i < rows; i++) {
      x.set(i, first + i);
    }
    batch.setRowCount(rows);
    return batch;
  }

  private static Path only(Path directory) throws Exception {
    try (Stream<Path> files = Files.list(directory)) {
      return files.findFirst().orElseThrow();
    }
  }
}

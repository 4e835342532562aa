package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.session.Session;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Scans that read their files ahead on background threads return the same rows, in file order. */
class ScanReadAheadTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.empty();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    StarSchemaTables.write(lake.catalog());
    engine = lake.engine();
    session = EmbeddedLake.session("test");
  }

  @Test
  void aScanReturnsEachFilesRowsWholeAndInOrder() {
    // Two files of 3,000 rows each, read two at a time on background threads in 1,024-row batches.
    List<List<Object>> rows = run("select f_id from fact");
    assertThat(rows).hasSize(6000);
    long first = (Long) rows.get(0).get(0);
    assertThat(first).isIn(0L, 3000L);
    for (int i = 0; i < 6000; i++) {
      long expected = i < 3000 ? first + i : (first == 0 ? 3000 : 0) + (i - 3000);
      assertThat(rows.get(i).get(0)).as("row %d", i).isEqualTo(expected);
    }
    assertThat(run("select count(*), sum(f_value) from fact where f_small = 3"))
        .isEqualTo(List.of(List.of(600L, 600L * 3 + 10L * 599 * 600 / 2)));
    assertThat(run("select b_name from big where b_key = 8")).isEqualTo(List.of(List.of("green 8")));
  }

  private List<List<Object>> run(String sql) {
    return TestQueries.rows(engine, session, sql);
  }
}

package io.sqe.engine;

import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.session.Principal;
import io.sqe.engine.sql.ddl.SqlShow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * SHOW QUERIES: the statements being planned, queued or running, oldest first; the caller's own,
 * or everyone's for an admin.
 */
final class ShowQueries {
  private static final Schema SCHEMA =
      new Schema(List.of(
          new Field("query_id", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of()),
          new Field("user", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of()),
          new Field("state", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of()),
          new Field("created", FieldType.notNullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), List.of()),
          new Field("elapsed_ms", FieldType.notNullable(new ArrowType.Int(64, true)), List.of()),
          new Field("rows", FieldType.notNullable(new ArrowType.Int(64, true)), List.of()),
          new Field("query", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of())));

  private ShowQueries() {}

  /** The rows of {@code show} for {@code caller}, from the statements {@code queries} tracks. */
  static Prepared.Rows rows(String sql, QueryTracker queries, Principal caller, SqlShow show) {
    if (show.like() != null) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "SHOW QUERIES takes no LIKE");
    }
    List<Object[]> rows = new ArrayList<>();
    for (TrackedQuery query : queries.all()) {
      TrackedQuery.State state = query.state();
      boolean active =
          state == TrackedQuery.State.PLANNING || state == TrackedQuery.State.QUEUED || state == TrackedQuery.State.RUNNING;
      if (active && query.isControllableBy(caller)) {
        Instant created = query.created();
        rows.add(new Object[] {
          query.id(),
          query.principal().user(),
          state.name(),
          created.getEpochSecond() * 1_000_000L + created.getNano() / 1_000,
          query.elapsed().map(Duration::toMillis).orElse(0L),
          query.stats().map(QueryStats::rowsReturned).orElse(0L),
          query.sql()
        });
      }
    }
    return new Prepared.Rows(sql, SCHEMA, rows);
  }
}

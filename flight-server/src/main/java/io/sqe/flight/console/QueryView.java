package io.sqe.flight.console;

import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.exec.TrackedQuery;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A statement as the console shows it, figures already formatted, so that the page and the JSON
 * the page polls say the same. Made only for a caller who may see the statement (its user or an
 * admin), so it carries the statement's text.
 *
 * @param progress the share of planned data files read, 1 once finished; null while unknown
 * @param killable whether the statement is still planned, queued or running
 * @param plan the plan as EXPLAIN ANALYZE prints it, its operators' figures under their lines; null in lists and for commands
 */
record QueryView(
    String id,
    String state,
    String user,
    String source,
    String tag,
    String sql,
    String created,
    String elapsed,
    String rows,
    String bytesScanned,
    String peakMemory,
    String spilled,
    Double progress,
    String progressText,
    String errorCode,
    String errorMessage,
    boolean killable,
    List<Phase> timeline,
    String plan) {

  /** A moment in the statement's life and how long after its arrival it came; both empty until it has. */
  record Phase(String name, String at, String after) {}

  static QueryView of(TrackedQuery query, boolean withPlan) {
    Instant now = Instant.now();
    Optional<QueryStats> stats = query.stats().filter(s -> query.started().isPresent());
    Instant end = query.ended().orElse(null);
    TrackedQuery.State state = query.state();
    boolean live = state == TrackedQuery.State.PLANNING || state == TrackedQuery.State.QUEUED || state == TrackedQuery.State.RUNNING;
    Double progress = null;
    if (state == TrackedQuery.State.FINISHED) {
      progress = 1.0;
    } else if (state == TrackedQuery.State.RUNNING && stats.isPresent() && stats.get().scanProgress().isPresent()) {
      progress = stats.get().scanProgress().getAsDouble();
    }
    String progressText = switch (state) {
      case FINISHED -> "done";
      case RUNNING -> progress == null
          ? "running"
          : Math.round(progress * 100) + "% of " + Html.count(stats.get().filesPlanned()) + " files";
      default -> state.name().toLowerCase(Locale.ROOT);
    };
    Optional<TrackedQuery.Failure> failure = query.failure();
    return new QueryView(
        query.id(),
        state.name(),
        query.principal().user(),
        query.source().orElse(null),
        query.tag().orElse(null),
        query.sql(),
        Html.time(query.created()),
        Html.duration(Duration.between(query.created(), end == null ? now : end)),
        stats.map(s -> Html.count(s.rowsReturned())).orElse(""),
        stats.map(s -> Html.bytes(s.bytesScanned())).orElse(""),
        stats.filter(s -> s.peakMemoryBytes() > 0).map(s -> Html.bytes(s.peakMemoryBytes())).orElse(""),
        stats.filter(s -> s.spilledBytes() > 0).map(s -> Html.bytes(s.spilledBytes())).orElse(""),
        progress,
        progressText,
        failure.map(TrackedQuery.Failure::code).orElse(null),
        failure.map(TrackedQuery.Failure::message).orElse(null),
        live && !query.isCancelled(),
        timeline(query),
        withPlan ? query.profile().orElse(null) : null);
  }

  private static List<Phase> timeline(TrackedQuery query) {
    Instant created = query.created();
    List<Phase> phases = new ArrayList<>();
    phases.add(phase("Queued", created, created));
    if (query.planned().isEmpty() && query.started().isPresent()) {
      // A prepared statement (JDBC's way) was planned under its handle, before this statement arrived.
      phases.add(new Phase("Planned", "when prepared", ""));
    } else {
      phases.add(phase("Planned", created, query.planned().orElse(null)));
    }
    phases.add(phase("Started", created, query.started().orElse(null)));
    phases.add(phase("First batch", created, query.firstBatch().orElse(null)));
    phases.add(phase("Last batch", created, query.lastBatch().orElse(null)));
    phases.add(phase("Ended", created, query.ended().orElse(null)));
    phases.add(phase("Closed", created, query.closed().orElse(null)));
    return phases;
  }

  private static Phase phase(String name, Instant created, Instant at) {
    return at == null
        ? new Phase(name, "", "")
        : new Phase(name, Html.time(at), "+" + Html.duration(Duration.between(created, at)));
  }
}

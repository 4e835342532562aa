package io.sqe.engine.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.session.Principal;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The tracker's history of ended statements: bounded, newest kept, each statement once. */
class QueryHistoryTest {
  private static final Principal ALICE = Principal.of("alice");

  @Test
  void keepsTheLatestEndedStatementsUpToItsSize() {
    try (QueryTracker tracker = new QueryTracker(2, Admission.UNLIMITED)) {
      for (String id : new String[] {"q1", "q2", "q3"}) {
        try (QueryRun run = tracker.begin(id, ALICE, "select 1", Duration.ZERO)) {
          run.succeeded();
        }
      }
      assertThat(tracker.allWithHistory()).extracting(TrackedQuery::id).containsExactly("q2", "q3");
      assertThat(tracker.findWithHistory("q1")).isEmpty();
      assertThat(tracker.findWithHistory("q3")).hasValueSatisfying(query -> {
        assertThat(query.state()).isEqualTo(TrackedQuery.State.FINISHED);
        assertThat(query.started()).isPresent();
        assertThat(query.ended()).isPresent();
        assertThat(query.failure()).isEmpty();
      });
    }
  }

  @Test
  void aCancelledStatementKeepsWhyAndARunningOneIsListedOnce() {
    try (QueryTracker tracker = new QueryTracker(10, Admission.UNLIMITED)) {
      try (QueryRun run = tracker.begin("q1", ALICE, "select 1", Duration.ZERO)) {
        tracker.find("q1").orElseThrow().cancel(ErrorCode.CANCELLED, "Query q1 was killed");
        assertThat(tracker.allWithHistory()).extracting(TrackedQuery::id).containsExactly("q1");
        assertThat(tracker.find("q1").orElseThrow().ended()).isEmpty();
      }
      TrackedQuery ended = tracker.findWithHistory("q1").orElseThrow();
      assertThat(ended.state()).isEqualTo(TrackedQuery.State.CANCELLED);
      assertThat(ended.failure()).hasValue(new TrackedQuery.Failure("CANCELLED", "Query q1 was killed"));
    }
  }

  @Test
  void keepsNoneWhenItsSizeIsZero() {
    try (QueryTracker tracker = new QueryTracker(0, Admission.UNLIMITED)) {
      try (QueryRun run = tracker.begin("q1", ALICE, "select 1", Duration.ZERO)) {
        run.succeeded();
      }
      assertThat(tracker.allWithHistory()).isEmpty();
    }
  }
}

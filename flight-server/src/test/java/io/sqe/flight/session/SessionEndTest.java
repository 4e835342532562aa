package io.sqe.flight.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.session.Principal;
import io.sqe.engine.txn.Transaction;
import io.sqe.write.WritePath;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A session's transactions end with it, whether the client closes it or it expires. */
class SessionEndTest {
  private static final Principal ALICE = Principal.of("alice");

  @Test
  void anExpiredSessionRollsBackItsTransactions() throws Exception {
    SessionManager sessions = new SessionManager("iceberg", Duration.ofMillis(200));
    ClientSession session = sessions.session("Bearer a", null, ALICE);
    Transaction flight = WritePath.transactions().begin(ALICE);
    session.addTransaction(flight);
    Transaction sql = WritePath.transactions().begin(ALICE);
    session.update(s -> s.withTransaction(sql));
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while ((flight.isOpen() || sql.isOpen()) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(flight.isOpen()).isFalse();
    assertThat(sql.isOpen()).isFalse();
    assertThat(sessions.session("Bearer a", null, ALICE)).isNotSameAs(session);
  }

  @Test
  void closingASessionRollsBackAtOnceAndLeavesOtherSessionsAlone() {
    SessionManager sessions = new SessionManager("iceberg", Duration.ofHours(1));
    ClientSession first = sessions.session("Bearer a", null, ALICE);
    ClientSession second = sessions.session("Bearer b", null, ALICE);
    Transaction closed = WritePath.transactions().begin(ALICE);
    Transaction kept = WritePath.transactions().begin(ALICE);
    first.addTransaction(closed);
    second.addTransaction(kept);
    sessions.close("Bearer a", null, ALICE);
    assertThat(closed.isOpen()).isFalse();
    assertThat(first.transaction(closed.id())).isEmpty();
    assertThat(kept.isOpen()).isTrue();
    assertThat(second.transaction(kept.id())).contains(kept);
  }
}

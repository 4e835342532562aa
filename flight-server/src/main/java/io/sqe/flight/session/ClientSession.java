package io.sqe.flight.session;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.session.Session;
import java.util.function.UnaryOperator;

/** One client's session: the settings its statements run with, changed by SetSessionOptions. */
public final class ClientSession {
  private final String id;
  private volatile Session session;

  ClientSession(String id, Session session) {
    this.id = requireNonNull(id, "id is null");
    this.session = requireNonNull(session, "session is null");
  }

  public String id() {
    return id;
  }

  public Session session() {
    return session;
  }

  public synchronized void update(UnaryOperator<Session> change) {
    session = requireNonNull(change.apply(session), "session is null");
  }
}

package io.sqe.flight.session;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Client sessions, keyed by the credential a client sends on every call (its bearer token), since
 * ADBC does not keep cookies, and by the connection's session cookie when the client keeps one,
 * so that connections sharing a token keep apart. Idle sessions expire; a session that ends
 * (CloseSession, expiry) rolls back its open transactions.
 */
public final class SessionManager {
  private final Cache<String, ClientSession> sessions;
  private final String defaultCatalog;
  private final int maxSessions;
  private final Duration idleTimeout;
  private final AtomicLong refused = new AtomicLong();

  public SessionManager(String defaultCatalog, Duration idleTimeout) {
    this(defaultCatalog, idleTimeout, 0);
  }

  /** @param maxSessions the most sessions open at once; a new one past it is refused; 0 for no limit */
  public SessionManager(String defaultCatalog, Duration idleTimeout, int maxSessions) {
    if (maxSessions < 0) {
      throw new IllegalArgumentException("maxSessions must not be negative: " + maxSessions);
    }
    this.maxSessions = maxSessions;
    this.idleTimeout = requireNonNull(idleTimeout, "idleTimeout is null");
    this.defaultCatalog = requireNonNull(defaultCatalog, "defaultCatalog is null");
    this.sessions =
        Caffeine.newBuilder()
            .expireAfterAccess(idleTimeout)
            .maximumSize(100_000)
            .recordStats()
            // Expired sessions are removed on time, not at the next cache access, so their transactions end.
            .scheduler(Scheduler.systemScheduler())
            .<String, ClientSession>removalListener((key, session, cause) -> {
              if (session != null) {
                session.close();
              }
            })
            .build();
  }

  /**
   * The session of a client, created with the defaults on its first call.
   *
   * @param credential the authorization header the client sends on every call
   * @param connection the connection's session cookie, or null for a client without cookies
   */
  public ClientSession session(String credential, String connection, Principal principal) {
    String key = key(credential, connection, principal);
    ClientSession session = sessions.get(key, k -> {
      // Idle sessions that expired are gone by now (the scheduler removes them on time).
      if (maxSessions > 0 && sessions.estimatedSize() >= maxSessions) {
        refused.incrementAndGet();
        throw new SqeException(ErrorCode.RESOURCE_EXHAUSTED,
            "The server has " + maxSessions + " sessions open, the most it keeps (server.max-sessions); close a connection"
                + " or wait for idle sessions to expire");
      }
      return new ClientSession(k.substring(0, 16), new Session(principal, defaultCatalog, null, ZoneOffset.UTC));
    });
    session.used();
    return session;
  }

  /** How long a session lives without a call. */
  public Duration idleTimeout() {
    return idleTimeout;
  }

  /** New sessions refused since start for {@code server.max-sessions}. */
  public long refused() {
    return refused.get();
  }

  /** The live sessions, for {@code system.runtime.sessions}. */
  public List<ClientSession> all() {
    return List.copyOf(sessions.asMap().values());
  }

  /** The sessions by key, for the server's metrics (hits, misses, live sessions). */
  public Cache<String, ClientSession> cache() {
    return sessions;
  }

  public void close(String credential, String connection, Principal principal) {
    ClientSession session = sessions.asMap().remove(key(credential, connection, principal));
    if (session != null) {
      // At once, rather than when the removal listener gets to it: the client may look next.
      session.close();
    }
  }

  /** The live session with that id (as {@code system.runtime.sessions} shows it), if there is one. */
  public Optional<ClientSession> find(String id) {
    return sessions.asMap().values().stream().filter(session -> session.id().equals(id)).findFirst();
  }

  /** Ends the session with that id, rolling back its transactions; its client's next call starts a new one. */
  public boolean close(ClientSession session) {
    boolean removed = sessions.asMap().values().remove(session);
    session.close();
    return removed;
  }

  private static String key(String credential, String connection, Principal principal) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      digest.update(principal.user().getBytes(StandardCharsets.UTF_8));
      digest.update((byte) 0);
      digest.update(String.valueOf(credential).getBytes(StandardCharsets.UTF_8));
      digest.update((byte) 0);
      digest.update(String.valueOf(connection).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}

package io.sqe.catalog;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import org.apache.iceberg.catalog.SessionCatalog;
import org.apache.iceberg.rest.auth.OAuth2Properties;

/**
 * The user on whose behalf the catalog calls of the current thread are made, for catalogs that
 * pass the user's own token through ({@code catalog.rest.pass-through-token}). The server sets it
 * for the length of each call of a user who logged in with an identity provider's token; other
 * catalogs ignore it, and without it a pass-through catalog uses its own configured credentials.
 */
public final class CatalogCredentials {
  private static final ThreadLocal<SessionCatalog.SessionContext> CURRENT = new ThreadLocal<>();

  private CatalogCredentials() {}

  /** Makes catalog calls of this thread carry {@code token} for {@code user} until the scope closes. */
  public static Scope use(String user, String token) {
    requireNonNull(user, "user is null");
    requireNonNull(token, "token is null");
    // The session id keys Iceberg's per-session caches (auth sessions, loaded tables): one per
    // token, so no user, and no later token of the same user, rides on another's session.
    SessionCatalog.SessionContext context =
        new SessionCatalog.SessionContext(sessionId(token), user, Map.of(OAuth2Properties.TOKEN, token), Map.of());
    return enter(context);
  }

  /** The current caller's context; null when calls use the catalog's own credentials. */
  public static SessionCatalog.SessionContext current() {
    return CURRENT.get();
  }

  /** {@code task} as a task that runs with the caller of this moment, on whatever thread runs it. */
  public static Runnable carry(Runnable task) {
    requireNonNull(task, "task is null");
    SessionCatalog.SessionContext captured = CURRENT.get();
    if (captured == null) {
      return task;
    }
    return () -> {
      try (Scope ignored = enter(captured)) {
        task.run();
      }
    };
  }

  private static Scope enter(SessionCatalog.SessionContext context) {
    SessionCatalog.SessionContext previous = CURRENT.get();
    CURRENT.set(context);
    return () -> {
      if (previous == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(previous);
      }
    };
  }

  private static String sessionId(String token) {
    try {
      return "sqe-" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Restores the previous caller when closed. */
  public interface Scope extends AutoCloseable {
    /** A scope that changes nothing. */
    Scope NONE = () -> {};

    @Override
    void close();
  }
}

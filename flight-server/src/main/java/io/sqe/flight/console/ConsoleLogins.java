package io.sqe.flight.console;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.sqe.engine.session.Principal;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * The web console's logins: each a random id the browser keeps in an HttpOnly, SameSite=Strict
 * cookie, and the server keeps with the user and a CSRF token until it is unused for {@link #IDLE},
 * {@link #LIFETIME} has passed, or its user logs out. Nothing in the cookie is the user's credential.
 */
final class ConsoleLogins {
  static final String COOKIE = "sqe_console";
  /** How long an unused login lasts. */
  static final Duration IDLE = Duration.ofMinutes(30);
  /** How long a login lasts at most: an open page polls every second, which alone would keep it forever. */
  static final Duration LIFETIME = Duration.ofHours(8);
  /** At most this many logins are kept; the least recently used go first. */
  private static final int MAX_LOGINS = 10_000;
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A logged-in user of the console and the token its forms must send back. */
  record Login(String id, Principal principal, String csrfToken) {
    Login {
      requireNonNull(id, "id is null");
      requireNonNull(principal, "principal is null");
      requireNonNull(csrfToken, "csrfToken is null");
    }

    /** Whether a form's token is this login's, compared in constant time. */
    boolean csrfMatches(String token) {
      return token != null && MessageDigest.isEqual(csrfToken.getBytes(UTF_8), token.getBytes(UTF_8));
    }
  }

  private final Cache<String, Login> logins;

  ConsoleLogins() {
    this(Ticker.systemTicker());
  }

  /** @param ticker the clock the logins expire by */
  ConsoleLogins(Ticker ticker) {
    logins = Caffeine.newBuilder()
        .ticker(requireNonNull(ticker, "ticker is null"))
        .expireAfterAccess(IDLE)
        .expireAfterWrite(LIFETIME)
        .maximumSize(MAX_LOGINS)
        .build();
  }

  Login start(Principal principal) {
    Login login = new Login(randomToken(), principal, randomToken());
    logins.put(login.id(), login);
    return login;
  }

  /** The login whose id the request's {@code Cookie} headers carry, if it is still kept. */
  Optional<Login> find(List<String> cookieHeaders) {
    return cookie(cookieHeaders).map(logins::getIfPresent);
  }

  void end(Login login) {
    logins.invalidate(login.id());
  }

  /**
   * The {@code Set-Cookie} value that hands a login to the browser.
   *
   * @param secure whether the browser reached the console over HTTPS (then the cookie only travels so)
   */
  static String setCookie(Login login, boolean secure) {
    return COOKIE + "=" + login.id() + "; Path=/ui; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
  }

  /** The {@code Set-Cookie} value that makes the browser drop its login. */
  static String clearCookie() {
    return COOKIE + "=; Path=/ui; Max-Age=0; HttpOnly; SameSite=Strict";
  }

  private static Optional<String> cookie(List<String> headers) {
    if (headers == null) {
      return Optional.empty();
    }
    for (String header : headers) {
      for (String pair : header.split(";")) {
        int eq = pair.indexOf('=');
        if (eq > 0 && pair.substring(0, eq).trim().equals(COOKIE)) {
          String value = pair.substring(eq + 1).trim();
          return value.isEmpty() ? Optional.empty() : Optional.of(value);
        }
      }
    }
    return Optional.empty();
  }

  /** 256 random bits, URL-safe. */
  private static String randomToken() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}

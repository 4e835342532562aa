package io.sqe.flight.auth;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of local authentication: the directory holding {@value #USERS_FILE} and {@value
 * #SIGNING_KEYS_FILE}, the lifetime and issuer of server tokens, the PBKDF2 iteration count for
 * new password hashes, and how often the users file is checked for changes made elsewhere.
 */
public record AuthConfig(
    Path stateDirectory,
    Duration tokenLifetime,
    String issuer,
    int passwordIterations,
    Duration usersRefreshPeriod,
    Duration passwordCacheTtl) {
  public static final String USERS_FILE = "users.json";
  public static final String SIGNING_KEYS_FILE = "signing-keys.jwks";
  public static final Duration DEFAULT_USERS_REFRESH_PERIOD = Duration.ofSeconds(1);
  public static final Duration DEFAULT_PASSWORD_CACHE_TTL = Duration.ofMinutes(5);

  public AuthConfig {
    requireNonNull(stateDirectory, "stateDirectory is null");
    requireNonNull(tokenLifetime, "tokenLifetime is null");
    requireNonNull(issuer, "issuer is null");
    requireNonNull(usersRefreshPeriod, "usersRefreshPeriod is null");
    requireNonNull(passwordCacheTtl, "passwordCacheTtl is null");
    checkArgument(!issuer.isBlank(), "Token issuer is blank");
    checkArgument(!passwordCacheTtl.isNegative(), "Invalid password cache lifetime: %s", passwordCacheTtl);
    checkArgument(!usersRefreshPeriod.isNegative(), "Invalid users refresh period: %s", usersRefreshPeriod);
    TokenService.checkLifetime(tokenLifetime);
    UserStore.checkIterations(passwordIterations);
  }

  /** As the canonical constructor, remembering verified passwords for 5 minutes. */
  public AuthConfig(Path stateDirectory, Duration tokenLifetime, String issuer, int passwordIterations, Duration usersRefreshPeriod) {
    this(stateDirectory, tokenLifetime, issuer, passwordIterations, usersRefreshPeriod, DEFAULT_PASSWORD_CACHE_TTL);
  }

  /** As the canonical constructor, checking the users file for changes every second. */
  public AuthConfig(Path stateDirectory, Duration tokenLifetime, String issuer, int passwordIterations) {
    this(stateDirectory, tokenLifetime, issuer, passwordIterations, DEFAULT_USERS_REFRESH_PERIOD);
  }

  /** Defaults for everything but the directory: 1 hour tokens, issuer "sqe", 210,000 iterations, 1 s refresh. */
  public static AuthConfig defaults(Path stateDirectory) {
    return new AuthConfig(
        stateDirectory,
        TokenService.DEFAULT_LIFETIME,
        TokenService.DEFAULT_ISSUER,
        UserStore.DEFAULT_ITERATIONS);
  }

  public Path usersFile() {
    return stateDirectory.resolve(USERS_FILE);
  }

  public Path signingKeysFile() {
    return stateDirectory.resolve(SIGNING_KEYS_FILE);
  }
}

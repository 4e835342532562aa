package io.sqe.flight.auth;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of local authentication: the directory holding {@value #USERS_FILE} and {@value
 * #SIGNING_KEYS_FILE}, the lifetime and issuer of server tokens, and the PBKDF2 iteration count for
 * new password hashes.
 */
public record AuthConfig(
    Path stateDirectory, Duration tokenLifetime, String issuer, int passwordIterations) {
  public static final String USERS_FILE = "users.json";
  public static final String SIGNING_KEYS_FILE = "signing-keys.jwks";

  public AuthConfig {
    requireNonNull(stateDirectory, "stateDirectory is null");
    requireNonNull(tokenLifetime, "tokenLifetime is null");
    requireNonNull(issuer, "issuer is null");
    checkArgument(!issuer.isBlank(), "Token issuer is blank");
    TokenService.checkLifetime(tokenLifetime);
    UserStore.checkIterations(passwordIterations);
  }

  /** Defaults for everything but the directory: 1 hour tokens, issuer "sqe", 210,000 iterations. */
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

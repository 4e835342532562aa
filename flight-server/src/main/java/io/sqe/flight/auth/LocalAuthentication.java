package io.sqe.flight.auth;

import static java.util.Objects.requireNonNull;

import io.sqe.flight.audit.AuditLog;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The local authentication stack built from an {@link AuthConfig}: user store, token service and
 * the Flight authenticator that combines them, plus the generated admin password on first start.
 */
public final class LocalAuthentication {
  private final UserStore users;
  private final TokenService tokens;
  private final SqeAuthenticator authenticator;
  private final String bootstrapAdminPassword;

  private LocalAuthentication(
      UserStore users, TokenService tokens, SqeAuthenticator authenticator, String bootstrapAdminPassword) {
    this.users = users;
    this.tokens = tokens;
    this.authenticator = authenticator;
    this.bootstrapAdminPassword = bootstrapAdminPassword;
  }

  /**
   * Opens (or on first start creates) the user store and signing keys in the state directory. If
   * the store has no users, creates {@value UserStore#ADMIN_USER} with a random password, available
   * once from {@link #bootstrapAdminPassword()}.
   */
  public static LocalAuthentication create(AuthConfig config) throws IOException {
    return create(config, null, new LoginThrottle(5, Duration.ofMinutes(1), Clock.systemUTC()));
  }

  /**
   * As {@link #create(AuthConfig)}, with an identity provider whose tokens are accepted too (null
   * for none) and the throttle for failed logins.
   */
  public static LocalAuthentication create(AuthConfig config, OidcProvider oidc, LoginThrottle throttle)
      throws IOException {
    return create(config, oidc, throttle, AuditLog.disabled());
  }

  /** As above, recording login attempts in {@code audit}. */
  public static LocalAuthentication create(AuthConfig config, OidcProvider oidc, LoginThrottle throttle, AuditLog audit)
      throws IOException {
    requireNonNull(config, "config is null");
    PrivateFiles.createDirectories(config.stateDirectory());
    UserStore users = UserStore.open(
        config.usersFile(), config.passwordIterations(), config.usersRefreshPeriod(), config.passwordCacheTtl());
    TokenService tokens =
        TokenService.open(config.signingKeysFile(), config.issuer(), config.tokenLifetime());
    SqeAuthenticator authenticator = new SqeAuthenticator(users, tokens, oidc, throttle, Clock.systemUTC(), audit);
    return new LocalAuthentication(users, tokens, authenticator, users.bootstrapAdmin().orElse(null));
  }

  public UserStore users() {
    return users;
  }

  public TokenService tokens() {
    return tokens;
  }

  /** The authenticator for {@code FlightServer.Builder.headerAuthenticator}. */
  public SqeAuthenticator authenticator() {
    return authenticator;
  }

  /**
   * The password of the admin user created by this start, for the caller to show once; empty when
   * the store already had users. Not part of {@link #toString()}.
   */
  public Optional<String> bootstrapAdminPassword() {
    return Optional.ofNullable(bootstrapAdminPassword);
  }

  @Override
  public String toString() {
    return "LocalAuthentication[users=" + users.file() + "]";
  }
}

package io.sqe.flight.auth;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.session.Principal;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Set;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.auth2.Auth2Constants;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator.AuthResult;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqeAuthenticatorTest {
  private static final String PASSWORD = "pw-Alice:with:colons";

  @TempDir Path dir;
  private UserStore users;
  private TokenService tokens;
  private SqeAuthenticator authenticator;

  @BeforeEach
  void setUp() throws IOException {
    users = UserStore.open(dir.resolve("users.json"), UserStore.MIN_ITERATIONS);
    users.addUser("alice", PASSWORD.toCharArray(), Set.of("analyst"));
    tokens = TokenService.open(dir.resolve("keys.jwks"), "sqe", Duration.ofHours(1));
    authenticator = new SqeAuthenticator(users, tokens);
  }

  @Test
  void basicCredentialsYieldABearerToken() throws Exception {
    AuthResult result = authenticator.authenticate(headers(basic("alice", PASSWORD)));

    assertThat(result.getPeerIdentity()).isEqualTo("alice");
    CallHeaders outgoing = new FlightCallHeaders();
    result.appendToOutgoingHeaders(outgoing);
    String authorization = outgoing.get(Auth2Constants.AUTHORIZATION_HEADER);
    assertThat(authorization).startsWith("Bearer ");
    String token = authorization.substring("Bearer ".length());
    assertThat(tokens.verify(token)).isEqualTo(new Principal("alice", Set.of("analyst")));
    assertThat(result.toString()).doesNotContain(token);
  }

  @Test
  void bearerTokenAuthenticatesWithoutANewToken() {
    String token = tokens.issue(new Principal("alice", Set.of("analyst")), aliceId());
    AuthResult result = authenticator.authenticate(headers("Bearer " + token));

    assertThat(result.getPeerIdentity()).isEqualTo("alice");
    CallHeaders outgoing = new FlightCallHeaders();
    result.appendToOutgoingHeaders(outgoing);
    assertThat(outgoing.keys()).isEmpty();
  }

  @Test
  void schemeIsCaseInsensitive() {
    assertThat(
            authenticator
                .authenticate(headers("basic " + encode("alice:" + PASSWORD)))
                .getPeerIdentity())
        .isEqualTo("alice");
    String token = tokens.issue(Principal.of("alice"), aliceId());
    assertThat(authenticator.authenticate(headers("bearer " + token)).getPeerIdentity())
        .isEqualTo("alice");
  }

  @Test
  void wrongPasswordAndUnknownUserLookTheSame() {
    assertUnauthenticated(
        headers(basic("alice", "wrong-password")), "Invalid username or password");
    assertUnauthenticated(headers(basic("nobody", PASSWORD)), "Invalid username or password");
    assertUnauthenticated(headers(basic("alice", "")), "Invalid username or password");
    assertUnauthenticated(headers(basic("", PASSWORD)), "Invalid username or password");
    assertUnauthenticated(headers("Basic " + encode("alice")), "Invalid username or password");
    assertUnauthenticated(headers("Basic %%%not-base64"), "Invalid username or password");
    assertUnauthenticated(
        headers("Basic " + Base64.getEncoder().encodeToString(new byte[] {'a', ':', (byte) 0xff})),
        "Invalid username or password");
    assertUnauthenticated(
        headers("Basic " + encode("alice:" + "x".repeat(10_000))), "Invalid username or password");
  }

  @Test
  void missingOrUnsupportedCredentials() {
    assertUnauthenticated(new FlightCallHeaders(), "Authentication required");
    assertUnauthenticated(headers("Digest username=\"alice\""), "Authentication required");
    assertUnauthenticated(headers(""), "Authentication required");

    CallHeaders twice = headers(basic("alice", PASSWORD));
    twice.insert(Auth2Constants.AUTHORIZATION_HEADER, basic("alice", PASSWORD));
    assertUnauthenticated(twice, "Authentication required");
  }

  @Test
  void badTokensAreRejected() throws IOException {
    String token = tokens.issue(Principal.of("alice"), aliceId());
    assertUnauthenticated(headers("Bearer "), "Invalid or expired token");
    assertUnauthenticated(headers("Bearer garbage"), "Invalid or expired token");
    assertUnauthenticated(headers("Bearer " + token + "x"), "Invalid or expired token");

    TokenService past =
        TokenService.open(
            dir.resolve("keys.jwks"),
            "sqe",
            Duration.ofHours(1),
            new MutableClock(Instant.now().minus(Duration.ofHours(2))));
    assertUnauthenticated(
        headers("Bearer " + past.issue(Principal.of("alice"), aliceId())), "Invalid or expired token");
  }

  @Test
  void principalHasTheCurrentRoles() throws IOException {
    String peer = authenticator.authenticate(headers(basic("alice", PASSWORD))).getPeerIdentity();
    assertThat(authenticator.principal(peer)).isEqualTo(new Principal("alice", Set.of("analyst")));

    users.setRoles("alice", Set.of("admin"));
    assertThat(authenticator.principal(peer)).isEqualTo(new Principal("alice", Set.of("admin")));
  }

  @Test
  void deletedUsersLoseAccess() throws IOException {
    String token = tokens.issue(Principal.of("alice"), aliceId());
    users.removeUser("alice");

    assertUnauthenticated(headers("Bearer " + token), "Invalid or expired token");
    assertThatThrownBy(() -> authenticator.principal("alice"))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> {
              assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
              assertThat(e.getMessage()).isEqualTo("Authentication required");
            });
  }

  @Test
  void tokensOfADroppedUserStayRefusedWhenTheNameIsCreatedAgain() throws IOException {
    AuthResult login = authenticator.authenticate(headers(basic("alice", PASSWORD)));
    CallHeaders outgoing = new FlightCallHeaders();
    login.appendToOutgoingHeaders(outgoing);
    String token = outgoing.get(Auth2Constants.AUTHORIZATION_HEADER);
    assertThat(authenticator.authenticate(headers(token)).getPeerIdentity()).isEqualTo("alice");

    users.removeUser("alice");
    users.addUser("alice", "the new alice's password".toCharArray(), Set.of("analyst"));
    assertUnauthenticated(headers(token), "Invalid or expired token");
    assertThat(authenticator.authenticate(headers(basic("alice", "the new alice's password"))).getPeerIdentity())
        .isEqualTo("alice");
  }

  @Test
  void aChangedPasswordKeepsTheTokensIssuedBefore() throws IOException {
    AuthResult login = authenticator.authenticate(headers(basic("alice", PASSWORD)));
    CallHeaders outgoing = new FlightCallHeaders();
    login.appendToOutgoingHeaders(outgoing);
    String token = outgoing.get(Auth2Constants.AUTHORIZATION_HEADER);

    users.setPassword("alice", "a new password".toCharArray());
    assertThat(authenticator.authenticate(headers(token)).getPeerIdentity()).isEqualTo("alice");
    assertUnauthenticated(headers(basic("alice", PASSWORD)), "Invalid username or password");
  }

  private String aliceId() {
    return users.account("alice").orElseThrow().id();
  }

  private void assertUnauthenticated(CallHeaders headers, String message) {
    String authorization = headers.get(Auth2Constants.AUTHORIZATION_HEADER);
    assertThatThrownBy(() -> authenticator.authenticate(headers))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> {
              assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
              assertThat(e.status().description()).isEqualTo(message);
              assertThat(e.getMessage()).isEqualTo(message);
            })
        .satisfies(
            e -> {
              if (authorization != null && authorization.length() > 8) {
                assertThat(e.getMessage()).doesNotContain(authorization.substring(7));
              }
            });
  }

  private static CallHeaders headers(String authorization) {
    CallHeaders headers = new FlightCallHeaders();
    headers.insert(Auth2Constants.AUTHORIZATION_HEADER, authorization);
    return headers;
  }

  private static String basic(String user, String password) {
    return "Basic " + encode(user + ":" + password);
  }

  private static String encode(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(UTF_8));
  }
}

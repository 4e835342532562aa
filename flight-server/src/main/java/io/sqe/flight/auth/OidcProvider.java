package io.sqe.flight.auth;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import io.sqe.engine.session.Principal;
import io.sqe.flight.config.ServerConfig.OidcSettings;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OpenID Connect identity provider: verifies its access tokens with Nimbus JOSE against the
 * keys it publishes (JWKS, discovered from {@code <issuer>/.well-known/openid-configuration},
 * cached, and fetched again when a token names an unknown key id, so keys rotate without a
 * restart), and exchanges a user's password for a token (password grant) where configured.
 *
 * <p>A token must be signed with one of the configured asymmetric algorithms (so {@code none} and
 * HMAC keyed with a public key never verify), have exactly the configured issuer, name one of the
 * configured audiences, and be within its {@code exp} and {@code nbf} give or take the clock skew.
 * The user is the configured claim ({@code sub} where a token lacks it); roles come from the
 * configured claims, which may be nested ({@code realm_access.roles}) and hold a string or a list.
 */
public final class OidcProvider {
  private static final Logger LOG = LoggerFactory.getLogger(OidcProvider.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration DISCOVERY_RETRY = Duration.ofSeconds(10);
  private static final int JWKS_SIZE_LIMIT = 256 * 1024;

  private final OidcSettings settings;
  private final Clock clock;
  private final HttpClient http;
  private final Object lock = new Object();
  private volatile Endpoints endpoints;
  private volatile DefaultJWTProcessor<SecurityContext> processor;
  private Instant lastDiscoveryFailure = Instant.MIN;

  /** What a verified token says. */
  public record Identity(Principal principal, Instant expiresAt) {}

  /** Thrown when a token or a password is refused; the message is safe to log, never to echo. */
  public static final class RejectedException extends Exception {
    private static final long serialVersionUID = 1L;

    RejectedException(String reason, Throwable cause) {
      super(reason, cause);
    }
  }

  /** Thrown when the identity provider cannot be reached or answers nonsense. */
  public static final class UnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    UnavailableException(String reason, Throwable cause) {
      super(reason, cause);
    }
  }

  private record Endpoints(URI jwks, URI token) {}

  public OidcProvider(OidcSettings settings, Clock clock) {
    this.settings = requireNonNull(settings, "settings is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).followRedirects(HttpClient.Redirect.NEVER).build();
  }

  public OidcSettings settings() {
    return settings;
  }

  /** Looks the provider up now, so a misconfiguration shows in the log at start; failures are retried later. */
  public void discoverEagerly() {
    try {
      processor();
    } catch (UnavailableException e) {
      LOG.warn("OpenID provider {} is not reachable yet ({}); will retry on the first login", settings.issuer(), e.getMessage());
    }
  }

  /** Verifies an access token and returns who it names. */
  public Identity verify(String token) throws RejectedException, UnavailableException {
    JWTClaimsSet claims;
    try {
      claims = processor().process(token, null);
    } catch (ParseException e) {
      throw new RejectedException("not a JWT", e);
    } catch (BadJOSEException e) {
      throw new RejectedException(e.getMessage(), e);
    } catch (RateLimitReachedException e) {
      // An unknown key id, and the keys were fetched again too recently to look for it once more.
      throw new RejectedException("no known signing key matches the token", e);
    } catch (JOSEException e) {
      // Key retrieval failed: the provider is down, or the JWKS refresh is rate limited (unknown kid flood).
      throw new UnavailableException("cannot get the provider's signing keys: " + e.getMessage(), e);
    }
    Instant expiresAt = claims.getExpirationTime().toInstant();
    return new Identity(new Principal(user(claims), roles(claims)), expiresAt);
  }

  /**
   * Exchanges a user's name and password for an access token at the provider's token endpoint
   * (OAuth 2.0 password grant).
   */
  public String passwordGrant(String user, char[] password) throws RejectedException, UnavailableException {
    if (!settings.passwordGrant()) {
      throw new IllegalStateException("No client is configured for the password grant");
    }
    URI tokenEndpoint = endpoints().token();
    if (tokenEndpoint == null) {
      throw new UnavailableException("the provider advertises no token endpoint", null);
    }
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "password");
    form.put("username", user);
    form.put("password", new String(password));
    form.put("client_id", settings.clientId());
    if (settings.clientSecret() != null) {
      form.put("client_secret", settings.clientSecret());
    }
    form.put("scope", settings.scopes());
    String body =
        form.entrySet().stream()
            .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
            .collect(Collectors.joining("&"));
    HttpRequest request =
        HttpRequest.newBuilder(tokenEndpoint)
            .timeout(HTTP_TIMEOUT)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<String> response = send(request);
    if (response.statusCode() == 400 || response.statusCode() == 401) {
      throw new RejectedException("the provider refused the password grant (HTTP " + response.statusCode() + ")", null);
    }
    if (response.statusCode() != 200) {
      throw new UnavailableException("the token endpoint answered HTTP " + response.statusCode(), null);
    }
    JsonNode answer = parse(response.body(), "token endpoint");
    JsonNode accessToken = answer.get("access_token");
    if (accessToken == null || !accessToken.isTextual()) {
      throw new UnavailableException("the token endpoint's answer has no access_token", null);
    }
    return accessToken.asText();
  }

  private DefaultJWTProcessor<SecurityContext> processor() throws UnavailableException {
    DefaultJWTProcessor<SecurityContext> current = processor;
    if (current != null) {
      return current;
    }
    synchronized (lock) {
      if (processor == null) {
        processor = newProcessor(endpoints().jwks());
      }
      return processor;
    }
  }

  private Endpoints endpoints() throws UnavailableException {
    Endpoints current = endpoints;
    if (current != null) {
      return current;
    }
    synchronized (lock) {
      if (endpoints != null) {
        return endpoints;
      }
      if (settings.jwksUri() != null && (settings.tokenEndpoint() != null || !settings.passwordGrant())) {
        endpoints = new Endpoints(settings.jwksUri(), settings.tokenEndpoint());
        return endpoints;
      }
      Instant now = clock.instant();
      if (lastDiscoveryFailure.plus(DISCOVERY_RETRY).isAfter(now)) {
        throw new UnavailableException("the provider's discovery document could not be read recently", null);
      }
      try {
        endpoints = discover();
        return endpoints;
      } catch (UnavailableException e) {
        lastDiscoveryFailure = now;
        throw e;
      }
    }
  }

  private Endpoints discover() throws UnavailableException {
    String issuer = settings.issuer().toString();
    URI uri = URI.create((issuer.endsWith("/") ? issuer : issuer + "/") + ".well-known/openid-configuration");
    HttpResponse<String> response =
        send(HttpRequest.newBuilder(uri).timeout(HTTP_TIMEOUT).header("Accept", "application/json").GET().build());
    if (response.statusCode() != 200) {
      throw new UnavailableException("discovery at " + uri + " answered HTTP " + response.statusCode(), null);
    }
    JsonNode document = parse(response.body(), "discovery document");
    String advertised = document.path("issuer").asText("");
    if (!advertised.equals(issuer)) {
      throw new UnavailableException("the discovery document names issuer '" + advertised + "', not '" + issuer + "'", null);
    }
    URI jwks = settings.jwksUri() != null ? settings.jwksUri() : textUri(document, "jwks_uri");
    if (jwks == null) {
      throw new UnavailableException("the discovery document has no jwks_uri", null);
    }
    URI token = settings.tokenEndpoint() != null ? settings.tokenEndpoint() : textUri(document, "token_endpoint");
    return new Endpoints(jwks, token);
  }

  private DefaultJWTProcessor<SecurityContext> newProcessor(URI jwks) throws UnavailableException {
    JWKSource<SecurityContext> keys;
    try {
      int timeoutMillis = (int) HTTP_TIMEOUT.toMillis();
      keys =
          JWKSourceBuilder.<SecurityContext>create(
                  jwks.toURL(), new DefaultResourceRetriever(timeoutMillis, timeoutMillis, JWKS_SIZE_LIMIT))
              .retrying(true)
              .rateLimited(settings.jwksMinRefresh().toMillis())
              .build();
    } catch (MalformedURLException e) {
      throw new UnavailableException("bad jwks_uri " + jwks, e);
    }
    Set<JWSAlgorithm> algorithms = settings.algorithms().stream().map(JWSAlgorithm::parse).collect(Collectors.toSet());
    DefaultJWTProcessor<SecurityContext> result = new DefaultJWTProcessor<>();
    result.setJWSKeySelector(new JWSVerificationKeySelector<>(algorithms, keys));
    result.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(JOSEObjectType.JWT, new JOSEObjectType("at+jwt"), null));
    DefaultJWTClaimsVerifier<SecurityContext> claims =
        new DefaultJWTClaimsVerifier<>(
            settings.audiences(),
            new JWTClaimsSet.Builder().issuer(settings.issuer().toString()).build(),
            Set.of("sub", "exp"),
            null) {
          @Override
          protected java.util.Date currentTime() {
            return java.util.Date.from(clock.instant());
          }
        };
    claims.setMaxClockSkew((int) settings.clockSkew().toSeconds());
    result.setJWTClaimsSetVerifier(claims);
    return result;
  }

  private String user(JWTClaimsSet claims) throws RejectedException {
    Object named = claims.getClaim(settings.userClaim());
    String user = named instanceof String && !((String) named).isBlank() ? (String) named : claims.getSubject();
    if (user == null || user.isBlank()) {
      throw new RejectedException("the token names no user", null);
    }
    return user;
  }

  private Set<String> roles(JWTClaimsSet claims) {
    Set<String> roles = new LinkedHashSet<>();
    for (String path : settings.roleClaims()) {
      Object value = claims.getClaims();
      for (String part : path.split("\\.")) {
        value = value instanceof Map ? ((Map<?, ?>) value).get(part) : null;
      }
      if (value instanceof String) {
        roles.add((String) value);
      } else if (value instanceof Collection) {
        for (Object role : (Collection<?>) value) {
          if (role instanceof String) {
            roles.add((String) role);
          }
        }
      }
    }
    return roles;
  }

  private HttpResponse<String> send(HttpRequest request) throws UnavailableException {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UnavailableException("cannot reach " + request.uri().getHost() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UnavailableException("interrupted", e);
    }
  }

  private static JsonNode parse(String body, String what) throws UnavailableException {
    try {
      JsonNode node = JSON.readTree(body);
      if (node == null || !node.isObject()) {
        throw new UnavailableException("the " + what + " is not a JSON object", null);
      }
      return node;
    } catch (IOException e) {
      throw new UnavailableException("the " + what + " is not JSON", e);
    }
  }

  private static URI textUri(JsonNode document, String field) {
    JsonNode value = document.get(field);
    return value == null || !value.isTextual() ? null : URI.create(value.asText());
  }
}

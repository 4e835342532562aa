package io.sqe.flight.console;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** A browser's part in the console's HTTP exchanges: its cookie, and the forms' CSRF token read from a page. */
final class ConsoleClient {
  private static final HttpClient HTTP = client().build();
  private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");

  private final String scheme;
  private final int port;
  private final HttpClient http;
  private String cookie;

  ConsoleClient(int port) {
    this("http", port, HTTP);
  }

  /** A browser speaking {@code scheme} (http or https) through {@code http}, which decides whom it trusts. */
  ConsoleClient(String scheme, int port, HttpClient http) {
    this.scheme = scheme;
    this.port = port;
    this.http = http;
  }

  /** An HTTP client that follows no redirect, as the console's exchanges are checked one by one. */
  static HttpClient.Builder client() {
    return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER);
  }

  /** Logs in with the form; returns the answer, keeping the cookie it sets. */
  HttpResponse<String> logIn(String user, String password) throws Exception {
    HttpResponse<String> answer = post("/ui/login", Map.of("user", user, "password", password));
    answer.headers().firstValue("Set-Cookie").ifPresent(set -> cookie = set.substring(0, set.indexOf(';')));
    return answer;
  }

  HttpResponse<String> get(String path) throws Exception {
    return send(request(path).GET());
  }

  HttpResponse<String> getWithToken(String path, String token) throws Exception {
    return send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + token).GET());
  }

  HttpResponse<String> post(String path, Map<String, String> form) throws Exception {
    String body = form.entrySet().stream()
        .map(e -> URLEncoder.encode(e.getKey(), UTF_8) + "=" + URLEncoder.encode(e.getValue(), UTF_8))
        .collect(Collectors.joining("&"));
    return send(request(path).header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  /** Posts a form with the CSRF token of the page the console shows at {@code page}, as a browser would. */
  HttpResponse<String> submit(String page, String action, Map<String, String> fields) throws Exception {
    Matcher token = CSRF.matcher(get(page).body());
    if (!token.find()) {
      throw new AssertionError("No form token on " + page);
    }
    Map<String, String> form = new LinkedHashMap<>(fields);
    form.put("csrf", token.group(1));
    return post(action, form);
  }

  String cookie() {
    return cookie;
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30));
    if (cookie != null) {
      request.header("Cookie", cookie);
    }
    return request;
  }

  private URI uri(String path) {
    return URI.create(scheme + "://127.0.0.1:" + port + path);
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}

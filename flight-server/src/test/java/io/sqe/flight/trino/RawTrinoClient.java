package io.sqe.flight.trino;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Trino's protocol spoken by hand over Java's HTTP client, for what the real clients hide: status
 * codes, headers, tokens of nextUri, the JSON of errors.
 */
final class RawTrinoClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final String baseUri;

  RawTrinoClient(String baseUri, Path caCertificate) throws Exception {
    this.baseUri = baseUri;
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(caCertificate)) {
      Certificate ca = CertificateFactory.getInstance("X.509").generateCertificate(in);
      trust.setCertificateEntry("ca", ca);
    }
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, factory.getTrustManagers(), null);
    this.http = HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(10)).build();
  }

  /** One HTTP exchange: the status, headers and body (JSON when it parses as such). */
  record Response(int status, Map<String, List<String>> headers, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new IllegalStateException("Not JSON: " + body, e);
      }
    }

    List<String> header(String name) {
      for (Map.Entry<String, List<String>> entry : headers.entrySet()) {
        if (entry.getKey().equalsIgnoreCase(name)) {
          return entry.getValue();
        }
      }
      return List.of();
    }
  }

  static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  Response post(String sql, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUri + "/v1/statement"))
        .POST(HttpRequest.BodyPublishers.ofString(sql));
    headers.forEach(request::header);
    return send(request.build());
  }

  Response get(String uri, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri)).GET();
    headers.forEach(request::header);
    return send(request.build());
  }

  Response delete(String uri, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri)).DELETE();
    headers.forEach(request::header);
    return send(request.build());
  }

  /** Every response of a statement, following nextUri until there is none. */
  List<Response> run(String sql, Map<String, String> headers) throws Exception {
    List<Response> responses = new ArrayList<>();
    Response response = post(sql, headers);
    responses.add(response);
    while (response.status() == 200 && response.json().hasNonNull("nextUri")) {
      response = get(response.json().get("nextUri").asText(), headers);
      responses.add(response);
    }
    return responses;
  }

  private Response send(HttpRequest request) throws Exception {
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    return new Response(response.statusCode(), response.headers().map(), response.body());
  }
}

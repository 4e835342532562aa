package io.sqe.engine.sql.functions;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.sql.SqlOperator;

/** Trino's URL functions: parts of an RFC 2396 URL (NULL when it does not parse), and form encoding. */
public final class UrlFunctions {
  /** The functions, for SQE's operator table. */
  public static final List<SqlOperator> ALL = build();

  private UrlFunctions() {}

  private static List<SqlOperator> build() {
    List<SqlOperator> all = new ArrayList<>();
    for (String name : List.of("url_extract_host", "url_extract_port", "url_extract_path", "url_extract_query",
        "url_extract_fragment", "url_extract_protocol", "url_extract_parameter", "url_encode", "url_decode")) {
      all.addAll(JavaFunctions.scalar(name, UrlFunctions.class, MathFunctions.camel(name)));
    }
    return List.copyOf(all);
  }

  private static URI parse(String url) {
    try {
      return new URI(url);
    } catch (URISyntaxException e) {
      return null;
    }
  }

  // ---- called from generated code

  @Strict
  public static String urlExtractHost(String url) {
    URI uri = parse(url);
    return uri == null ? null : uri.getHost();
  }

  @Strict
  public static Long urlExtractPort(String url) {
    URI uri = parse(url);
    return uri == null || uri.getPort() < 0 ? null : (long) uri.getPort();
  }

  @Strict
  public static String urlExtractPath(String url) {
    URI uri = parse(url);
    return uri == null ? null : uri.getRawPath();
  }

  @Strict
  public static String urlExtractQuery(String url) {
    URI uri = parse(url);
    return uri == null ? null : uri.getRawQuery();
  }

  @Strict
  public static String urlExtractFragment(String url) {
    URI uri = parse(url);
    return uri == null ? null : uri.getRawFragment();
  }

  @Strict
  public static String urlExtractProtocol(String url) {
    URI uri = parse(url);
    return uri == null ? null : uri.getScheme();
  }

  /** The first value of query parameter {@code name}; "" for a parameter without '='. */
  @Strict
  public static String urlExtractParameter(String url, String name) {
    URI uri = parse(url);
    if (uri == null || uri.getRawQuery() == null) {
      return null;
    }
    for (String pair : uri.getRawQuery().split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      if (key.equals(name)) {
        return eq < 0 ? "" : pair.substring(eq + 1);
      }
    }
    return null;
  }

  @Strict
  public static String urlEncode(DataContext root, String value) {
    BoundedFunctions.check(root, encodedLength(value), "url_encode");
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  /**
   * The length of {@code value} URL-encoded: a character as it is or three per byte of its UTF-8
   * (a surrogate counts as half of its code point's four bytes).
   */
  private static long encodedLength(String value) {
    long length = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x80) {
        length += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || ".-*_ ".indexOf(c) >= 0 ? 1 : 3;
      } else {
        length += c < 0x800 ? 6 : Character.isSurrogate(c) ? 6 : 9;
      }
    }
    return length;
  }

  @Strict
  public static String urlDecode(String value) {
    try {
      return URLDecoder.decode(value, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot decode URL value: " + e.getMessage());
    }
  }
}

package io.sqe.engine.sql.functions;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.sql.SqlOperator;

/**
 * Trino's JSON functions over JSON text (SQE has no JSON type: a JSON value is VARCHAR holding
 * compact JSON with object keys sorted, as Trino's json_parse writes it). Paths are Trino's
 * json_extract paths: {@code $}, {@code .name}, {@code ["name"]} and {@code [index]}.
 */
public final class JsonFunctions {
  /** The functions, for SQE's operator table. */
  public static final List<SqlOperator> ALL = build();

  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .build();

  private JsonFunctions() {}

  private static List<SqlOperator> build() {
    List<SqlOperator> all = new ArrayList<>();
    for (String name : List.of("json_parse", "json_format", "json_extract", "json_extract_scalar", "json_array_length",
        "json_array_get", "json_array_contains", "json_size", "is_json_scalar")) {
      all.addAll(JavaFunctions.scalar(name, JsonFunctions.class, MathFunctions.camel(name)));
    }
    return List.copyOf(all);
  }

  private static JsonNode read(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  private static String write(JsonNode node) {
    try {
      // A tree's object keys keep their order; sorting them through a map gives Trino's canonical text.
      return JSON.writeValueAsString(JSON.treeToValue(node, Object.class));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot write JSON: " + e.getOriginalMessage());
    }
  }

  /** The node at Trino's json_extract path, or null when the path leads nowhere. */
  private static JsonNode at(JsonNode root, String path) {
    String p = path.trim();
    if (!p.startsWith("$")) {
      throw new IllegalArgumentException("Invalid JSON path: '" + path + "'");
    }
    JsonNode node = root;
    int i = 1;
    while (i < p.length() && node != null) {
      char c = p.charAt(i);
      if (c == '.') {
        int end = i + 1;
        while (end < p.length() && p.charAt(end) != '.' && p.charAt(end) != '[') {
          end++;
        }
        if (end == i + 1) {
          throw new IllegalArgumentException("Invalid JSON path: '" + path + "'");
        }
        node = node.isObject() ? node.get(p.substring(i + 1, end)) : null;
        i = end;
      } else if (c == '[') {
        int end = p.indexOf(']', i);
        if (end < 0) {
          throw new IllegalArgumentException("Invalid JSON path: '" + path + "'");
        }
        String key = p.substring(i + 1, end).trim();
        if (key.length() >= 2 && (key.startsWith("\"") && key.endsWith("\"") || key.startsWith("'") && key.endsWith("'"))) {
          node = node.isObject() ? node.get(key.substring(1, key.length() - 1)) : null;
        } else {
          int index;
          try {
            index = Integer.parseInt(key);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid JSON path: '" + path + "'");
          }
          node = node.isArray() ? node.get(index) : null;
        }
        i = end + 1;
      } else {
        throw new IllegalArgumentException("Invalid JSON path: '" + path + "'");
      }
    }
    return node;
  }

  // ---- called from generated code

  @Strict
  public static String jsonParse(String text) {
    try {
      return write(JSON.readTree(text));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot convert value to JSON: '" + text + "'");
    }
  }

  @Strict
  public static String jsonFormat(String json) {
    return jsonParse(json);
  }

  @Strict
  public static String jsonExtract(String json, String path) {
    JsonNode root = read(json);
    JsonNode node = root == null ? null : at(root, path);
    return node == null ? null : write(node);
  }

  @Strict
  public static String jsonExtractScalar(String json, String path) {
    JsonNode root = read(json);
    JsonNode node = root == null ? null : at(root, path);
    return node == null || node.isContainerNode() || node.isNull() ? null : node.asText();
  }

  @Strict
  public static Long jsonArrayLength(String json) {
    JsonNode node = read(json);
    return node != null && node.isArray() ? (long) node.size() : null;
  }

  @Strict
  public static String jsonArrayGet(String json, long index) {
    JsonNode node = read(json);
    if (node == null || !node.isArray()) {
      return null;
    }
    long i = index < 0 ? node.size() + index : index;
    return i < 0 || i >= node.size() ? null : write(node.get((int) i));
  }

  @Strict
  public static Boolean jsonArrayContains(String json, String value) {
    return contains(json, e -> e.isTextual() && e.textValue().equals(value));
  }

  @Strict
  public static Boolean jsonArrayContains(String json, long value) {
    return contains(json, e -> e.isIntegralNumber() && e.canConvertToLong() && e.longValue() == value);
  }

  @Strict
  public static Boolean jsonArrayContains(String json, boolean value) {
    return contains(json, e -> e.isBoolean() && e.booleanValue() == value);
  }

  private static Boolean contains(String json, java.util.function.Predicate<JsonNode> matches) {
    JsonNode node = read(json);
    if (node == null || !node.isArray()) {
      return null;
    }
    for (JsonNode e : node) {
      if (matches.test(e)) {
        return true;
      }
    }
    return false;
  }

  /** The number of members or elements at {@code path}, 0 for a scalar. */
  @Strict
  public static Long jsonSize(String json, String path) {
    JsonNode root = read(json);
    JsonNode node = root == null ? null : at(root, path);
    return node == null ? null : node.isContainerNode() ? (long) node.size() : 0L;
  }

  @Strict
  public static boolean isJsonScalar(String json) {
    JsonNode node = read(json);
    if (node == null) {
      throw new IllegalArgumentException("Invalid JSON value: " + json);
    }
    return !node.isContainerNode();
  }
}

package io.sqe.engine.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.sqe.engine.EmbeddedLake;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Session;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SQE against Trino 476's answers to the cases of dev/trino-reference (answers.tsv, written by a real
 * Trino): the result type, the value (NULLs included) and whether it is an error. Cases where SQE
 * still differs are listed with the reason in differences.tsv; the test fails on any other
 * difference, and on a listed case that now agrees (so the list only shrinks).
 */
class TrinoReferenceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();

  /** One line of answers.tsv. */
  record Case(String id, String sql, String type, String answer) {
    boolean isError() {
      return answer.startsWith("!");
    }
  }

  @Test
  void sqeAnswersAsTrinoDoes() throws IOException {
    QueryEngine engine = lake.engine();
    Session session = EmbeddedLake.session("trino-reference");
    Map<String, String> known = differences();
    List<String> unexpected = new ArrayList<>();
    List<String> nowAgreeing = new ArrayList<>();
    List<String> report = new ArrayList<>();
    int agreeing = 0;
    List<Case> cases = answers();
    for (Case c : cases) {
      String difference = compare(c, engine, session);
      if (difference == null) {
        agreeing++;
        if (known.containsKey(c.id())) {
          nowAgreeing.add(c.id());
        }
      } else {
        report.add(c.id() + "\t" + difference);
        if (!known.containsKey(c.id())) {
          unexpected.add(c.id() + " (" + c.sql() + "): " + difference);
        }
      }
    }
    Path out = Path.of("target", "trino-reference-differences.tsv");
    Files.createDirectories(out.getParent());
    Files.write(out, report);
    System.out.printf("Trino reference: %d of %d cases agree; differences in %s%n", agreeing, cases.size(), out.toAbsolutePath());
    assertThat(unexpected).as("cases where SQE differs from Trino and differences.tsv does not say so").isEmpty();
    assertThat(nowAgreeing).as("cases in differences.tsv that now agree with Trino: remove them from the list").isEmpty();
  }

  /** Null when SQE gives Trino's answer; otherwise what differs. */
  private static String compare(Case c, QueryEngine engine, Session session) {
    String type;
    JsonNode value;
    try {
      Prepared prepared = engine.prepare(session, c.sql());
      RelDataType rowType = ((Prepared.Query) prepared).plan().resultType();
      type = trinoTypeName(rowType.getFieldList().get(0).getType());
      try (QueryExecution exec = engine.execute(session, prepared, List.of(), "trino-reference")) {
        if (!exec.next() || exec.root().getRowCount() != 1) {
          return "not one row";
        }
        value = canonical(exec.root().getFieldVectors().get(0), 0);
      }
    } catch (SqeException e) {
      // Trino's errors here are all of a value or an argument, which SQE reports as INVALID_ARGUMENT;
      // a function SQE lacks is a difference even where Trino's call fails.
      String message = firstLine(e.getMessage());
      boolean missing = message.contains("No match found for function signature");
      return c.isError() && e.code() == ErrorCode.INVALID_ARGUMENT && !missing ? null : "error " + e.code() + ": " + message;
    } catch (RuntimeException e) {
      return "exception " + e.getClass().getSimpleName() + ": " + firstLine(String.valueOf(e.getMessage()));
    }
    if (c.isError()) {
      return "no error (Trino: " + c.answer().substring(1) + "), got " + value;
    }
    if (!sameType(c.type(), type)) {
      return "type " + type + ", Trino " + c.type();
    }
    JsonNode expected;
    try {
      expected = JSON.readTree(c.answer());
    } catch (IOException e) {
      throw new IllegalStateException(c.id() + ": bad answer " + c.answer(), e);
    }
    return sameValue(expected, value) ? null : "value " + value + ", Trino " + expected;
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }

  /** Type names compared without lengths, precisions and row field names. */
  private static boolean sameType(String trino, String sqe) {
    return family(trino).equals(family(sqe));
  }

  private static String family(String type) {
    // SQE has no JSON type: JSON values are VARCHAR holding Trino's canonical JSON text (docs/sql.md).
    return type.toLowerCase(Locale.ROOT)
        .replace("json", "varchar")
        .replace(" with time zone", "_tz")
        .replace("interval day to second", "interval_ds")
        .replace("interval year to month", "interval_ym")
        .replaceAll("varchar\\(\\d+\\)", "varchar")
        .replaceAll("char\\(\\d+\\)", "varchar")
        .replaceAll("decimal\\(\\d+,\\s*\\d+\\)", "decimal")
        .replaceAll("(timestamp|time)\\(\\d+\\)", "$1")
        .replaceAll("\\b[a-z_][a-z0-9_]* (?=[a-z])", "")
        .replace(" ", "");
  }

  /** SQE's SQL type written as Trino writes its types. */
  static String trinoTypeName(RelDataType type) {
    SqlTypeName name = type.getSqlTypeName();
    return switch (name) {
      case BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, REAL, DOUBLE, DATE, UUID -> name.getName().toLowerCase(Locale.ROOT);
      case FLOAT -> "double";
      case DECIMAL -> "decimal(" + type.getPrecision() + ", " + type.getScale() + ")";
      case CHAR, VARCHAR -> "varchar";
      case TIME -> "time(" + type.getPrecision() + ")";
      case TIMESTAMP -> "timestamp(" + type.getPrecision() + ")";
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> "timestamp(" + type.getPrecision() + ") with time zone";
      case BINARY, VARBINARY -> "varbinary";
      case ARRAY -> "array(" + trinoTypeName(type.getComponentType()) + ")";
      case MAP -> "map(" + trinoTypeName(type.getKeyType()) + ", " + trinoTypeName(type.getValueType()) + ")";
      case ROW -> type.getFieldList().stream().map(RelDataTypeField::getType).map(TrinoReferenceTest::trinoTypeName)
          .collect(Collectors.joining(", ", "row(", ")"));
      case INTERVAL_DAY, INTERVAL_DAY_HOUR, INTERVAL_DAY_MINUTE, INTERVAL_DAY_SECOND, INTERVAL_HOUR, INTERVAL_HOUR_MINUTE,
          INTERVAL_HOUR_SECOND, INTERVAL_MINUTE, INTERVAL_MINUTE_SECOND, INTERVAL_SECOND -> "interval day to second";
      case INTERVAL_YEAR, INTERVAL_YEAR_MONTH, INTERVAL_MONTH -> "interval year to month";
      default -> name.getName().toLowerCase(Locale.ROOT);
    };
  }

  /** Values equal as Trino's canonical JSON: numbers by value, decimals and times by their text's value. */
  private static boolean sameValue(JsonNode expected, JsonNode actual) {
    if (expected.isNumber() && actual.isNumber()) {
      double e = expected.doubleValue();
      double a = actual.doubleValue();
      return e == a || Math.abs(e - a) <= 1e-9 * Math.max(Math.abs(e), Math.abs(a));
    }
    if (expected.isTextual() && actual.isNumber()) {
      // Trino's client reads a map's keys as JSON object keys, so as text.
      return expected.textValue().equals(actual.asText());
    }
    if (expected.isTextual() && actual.isTextual()) {
      return normalText(expected.textValue()).equals(normalText(actual.textValue()));
    }
    if (expected.isArray() && actual.isArray()) {
      if (expected.size() != actual.size()) {
        return false;
      }
      for (int i = 0; i < expected.size(); i++) {
        if (!sameValue(expected.get(i), actual.get(i))) {
          return false;
        }
      }
      return true;
    }
    return expected.equals(actual);
  }

  /** A decimal's or a time's text with trailing fractional zeros dropped: 5.50 is 5.5, 10:00:00.000 is 10:00:00. */
  private static String normalText(String text) {
    if (text.matches("-?\\d+\\.\\d+")) {
      return new BigDecimal(text).stripTrailingZeros().toPlainString();
    }
    if (text.matches(".*\\d\\d:\\d\\d:\\d\\d\\.\\d+.*")) {
      return text.replaceAll("(:\\d\\d)\\.(\\d*?)0+\\b", "$1.$2").replaceAll("(:\\d\\d)\\.(?!\\d)", "$1");
    }
    return text;
  }

  /** The value at {@code row} of {@code vector} as Trino's canonical JSON (see dev/trino-reference/reference.py). */
  static JsonNode canonical(FieldVector vector, int row) {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    if (vector.isNull(row)) {
      return nodes.nullNode();
    }
    Field field = vector.getField();
    ArrowType type = field.getType();
    if (vector instanceof MapVector map) {
      StructVector entries = (StructVector) map.getDataVector();
      List<JsonNode[]> pairs = new ArrayList<>();
      for (int i = map.getElementStartIndex(row); i < map.getElementEndIndex(row); i++) {
        pairs.add(new JsonNode[] {
            canonical((FieldVector) entries.getChildByOrdinal(0), i), canonical((FieldVector) entries.getChildByOrdinal(1), i)});
      }
      pairs.sort((a, b) -> a[0].toString().compareTo(b[0].toString()));
      ArrayNode out = nodes.arrayNode();
      pairs.forEach(p -> out.add(nodes.arrayNode().add(p[0]).add(p[1])));
      return out;
    }
    if (vector instanceof ListVector list) {
      ArrayNode out = nodes.arrayNode();
      FieldVector elements = list.getDataVector();
      for (int i = list.getElementStartIndex(row); i < list.getElementEndIndex(row); i++) {
        out.add(canonical(elements, i));
      }
      return out;
    }
    if (vector instanceof StructVector struct) {
      ArrayNode out = nodes.arrayNode();
      for (int i = 0; i < struct.size(); i++) {
        out.add(canonical((FieldVector) struct.getChildByOrdinal(i), row));
      }
      return out;
    }
    if (vector instanceof DateDayVector date) {
      return nodes.textNode(LocalDate.ofEpochDay(date.get(row)).toString());
    }
    if (vector instanceof TimeMicroVector time) {
      return nodes.textNode(LocalTime.ofNanoOfDay(time.get(row) * 1000).format(DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS")));
    }
    if (vector instanceof TimeStampVector timestamp) {
      Object value = timestamp.getObject(row);
      String text = value instanceof LocalDateTime local
          ? local.format(TIMESTAMP)
          : LocalDateTime.ofEpochSecond(Math.floorDiv(timestamp.get(row), 1_000_000L),
              (int) Math.floorMod(timestamp.get(row), 1_000_000L) * 1000, java.time.ZoneOffset.UTC).format(TIMESTAMP) + " UTC";
      return nodes.textNode(text);
    }
    Object value = vector.getObject(row);
    if (value instanceof java.time.Duration d) {
      // Trino writes an INTERVAL DAY TO SECOND as "D HH:MM:SS.mmm".
      long millis = d.toMillis();
      return nodes.textNode(String.format(Locale.ROOT, "%d %02d:%02d:%02d.%03d", millis / 86_400_000, millis / 3_600_000 % 24,
          millis / 60_000 % 60, millis / 1000 % 60, millis % 1000));
    }
    if (value instanceof byte[] bytes) {
      if (type instanceof ArrowType.FixedSizeBinary && "arrow.uuid".equals(field.getMetadata().get("ARROW:extension:name"))) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
        return nodes.textNode(new java.util.UUID(b.getLong(), b.getLong()).toString());
      }
      return nodes.textNode("x:" + HexFormat.of().formatHex(bytes));
    }
    if (value instanceof Boolean b) {
      return nodes.booleanNode(b);
    }
    if (value instanceof Double d) {
      return Double.isFinite(d) ? nodes.numberNode(d) : nodes.textNode(d.isNaN() ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
    }
    if (value instanceof Float f) {
      return Float.isFinite(f) ? nodes.numberNode((double) f) : nodes.textNode(f.isNaN() ? "NaN" : f > 0 ? "Infinity" : "-Infinity");
    }
    if (value instanceof BigDecimal d) {
      return nodes.textNode(d.toPlainString());
    }
    if (value instanceof Number n) {
      return nodes.numberNode(n.longValue());
    }
    return nodes.textNode(value.toString());
  }

  static List<Case> answers() throws IOException {
    List<Case> cases = new ArrayList<>();
    for (String line : resourceLines("trino/answers.tsv")) {
      if (line.startsWith("#") || line.startsWith("id\t")) {
        continue;
      }
      String[] f = line.split("\t", -1);
      cases.add(new Case(f[0], unescape(f[1]), f[2], unescape(f[3])));
    }
    return cases;
  }

  private static Map<String, String> differences() throws IOException {
    Map<String, String> known = new LinkedHashMap<>();
    for (String line : resourceLines("trino/differences.tsv")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        String[] f = line.split("\t", 2);
        known.put(f[0], f.length > 1 ? f[1] : "");
      }
    }
    return known;
  }

  static List<String> resourceLines(String name) throws IOException {
    try (InputStream in = TrinoReferenceTest.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("No resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
  }

  private static String unescape(String text) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch == '\\' && i + 1 < text.length()) {
        char next = text.charAt(++i);
        out.append(switch (next) {
          case 't' -> '\t';
          case 'n' -> '\n';
          case 'r' -> '\r';
          default -> next;
        });
      } else {
        out.append(ch);
      }
    }
    return out.toString();
  }
}

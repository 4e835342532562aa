package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.session.Session;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The filter evaluated on the Arrow vectors of a scan drops no row the SQL filter keeps: random
 * predicates over every type the selection handles (with NULLs, NaN and -0.0, dictionary-encoded
 * and plain pages, several batches), each answered through the vectorized reader with its
 * selection and through the row reader, where only Calcite's Filter decides.
 */
class VectorSelectionTest {
  private static final int ROWS = 9000;
  private static final int PREDICATES = 160;
  private static final List<String> MODES = List.of("AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "é-x", "ü");
  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private static final double[] DOUBLES = {-1.5, 0.0, -0.0, 2.25, 1e9, Double.NaN, 0.1};

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("test");
  }

  @Test
  void randomPredicatesKeepEveryRowTheRowReaderKeeps() {
    long seed = Long.getLong("sqe.test.seed", System.nanoTime());
    System.out.println("VectorSelectionTest seed: " + seed + " (replay with -Dsqe.test.seed=" + seed + ")");
    Random random = new Random(seed);
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "ci", Types.IntegerType.get()),
            Types.NestedField.optional(3, "cl", Types.LongType.get()),
            Types.NestedField.optional(4, "cd", Types.DoubleType.get()),
            Types.NestedField.optional(5, "cs", Types.StringType.get()),
            Types.NestedField.optional(6, "clabel", Types.StringType.get()),
            Types.NestedField.optional(7, "camount", Types.DecimalType.of(15, 2)),
            Types.NestedField.optional(8, "crate", Types.DecimalType.of(7, 3)),
            Types.NestedField.optional(9, "cdate", Types.DateType.get()),
            Types.NestedField.optional(10, "cts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(11, "cb", Types.BooleanType.get()),
            Types.NestedField.optional(12, "cclock", Types.TimeType.get()));
    // A small dictionary limit: the clabel column's pages start dictionary-encoded and fall back to plain.
    Table table =
        lake.catalog()
            .iceberg()
            .createTable(TableIdentifier.of("s", "sel"), schema, PartitionSpec.unpartitioned(), Map.of("write.parquet.dict-size-bytes", "4096"));
    List<Record> records = new ArrayList<>();
    List<Long> longs = new ArrayList<>();
    List<BigDecimal> amounts = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      GenericRecord r = GenericRecord.create(schema);
      r.setField("id", (long) n);
      r.setField("ci", nullOr(random, () -> random.nextInt(101) - 50));
      Long l = nullOr(random, () -> random.nextLong() >> 20);
      r.setField("cl", l);
      if (l != null && longs.size() < 50) {
        longs.add(l);
      }
      r.setField("cd", nullOr(random, () -> random.nextInt(4) == 0 ? random.nextDouble() * 10 - 5 : DOUBLES[random.nextInt(DOUBLES.length)]));
      r.setField("cs", nullOr(random, () -> MODES.get(random.nextInt(MODES.size()))));
      r.setField("clabel", nullOr(random, () -> "label-" + random.nextInt(5000)));
      BigDecimal amount = nullOr(random, () -> BigDecimal.valueOf(random.nextInt(200_001) - 100_000, 2));
      r.setField("camount", amount);
      if (amount != null && amounts.size() < 50) {
        amounts.add(amount);
      }
      r.setField("crate", nullOr(random, () -> BigDecimal.valueOf(random.nextInt(41) * 25 - 500, 3)));
      r.setField("cdate", nullOr(random, () -> LocalDate.of(1992, 1, 1).plusDays(random.nextInt(2500))));
      r.setField("cts", nullOr(random, () -> LocalDateTime.of(1995, 6, 1, 0, 0).plusSeconds(random.nextInt(400_000_000) - 200_000_000L)));
      r.setField("cb", nullOr(random, random::nextBoolean));
      r.setField("cclock", LocalTime.ofSecondOfDay(n));
      records.add(r);
    }
    TestTables.appendFile(table, records);

    Predicates predicates = new Predicates(random, longs, amounts);
    long skipped = 0;
    for (int p = 0; p < PREDICATES; p++) {
      String predicate = predicates.next(2);
      // Without the TIME column the file is read column by column, with the selection; with it, by rows.
      Result vectorized = run("select id from sel where " + predicate + " order by id");
      Result rows = run("select id, cclock from sel where " + predicate + " order by id");
      assertThat(vectorized.stats.filesReadByColumns()).as(predicate).isEqualTo(vectorized.stats.filesScanned());
      assertThat(rows.stats.filesReadByColumns()).as(predicate).isZero();
      assertThat(vectorized.ids).as("seed %d, predicate %s", seed, predicate).isEqualTo(rows.ids);
      skipped += vectorized.stats.rowsSkippedOnVectors();
    }
    // The selection did drop rows (so the comparison above tested it), and only through the vectorized reader.
    assertThat(skipped).isPositive();
  }

  @Test
  void aSelectiveFilterDropsRowsBeforeTheyAreBuiltAndTheSwitchTurnsItOff() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "mode", Types.StringType.get()));
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "modes"), schema, PartitionSpec.unpartitioned());
    List<Record> records = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      GenericRecord r = GenericRecord.create(schema);
      r.setField("id", (long) n);
      r.setField("mode", n % 9 == 0 ? null : MODES.get(n % MODES.size()));
      records.add(r);
    }
    TestTables.appendFile(table, records);
    long expected = records.stream().filter(r -> "MAIL".equals(r.getField("mode")) && (Long) r.getField("id") < 5000).count();

    Result result = run("select id from modes where mode = 'MAIL' and id < 5000");
    assertThat((long) result.ids.size()).isEqualTo(expected);
    // Every row the filter drops is dropped on the vectors here: both conjuncts are simple.
    assertThat(result.stats.rowsSkippedOnVectors()).isEqualTo(ROWS - expected);
    // A condition the selection cannot evaluate keeps every row for Calcite's Filter.
    Result opaque = run("select id from modes where char_length(mode) = 4");
    assertThat(opaque.stats.rowsSkippedOnVectors()).isZero();
  }

  @Test
  void likePatternsOnTheVectorsAgreeWithTheRowLevelLike() {
    long seed = Long.getLong("sqe.test.seed", System.nanoTime());
    System.out.println("VectorSelectionTest LIKE seed: " + seed + " (replay with -Dsqe.test.seed=" + seed + ")");
    Random random = new Random(seed);
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "ctext", Types.StringType.get()),
            Types.NestedField.optional(3, "cword", Types.StringType.get()),
            Types.NestedField.optional(4, "cclock", Types.TimeType.get()));
    // ctext is too varied for its dictionary and falls back to plain pages; cword stays dictionary-encoded.
    Table table =
        lake.catalog()
            .iceberg()
            .createTable(TableIdentifier.of("s", "texts"), schema, PartitionSpec.unpartitioned(), Map.of("write.parquet.dict-size-bytes", "2048"));
    List<String> words = new ArrayList<>();
    for (int w = 0; w < 40; w++) {
      words.add(text(random, 6));
    }
    List<Record> records = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      GenericRecord r = GenericRecord.create(schema);
      r.setField("id", (long) n);
      r.setField("ctext", nullOr(random, () -> text(random, 14)));
      r.setField("cword", nullOr(random, () -> words.get(random.nextInt(words.size()))));
      r.setField("cclock", LocalTime.ofSecondOfDay(n));
      records.add(r);
    }
    TestTables.appendFile(table, records);

    long skipped = 0;
    for (int p = 0; p < 120; p++) {
      String column = random.nextBoolean() ? "ctext" : "cword";
      boolean escaped = random.nextInt(3) == 0;
      String like = (random.nextInt(3) == 0 ? " not like " : " like ") + "'" + pattern(random, escaped).replace("'", "''") + "'" + (escaped ? " escape '\\'" : "");
      String other = random.nextBoolean() ? "" : " and id < " + random.nextInt(ROWS);
      String predicate = column + like + other;
      // The Filter evaluates a LIKE on an expression row by row: the reference (LikePatternTest checks the matcher).
      List<Long> expected = run("select id from texts where (" + column + " || '')" + like + other + " order by id").ids;
      Result vectorized = run("select id from texts where " + predicate + " order by id");
      Result rows = run("select id, cclock from texts where " + predicate + " order by id");
      assertThat(vectorized.stats.filesReadByColumns()).as(predicate).isEqualTo(vectorized.stats.filesScanned());
      assertThat(rows.stats.filesReadByColumns()).as(predicate).isZero();
      assertThat(vectorized.ids).as("seed %d, predicate %s", seed, predicate).isEqualTo(expected);
      assertThat(rows.ids).as("seed %d, predicate %s", seed, predicate).isEqualTo(expected);
      skipped += vectorized.stats.rowsSkippedOnVectors();
    }
    assertThat(skipped).isPositive();
  }

  @Test
  void aLikeMovesIntoTheScanWhichNoLongerReturnsItsColumn() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "mode", Types.StringType.get()),
            Types.NestedField.optional(3, "note", Types.StringType.get()));
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "notes"), schema, PartitionSpec.unpartitioned());
    List<Record> records = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      GenericRecord r = GenericRecord.create(schema);
      r.setField("id", (long) n);
      r.setField("mode", MODES.get(n % MODES.size()));
      r.setField("note", n % 11 == 0 ? null : "note " + n + (n % 3 == 0 ? " special requests" : " plain"));
      records.add(r);
    }
    TestTables.appendFile(table, records);
    String sql = "select count(*), sum(id) from notes where note not like '%special%requests%' and mode <> 'AIR'";
    String plan = TestQueries.plan(engine, session, sql);
    assertThat(plan).contains("like=[[note NOT LIKE '%special%requests%']]").doesNotContain("LIKE(");
    long expectedCount = records.stream()
        .filter(r -> r.getField("note") != null && !((String) r.getField("note")).contains("special requests") && !"AIR".equals(r.getField("mode")))
        .count();
    List<List<Object>> rows = TestQueries.rows(engine, session, sql);
    assertThat(((Number) rows.get(0).get(0)).longValue()).isEqualTo(expectedCount);
    // count(*) with only the LIKE: the scan reads the column for the predicate and returns no column.
    List<List<Object>> counted = TestQueries.rows(engine, session, "select count(*) from notes where note like '%special%'");
    assertThat(((Number) counted.get(0).get(0)).longValue())
        .isEqualTo(records.stream().filter(r -> r.getField("note") != null && ((String) r.getField("note")).contains("special")).count());
  }

  @Test
  void aLikeOnAPartitionColumnIsTestedOnItsConstant() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "mode", Types.StringType.get()));
    Table table =
        lake.catalog().iceberg().createTable(TableIdentifier.of("s", "bymode"), schema, PartitionSpec.builderFor(schema).identity("mode").build());
    List<Record> expected = new ArrayList<>();
    for (String mode : MODES) {
      List<Record> records = new ArrayList<>();
      for (int n = 0; n < 100; n++) {
        GenericRecord r = GenericRecord.create(schema);
        r.setField("id", (long) records.size() + 100L * MODES.indexOf(mode));
        r.setField("mode", mode);
        records.add(r);
      }
      TestTables.appendPartitionFile(table, records, mode);
    }
    for (String pattern : List.of("M_IL", "%A%", "é%", "_", "%")) {
      for (String not : List.of("", "not ")) {
        String like = "mode " + not + "like '" + pattern + "'";
        List<Long> reference = run("select id from bymode where (mode || '') " + not + "like '" + pattern + "' order by id").ids;
        assertThat(run("select id from bymode where " + like + " order by id").ids).as(like).isEqualTo(reference);
      }
    }
  }

  @Test
  void underscoreMatchesAnyCodePointLineTerminatorsIncluded() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "t", Types.StringType.get()),
            Types.NestedField.optional(3, "cclock", Types.TimeType.get()));
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "lines"), schema, PartitionSpec.unpartitioned());
    List<String> values = java.util.Arrays.asList("a\nb", "a\u2028b", "a\rb", "ab", "a\ud83d\ude00b", null, "a_b", "axxb");
    List<Record> records = new ArrayList<>();
    for (int n = 0; n < values.size(); n++) {
      GenericRecord r = GenericRecord.create(schema);
      r.setField("id", (long) n);
      r.setField("t", values.get(n));
      r.setField("cclock", LocalTime.ofSecondOfDay(n));
      records.add(r);
    }
    TestTables.appendFile(table, records);
    // As in the SQL standard and DuckDB: _ is any one character; NULL is neither LIKE nor NOT LIKE.
    // With only id the scan reads by columns (on the vectors), with the TIME column by rows.
    for (String columns : List.of("id", "id, cclock")) {
      assertThat(run("select " + columns + " from lines where t like 'a_b' order by id").ids).as(columns).containsExactly(0L, 1L, 2L, 4L, 6L);
      assertThat(run("select " + columns + " from lines where t not like 'a_b' order by id").ids).as(columns).containsExactly(3L, 7L);
      assertThat(run("select " + columns + " from lines where t like 'a!_b' escape '!' order by id").ids).as(columns).containsExactly(6L);
      assertThat(run("select " + columns + " from lines where t like '%b' and t not like 'a__%' order by id").ids).as(columns).containsExactly(3L);
    }
    // Row by row (on an expression) the same, as both run the one matcher.
    assertThat(run("select id from lines where (t || '') like 'a_b' order by id").ids).containsExactly(0L, 1L, 2L, 4L, 6L);
    assertThat(run("select id from lines where (t || '') not like 'a_b' order by id").ids).containsExactly(3L, 7L);
  }

  /**
   * A random string over an alphabet with LIKE's special characters, line terminators and 2-, 3-
   * and 4-byte code points.
   */
  private static String text(Random random, int maxLength) {
    String[] pieces = {"a", "b", "ab", "c", "é", "\u00fc", "\ud83d\ude00", "%", "_", "\\", " ", "\u0800", "ba", "\n", "\u2028"};
    StringBuilder text = new StringBuilder();
    int length = random.nextInt(maxLength + 1);
    for (int i = 0; i < length; i++) {
      text.append(pieces[random.nextInt(pieces.length)]);
    }
    return text.toString();
  }

  /** A random LIKE pattern; with {@code escaped}, one that uses backslash as its escape character. */
  private static String pattern(Random random, boolean escaped) {
    String[] pieces = escaped
        ? new String[] {"%", "_", "a", "b", "é", "\\%", "\\_", "\\\\", "ab", "__", "\ud83d\ude00"}
        : new String[] {"%", "%", "_", "a", "b", "ab", "é", "\u00fc", "__", " ", "c", "\ud83d\ude00", "\u0800"};
    StringBuilder pattern = new StringBuilder();
    int length = 1 + random.nextInt(5);
    for (int i = 0; i < length; i++) {
      pattern.append(pieces[random.nextInt(pieces.length)]);
    }
    return pattern.toString();
  }

  private static <T> T nullOr(Random random, Supplier<T> value) {
    return random.nextInt(10) == 0 ? null : value.get();
  }

  /** Random SQL predicates over the columns of the test table. */
  private static final class Predicates {
    private final Random random;
    private final List<Long> longs;
    private final List<BigDecimal> amounts;

    Predicates(Random random, List<Long> longs, List<BigDecimal> amounts) {
      this.random = random;
      this.longs = longs;
      this.amounts = amounts;
    }

    String next(int depth) {
      int choice = depth == 0 ? 0 : random.nextInt(6);
      switch (choice) {
        case 3:
          return "(" + next(depth - 1) + " and " + next(depth - 1) + ")";
        case 4:
          return "(" + next(depth - 1) + " or " + next(depth - 1) + ")";
        case 5:
          return "not (" + next(depth - 1) + ")";
        default:
          return atom();
      }
    }

    private String atom() {
      switch (random.nextInt(11)) {
        case 0:
          return numeric("ci", () -> String.valueOf(random.nextInt(121) - 60));
        case 1:
          return numeric("cl", () -> String.valueOf(random.nextInt(4) == 0 ? (Long) (random.nextLong() >> 20) : pick(longs)));
        case 2:
          return comparison("cd", pickDouble());
        case 3:
          return string("cs", () -> "'" + MODES.get(random.nextInt(MODES.size())) + "'", List.of("TR%", "é%", "M_IL%", "%IL"));
        case 4:
          return string("clabel", () -> "'label-" + random.nextInt(5000) + "'", List.of("label-1%", "label-49%", "lab%", "x%"));
        case 5:
          return numeric("camount", () -> random.nextBoolean() ? pick(amounts).toPlainString() : String.valueOf(random.nextInt(2000) - 1000) + ".5");
        case 6:
          return numeric("crate", () -> BigDecimal.valueOf(random.nextInt(41) * 25 - 500, 3).toPlainString());
        case 7:
          return numeric("cdate", () -> "date '" + LocalDate.of(1992, 1, 1).plusDays(random.nextInt(2600)) + "'");
        case 8:
          return numeric(
              "cts", () -> "timestamp '" + LocalDateTime.of(1995, 6, 1, 0, 0).plusSeconds(random.nextInt(400_000_000) - 200_000_000L).format(TIMESTAMP) + "'");
        case 9:
          return List.of("cb", "not cb", "cb = true", "cb <> false", "cb is null", "cb is not true").get(random.nextInt(6));
        default:
          return "id " + op() + " " + random.nextInt(ROWS);
      }
    }

    private String numeric(String column, Supplier<String> literal) {
      switch (random.nextInt(6)) {
        case 0:
          return column + " between " + literal.get() + " and " + literal.get();
        case 1:
          return column + " in (" + literal.get() + ", " + literal.get() + ", " + literal.get() + ")";
        case 2:
          return column + " not in (" + literal.get() + ", " + literal.get() + ")";
        case 3:
          return column + (random.nextBoolean() ? " is null" : " is not null");
        default:
          return comparison(column, literal.get());
      }
    }

    private String string(String column, Supplier<String> literal, List<String> patterns) {
      if (random.nextInt(4) == 0) {
        return column + " like '" + patterns.get(random.nextInt(patterns.size())) + "'";
      }
      return numeric(column, literal);
    }

    private String comparison(String column, String literal) {
      return random.nextBoolean() ? column + " " + op() + " " + literal : literal + " " + op() + " " + column;
    }

    private String op() {
      return List.of("=", "<>", "<", "<=", ">", ">=").get(random.nextInt(6));
    }

    private String pickDouble() {
      double d = DOUBLES[random.nextInt(DOUBLES.length)];
      if (Double.isNaN(d)) {
        return "cast(" + random.nextInt(5) + ".75 as double)";
      }
      return "cast(" + BigDecimal.valueOf(d).toPlainString() + " as double)";
    }

    private <T> T pick(List<T> values) {
      return values.get(random.nextInt(values.size()));
    }
  }

  private record Result(List<Long> ids, QueryStats stats) {}

  private Result run(String sql) {
    TestQueries.Result result = TestQueries.run(engine, session, sql);
    return new Result(result.rows().stream().map(row -> (Long) row.get(0)).toList(), result.stats());
  }
}

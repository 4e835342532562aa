package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * The planner derives, from an OR over the columns of several joined tables, a condition on each
 * table (the OR of each branch's conjuncts on that table) and pushes it into the table's scan,
 * keeping the OR (TPC-H Q7 and Q19). Over two real Iceberg tables whose OR columns hold NULLs, the
 * scans must show the derived conditions and every result must equal that of the same statement
 * planned without them (the session option {@code planner.derive-or-predicates = false}).
 */
class DerivedOrPredicatesTest {
  private static final String[] NAMES = {"FRANCE", "GERMANY", "PERU", "CHINA", null};

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    write("a", "a_", 400);
    write("b", "b_", 300);
    engine = lake.engine();
    session = EmbeddedLake.session("test");
  }

  /** Rows with a key (NULL every 13th row), a name (NULL every 5th group of 40 rows) and a quantity (NULL every 7th). */
  private void write(String name, String prefix, int rows) {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, prefix + "id", Types.LongType.get()),
            Types.NestedField.optional(2, prefix + "key", Types.LongType.get()),
            Types.NestedField.optional(3, prefix + "name", Types.StringType.get()),
            Types.NestedField.optional(4, prefix + "qty", Types.IntegerType.get()));
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", name), schema);
    List<Record> records = new ArrayList<>();
    for (long id = 0; id < rows; id++) {
      Record r = GenericRecord.create(schema);
      r.setField(prefix + "id", id);
      r.setField(prefix + "key", id % 13 == 12 ? null : id % 40);
      r.setField(prefix + "name", NAMES[(int) (id / 40 % NAMES.length)]);
      r.setField(prefix + "qty", id % 7 == 6 ? null : (int) (id % 50));
      records.add(r);
    }
    TestTables.appendFile(table, records);
  }

  @Test
  void q7PairOfNamesBecomesAnInListOnEachScan() {
    String sql =
        "select a_id, b_id from a, b where a_key = b_key"
            + " and ((a_name = 'FRANCE' and b_name = 'GERMANY') or (a_name = 'GERMANY' and b_name = 'FRANCE'))"
            + " order by a_id, b_id";
    String plan = plan(sql);
    assertThat(scanFilter(plan, "a")).as(plan).contains("a_name").contains("FRANCE").contains("GERMANY");
    assertThat(scanFilter(plan, "b")).as(plan).contains("b_name").contains("FRANCE").contains("GERMANY");
    assertSameAsWithoutDerivation(sql);
  }

  @Test
  void q19QuantityRangesReachTheOtherScan() {
    String sql =
        "select a_id, b_id from a join b on a_key = b_key"
            + " where (a_name = 'FRANCE' and b_qty between 1 and 10)"
            + " or (a_name = 'PERU' and b_qty between 20 and 25)"
            + " or (a_name = 'CHINA' and b_qty between 24 and 30)"
            + " order by a_id, b_id";
    String plan = plan(sql);
    assertThat(scanFilter(plan, "a")).as(plan).contains("a_name").contains("PERU");
    assertThat(scanFilter(plan, "b")).as(plan).contains("b_qty").contains("30");
    assertSameAsWithoutDerivation(sql);
  }

  @Test
  void aBranchThatTestsForNullKeepsNullRows() {
    String sql =
        "select a_id, b_id from a, b where a_key = b_key"
            + " and ((a_name = 'FRANCE' and b_name is null) or (a_name is null and b_qty > 40))"
            + " order by a_id, b_id";
    String plan = plan(sql);
    assertThat(scanFilter(plan, "a")).as(plan).contains("a_name");
    List<List<Object>> rows = assertSameAsWithoutDerivation(sql);
    // rows 160..199 and 360..399 of a have a NULL name: the derived a_name = 'FRANCE' OR a_name IS NULL keeps them
    assertThat(rows).anyMatch(row -> (Long) row.get(0) / 40 % 5 == 4);
  }

  @Test
  void aBranchWithoutConditionOnATableDerivesNothingForIt() {
    String sql =
        "select a_id, b_id from a, b where a_key = b_key"
            + " and ((a_name = 'FRANCE' and b_name = 'PERU') or b_qty = 3)"
            + " order by a_id, b_id";
    String plan = plan(sql);
    assertThat(scanFilter(plan, "a")).as(plan).doesNotContain("a_name");
    assertThat(scanFilter(plan, "b")).as(plan).contains("b_name").contains("b_qty");
    assertSameAsWithoutDerivation(sql);
  }

  @Test
  void leftJoinFiltersOnlyItsRightSide() {
    String sql =
        "select a_id, b_id from a left join b on a_key = b_key"
            + " and ((a_name = 'FRANCE' and b_name = 'GERMANY') or (a_name = 'GERMANY' and b_qty < 5))"
            + " order by a_id, b_id";
    String plan = plan(sql);
    assertThat(scanFilter(plan, "a")).as(plan).doesNotContain("a_name");
    assertThat(scanFilter(plan, "b")).as(plan).contains("b_name").contains("b_qty");
    List<List<Object>> rows = assertSameAsWithoutDerivation(sql);
    assertThat(rows.stream().map(row -> row.get(0)).distinct().count()).isEqualTo(400);
  }

  @Test
  void nonDeterministicConjunctsAreNotDerived() {
    String sql =
        "select a_id, b_id from a, b where a_key = b_key"
            + " and ((a_name = 'FRANCE' and rand() < 2) or (a_name = 'PERU' and b_name = 'CHINA'))"
            + " order by a_id, b_id";
    String plan = plan(sql);
    assertThat(scanFilter(plan, "a")).as(plan).contains("a_name");
    assertThat(scanFilter(plan, "b")).as(plan).doesNotContain("b_name");
    assertSameAsWithoutDerivation(sql);
  }

  /** The rows of {@code sql}, which must be some and equal those of the plan without derived conditions. */
  private List<List<Object>> assertSameAsWithoutDerivation(String sql) {
    List<List<Object>> rows = TestQueries.rows(engine, session, sql);
    List<List<Object>> reference;
    Session plain = TestOptions.set(session, PlannerOptions.DERIVE_OR_PREDICATES, false);
    assertThat(scanFilter(TestQueries.plan(engine, plain, sql), "a")).doesNotContain("a_name");
    reference = TestQueries.rows(engine, plain, sql);
    assertThat(rows).isNotEmpty().isEqualTo(reference);
    return rows;
  }

  private String plan(String sql) {
    return TestQueries.plan(engine, session, sql);
  }

  /** The filter pushed into the scan of {@code table}, empty when it has none. */
  private static String scanFilter(String plan, String table) {
    Matcher scan = Pattern.compile("(?:Iceberg|Sqe)TableScan\\(table=\\[\\[lake, s, " + table + "]][^\\n]*").matcher(plan);
    assertThat(scan.find()).as(plan).isTrue();
    Matcher filter = Pattern.compile("filter=\\[(.*)]").matcher(scan.group());
    return filter.find() ? filter.group(1) : "";
  }
}

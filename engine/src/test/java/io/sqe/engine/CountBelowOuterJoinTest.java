package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
 * COUNT over an outer join, grouped by the preserved side, is counted per key below the join
 * (TPC-H Q13's shape): the same rows as the per-row count, with preserved rows that match nothing
 * (0), preserved keys that repeat, NULL keys on both sides and NULL counted values.
 */
class CountBelowOuterJoinTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("test");
    Random random = new Random(42);
    Schema parents =
        new Schema(
            Types.NestedField.required(1, "pk", Types.LongType.get()),
            Types.NestedField.optional(2, "k", Types.LongType.get()),
            Types.NestedField.optional(3, "grp", Types.StringType.get()));
    Schema children =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "j", Types.LongType.get()),
            Types.NestedField.optional(3, "x", Types.StringType.get()));
    Table parent = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "parent"), parents, PartitionSpec.unpartitioned(), Map.of());
    Table child = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "child"), children, PartitionSpec.unpartitioned(), Map.of());
    List<Record> parentRows = new ArrayList<>();
    for (int n = 0; n < 300; n++) {
      GenericRecord r = GenericRecord.create(parents);
      r.setField("pk", (long) n);
      // Keys repeat (n % 250) and some are NULL.
      r.setField("k", n % 37 == 0 ? null : (long) (n % 250));
      r.setField("grp", "g" + (n % 7));
      parentRows.add(r);
    }
    TestTables.appendFile(parent, parentRows);
    List<Record> childRows = new ArrayList<>();
    for (int n = 0; n < 3000; n++) {
      GenericRecord r = GenericRecord.create(children);
      r.setField("id", (long) n);
      // Keys beyond the parents' (no match), some NULL; some counted values NULL.
      r.setField("j", n % 53 == 0 ? null : (long) random.nextInt(320));
      r.setField("x", n % 9 == 0 ? null : "x" + n);
      childRows.add(r);
    }
    TestTables.appendFile(child, childRows);
  }

  @Test
  void countsPerKeyBelowTheJoinGiveTheSameRowsAsCountingJoinedRows() {
    List<String[]> queries =
        List.of(
            new String[] {
              "select p.pk, count(c.x) as n from parent p left join child c on p.k = c.j group by p.pk",
              "select p.pk, sum(case when c.x is not null then 1 else 0 end) as n from parent p left join child c on p.k = c.j group by p.pk"
            },
            new String[] {
              "select p.grp, count(c.x), count(c.id) from child c right join parent p on c.j = p.k group by p.grp",
              "select p.grp, sum(case when c.x is not null then 1 else 0 end), sum(case when c.id is not null then 1 else 0 end) from child c right join parent p on c.j = p.k group by p.grp"
            },
            new String[] {
              // TPC-H Q13's shape: the count of counts.
              "select n, count(*) as m from (select p.pk, count(c.id) as n from parent p left outer join child c on p.k = c.j and c.x not like '%7%' group by p.pk) group by n",
              "select n, count(*) as m from (select p.pk, sum(case when c.id is not null then 1 else 0 end) as n from parent p left outer join child c on p.k = c.j and c.x not like '%7%' group by p.pk) group by n"
            });
    for (String[] query : queries) {
      String plan = TestQueries.plan(engine, session, query[0]);
      // The child rows are counted per key before they are joined, on either runtime.
      assertThat(plan).as(query[0]).containsPattern(
          "Aggregate\\(group=\\[\\{\\d+\\}\\], [^\\n]*=\\[+COUNT\\([^\\n]*\\n\\s*(Iceberg|Sqe)TableScan\\(table=\\[\\[\\w+, s, child\\]\\]");
      assertThat(sorted(TestQueries.rows(engine, session, query[0]))).as(query[0]).isEqualTo(sorted(TestQueries.rows(engine, session, query[1])));
    }
  }

  private static List<String> sorted(List<List<Object>> rows) {
    List<String> text = new ArrayList<>();
    for (List<Object> row : rows) {
      List<String> values = new ArrayList<>();
      for (Object value : row) {
        values.add(value instanceof Number ? String.valueOf(((Number) value).longValue()) : String.valueOf(value));
      }
      text.add(String.join("|", values));
    }
    text.sort(null);
    return text;
  }
}

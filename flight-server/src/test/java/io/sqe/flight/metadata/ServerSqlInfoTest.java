package io.sqe.flight.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedTransaction;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.util.Text;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ServerSqlInfoTest {
  private static final SqlInfoValues VALUES = ServerSqlInfo.values("SQE", "1.2.3");

  private BufferAllocator allocator;

  @BeforeEach
  void createAllocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void closeAllocator() {
    allocator.close();
  }

  @Test
  void everyIdTheJdbcDriverReadsHasAValue() {
    List<Integer> expected = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 100, 101));
    IntStream.rangeClosed(500, 576).forEach(expected::add);
    assertThat(VALUES.all().keySet()).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void rowsEqualWhatArrowsOwnBuilderSends() {
    SqlInfoBuilder builder = ServerSqlInfo.builder("SQE", "1.2.3");
    List<Integer> builderIds = new ArrayList<>(VALUES.all().keySet());
    builderIds.removeAll(ServerSqlInfo.resultSetConcurrencies().keySet());
    try (VectorSchemaRoot ours = VALUES.write(allocator, builderIds)) {
      RootContents.validate(ours);
      List<List<Object>> reference = sentByArrow(builder, builderIds);
      assertThat(rowsWithTypeIds(ours)).isEqualTo(reference);
    }
  }

  @Test
  void serverIdentityAndProtocolFeatures() {
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_NAME)).isEqualTo("SQE");
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_VERSION)).isEqualTo("1.2.3");
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_ARROW_VERSION)).isEqualTo("18.3.0");
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY)).isEqualTo(false);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION))
        .isEqualTo(SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_SAVEPOINT_VALUE);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_CANCEL)).isEqualTo(true);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION)).isEqualTo(true);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED)).isEqualTo(true);
    assertThat(value(SqlInfo.SQL_TRANSACTIONS_SUPPORTED)).isEqualTo(true);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_STATEMENT_TIMEOUT)).isEqualTo(2 * 3600 * 1000);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION_TIMEOUT)).isEqualTo(8 * 3600 * 1000);
    assertThat(value(SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR)).isEqualTo("\"");
    assertThat(value(SqlInfo.SQL_SEARCH_STRING_ESCAPE)).isEqualTo("\\");
    assertThat(value(SqlInfo.SQL_EXTRA_NAME_CHARACTERS)).isEqualTo("");
    assertThat(value(SqlInfo.SQL_SCHEMA_TERM)).isEqualTo("schema");
    assertThat(value(SqlInfo.SQL_CATALOG_TERM)).isEqualTo("catalog");
    assertThat(value(SqlInfo.SQL_PROCEDURE_TERM)).isEqualTo("procedure");
    assertThat(value(SqlInfo.SQL_MAX_COLUMN_NAME_LENGTH)).isEqualTo(0L);
  }

  @Test
  void keywordsAndFunctionsComeFromTheEngine() {
    List<String> keywords = strings(SqlInfo.SQL_KEYWORDS);
    // JDBC wants the keywords that are not SQL:2003 reserved words.
    assertThat(keywords).isNotEmpty().doesNotContain("SELECT", "FROM", "WHERE");
    assertThat(strings(SqlInfo.SQL_NUMERIC_FUNCTIONS)).contains("ABS", "MOD", "ROUND", "SQRT");
    assertThat(strings(SqlInfo.SQL_STRING_FUNCTIONS)).contains("UPPER", "LOWER", "TRIM", "MD5");
    assertThat(strings(SqlInfo.SQL_DATETIME_FUNCTIONS)).contains("CURRENT_DATE", "CURRENT_TIMESTAMP");
    assertThat(strings(SqlInfo.SQL_SYSTEM_FUNCTIONS)).contains("COALESCE", "NULLIF");
    assertThat(ServerSqlInfo.functions(SqlFunctionCategory.NUMERIC)).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void castSupportFollowsTheEngineTypeRules() {
    @SuppressWarnings("unchecked")
    Map<Integer, List<Integer>> convert = (Map<Integer, List<Integer>>) value(SqlInfo.SQL_SUPPORTS_CONVERT);
    assertThat(convert.get(SqlSupportsConvert.SQL_CONVERT_INTEGER_VALUE))
        .contains(
            SqlSupportsConvert.SQL_CONVERT_BIGINT_VALUE,
            SqlSupportsConvert.SQL_CONVERT_DECIMAL_VALUE,
            SqlSupportsConvert.SQL_CONVERT_VARCHAR_VALUE);
    assertThat(convert.get(SqlSupportsConvert.SQL_CONVERT_VARCHAR_VALUE))
        .contains(SqlSupportsConvert.SQL_CONVERT_DATE_VALUE, SqlSupportsConvert.SQL_CONVERT_TIMESTAMP_VALUE);
    assertThat(convert.get(SqlSupportsConvert.SQL_CONVERT_DATE_VALUE))
        .doesNotContain(SqlSupportsConvert.SQL_CONVERT_TIME_VALUE);
  }

  @Test
  void unknownIdsAreLeftOutAndRepeatsCollapse() {
    try (VectorSchemaRoot root = VALUES.write(allocator, List.of(504, 99_999, 0, 504))) {
      assertThat(root.getSchema()).isEqualTo(Schemas.GET_SQL_INFO_SCHEMA);
      RootContents.validate(root);
      assertThat(rowsWithTypeIds(root))
          .containsExactly(List.of(504, (byte) 0, "\""), List.of(0, (byte) 0, "SQE"));
    }
    try (VectorSchemaRoot root = VALUES.write(allocator, List.of(99_999))) {
      assertThat(root.getRowCount()).isZero();
    }
  }

  @Test
  void noIdsMeansEveryIdInIdOrderAndEveryRowSurvivesIpc() throws IOException {
    try (VectorSchemaRoot root = VALUES.write(allocator, List.of())) {
      assertThat(root.getRowCount()).isEqualTo(VALUES.all().size());
      List<List<Object>> before = rowsWithTypeIds(root);
      assertThat(before).extracting(r -> (Integer) r.get(0)).isSorted();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
      try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator)) {
        assertThat(reader.loadNextBatch()).isTrue();
        assertThat(rowsWithTypeIds(reader.getVectorSchemaRoot())).isEqualTo(before);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(SqlInfo id) {
    return (List<String>) value(id);
  }

  private static Object value(SqlInfo id) {
    return VALUES.get(id.getNumber()).orElseThrow().value();
  }

  /** Each row as (id, union type id, value), values as plain Java objects. */
  private static List<List<Object>> rowsWithTypeIds(VectorSchemaRoot root) {
    UInt4Vector names = (UInt4Vector) root.getVector("info_name");
    DenseUnionVector values = (DenseUnionVector) root.getVector("value");
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < root.getRowCount(); i++) {
      rows.add(List.of(names.get(i), values.getTypeId(i), plain(values.getObject(i))));
    }
    return rows;
  }

  private static Object plain(Object value) {
    if (value instanceof Text) {
      return value.toString();
    }
    if (value instanceof List<?> list) {
      return list.stream().map(ServerSqlInfoTest::plain).toList();
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> plainMap = new LinkedHashMap<>();
      map.forEach((k, v) -> plainMap.put(plain(k), plain(v)));
      return plainMap;
    }
    return value;
  }

  /** What Arrow's {@link SqlInfoBuilder#send} produces for the ids: the reference. */
  private static List<List<Object>> sentByArrow(SqlInfoBuilder builder, List<Integer> ids) {
    List<List<Object>> rows = new ArrayList<>();
    builder.send(
        ids,
        new ServerStreamListener() {
          private VectorSchemaRoot root;

          @Override
          public void start(VectorSchemaRoot root, DictionaryProvider dictionaries, IpcOption option) {
            this.root = root;
          }

          @Override
          public void putNext() {
            rows.addAll(rowsWithTypeIds(root));
          }

          @Override
          public void putNext(ArrowBuf metadata) {
            putNext();
          }

          @Override
          public void error(Throwable t) {
            throw new AssertionError(t);
          }

          @Override
          public void completed() {}

          @Override
          public boolean isCancelled() {
            return false;
          }

          @Override
          public void setOnCancelHandler(Runnable handler) {}

          @Override
          public boolean isReady() {
            return true;
          }

          @Override
          public void putMetadata(ArrowBuf metadata) {}
        });
    return rows;
  }
}

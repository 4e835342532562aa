package io.sqe.sample.tpch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.IntStream;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class TpchQueriesTest {
  /**
   * The settings of the engine's parser (io.sqe.engine.sql.SqlDialect), which this module cannot
   * depend on.
   */
  private static final SqlParser.Config ENGINE_PARSER =
      SqlParser.config()
          .withQuoting(Quoting.DOUBLE_QUOTE)
          .withUnquotedCasing(Casing.TO_LOWER)
          .withQuotedCasing(Casing.UNCHANGED)
          .withCaseSensitive(false)
          .withConformance(SqlConformanceEnum.LENIENT);

  @Test
  void numbersAreOneToTwentyTwo() {
    assertThat(TpchQueries.numbers())
        .containsExactlyElementsOf(IntStream.rangeClosed(1, 22).boxed().toList());
  }

  @Test
  void rejectsUnknownNumbers() {
    assertThatThrownBy(() -> TpchQueries.query(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TpchQueries.query(23)).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest(name = "q{0}")
  @MethodSource("io.sqe.sample.tpch.TpchQueries#numbers")
  void parsesWithCalcite(int n) throws SqlParseException {
    String sql = TpchQueries.query(n);
    assertThat(sql).doesNotEndWith(";").doesNotContain("::");

    SqlNode parsed = SqlParser.create(sql, ENGINE_PARSER).parseQuery();

    assertThat(parsed.getKind().belongsTo(org.apache.calcite.sql.SqlKind.QUERY)).isTrue();
  }
}

package io.sqe.engine.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;

/** Parses statements for tests and checks that each one survives a round trip through its SQL text. */
final class ParsedStatements {
  private ParsedStatements() {}

  /**
   * Parses {@code sql}, checks the node's class, writes it back as SQL, parses that and checks that
   * it writes the same text again.
   */
  static <T extends SqlNode> T parse(String sql, Class<T> type) {
    SqlNode node = SqeParser.parse(sql);
    assertThat(node).as(sql).isInstanceOf(type);
    String text = SqlDialect.toSql(node);
    SqlNode again = SqeParser.parse(text);
    assertThat(again).as(text).isInstanceOf(type);
    assertThat(SqlDialect.toSql(again)).as("round trip of %s", sql).isEqualTo(text);
    return type.cast(node);
  }

  /** The segments of an identifier joined by dots. */
  static String name(SqlIdentifier identifier) {
    return String.join(".", identifier.names);
  }

  /** The SQL text of a node on one line, for comparing expressions. */
  static String sql(SqlNode node) {
    return node == null ? null : SqlDialect.toSql(node).replaceAll("\\s+", " ");
  }
}

package io.sqe.engine.sql.ddl;

import java.util.List;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlWriter;

/** Pieces of SQL text that several statements write the same way. */
final class Unparsing {
  private Unparsing() {}

  /** Writes {@code (a, b, c)}. */
  static void parenthesized(SqlWriter writer, List<? extends SqlNode> nodes) {
    SqlWriter.Frame frame = writer.startList("(", ")");
    for (SqlNode node : nodes) {
      writer.sep(",");
      node.unparse(writer, 0, 0);
    }
    writer.endList(frame);
  }

  /** Writes {@code a, b, c} without parentheses. */
  static void commaList(SqlWriter writer, List<? extends SqlNode> nodes) {
    SqlWriter.Frame frame = writer.startList("", "");
    for (SqlNode node : nodes) {
      writer.sep(",");
      node.unparse(writer, 0, 0);
    }
    writer.endList(frame);
  }

  /** Writes a sub-statement (a query after AS, a condition) on its own, without outer parentheses. */
  static void query(SqlWriter writer, SqlNode query) {
    writer.newlineAndIndent();
    query.unparse(writer, 0, 0);
  }
}

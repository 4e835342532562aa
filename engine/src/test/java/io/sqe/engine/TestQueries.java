package io.sqe.engine;

import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.session.Session;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;

/** Runs a statement through the engine, as the server would, and collects its rows and figures. */
public final class TestQueries {
  /** A statement's rows (text as {@code String}, binary as {@code ByteBuffer}) and its run's figures. */
  public record Result(List<List<Object>> rows, QueryStats stats) {}

  private TestQueries() {}

  public static Result run(QueryEngine engine, Session session, String sql) {
    Prepared prepared = engine.prepare(session, sql);
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution exec = engine.execute(session, prepared, List.of(), "q")) {
      while (exec.next()) {
        VectorSchemaRoot root = exec.root();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector vector : root.getFieldVectors()) {
            row.add(comparable(vector.getObject(r)));
          }
          rows.add(row);
        }
      }
      return new Result(rows, exec.context().stats());
    }
  }

  public static List<List<Object>> rows(QueryEngine engine, Session session, String sql) {
    return run(engine, session, sql).rows();
  }

  /** The text of the plan the engine makes for {@code sql}, a line per operator. */
  public static String plan(QueryEngine engine, Session session, String sql) {
    StringBuilder text = new StringBuilder();
    for (List<Object> row : rows(engine, session, "explain plan for " + sql)) {
      text.append(row.get(0)).append('\n');
    }
    return text.toString();
  }

  private static Object comparable(Object value) {
    if (value instanceof Text) {
      return value.toString();
    }
    if (value instanceof byte[] bytes) {
      return ByteBuffer.wrap(bytes);
    }
    return value;
  }

  /** The rows in the order of their text: for comparing results whose order no query fixes. */
  public static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparing(Object::toString));
    return copy;
  }
}

package io.sqe.engine.iceberg;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.expressions.UnboundTerm;
import org.apache.iceberg.expressions.UnboundTransform;
import org.apache.iceberg.types.Types;

/**
 * Moves an Iceberg filter from one schema of a table to another: Iceberg binds a filter by column
 * name, and a column renamed between two schemas (the snapshot a scan reads and the table's
 * current one, against which partition specs and Iceberg's own planning bind) keeps its field id,
 * not its name.
 */
final class FilterNames {
  private FilterNames() {}

  /**
   * {@code filter}, whose names are {@code from}'s, with each column named as {@code to} names the
   * column of the same field id. A predicate on a column {@code to} does not have becomes TRUE
   * (with NOT pushed down first, so the result keeps every row the filter keeps): what it returns
   * serves to skip files and row groups, never to decide a row.
   */
  static Expression translate(Expression filter, Schema from, Schema to) {
    if (from == to || from.asStruct().equals(to.asStruct())) {
      return filter;
    }
    return ExpressionVisitors.visit(Expressions.rewriteNot(filter), new ExpressionVisitors.ExpressionVisitor<>() {
      @Override
      public Expression alwaysTrue() {
        return Expressions.alwaysTrue();
      }

      @Override
      public Expression alwaysFalse() {
        return Expressions.alwaysFalse();
      }

      @Override
      public Expression and(Expression left, Expression right) {
        return Expressions.and(left, right);
      }

      @Override
      public Expression or(Expression left, Expression right) {
        return Expressions.or(left, right);
      }

      @Override
      public <T> Expression predicate(UnboundPredicate<T> predicate) {
        return renamed(predicate, from, to);
      }
    });
  }

  private static <T> Expression renamed(UnboundPredicate<T> predicate, Schema from, Schema to) {
    String name = predicate.ref().name();
    Types.NestedField field = from.findField(name);
    if (field == null) {
      // Not a column of the schema it was written for: binding reports it as it always has.
      return predicate;
    }
    String renamed = to.findColumnName(field.fieldId());
    if (renamed == null) {
      return Expressions.alwaysTrue();
    }
    if (renamed.equals(name)) {
      return predicate;
    }
    UnboundTerm<T> term = term(predicate.term(), renamed);
    if (predicate.literals() == null || predicate.literals().isEmpty()) {
      return Expressions.predicate(predicate.op(), term);
    }
    List<T> values = new ArrayList<>();
    for (Literal<T> literal : predicate.literals()) {
      values.add(literal.value());
    }
    return Expressions.predicate(predicate.op(), term, values);
  }

  @SuppressWarnings("unchecked")
  private static <T> UnboundTerm<T> term(UnboundTerm<T> term, String name) {
    if (term instanceof UnboundTransform) {
      return Expressions.transform(name, ((UnboundTransform<Object, T>) term).transform());
    }
    return Expressions.ref(name);
  }

  /**
   * The tasks with their residual filters moved from {@code from}'s names to {@code to}'s: the
   * tasks themselves when the names agree. The readers bind a task's residual to the columns
   * they read, which {@code to} names.
   */
  static List<FileScanTask> withResiduals(List<FileScanTask> tasks, Schema from, Schema to) {
    if (from == to || from.asStruct().equals(to.asStruct())) {
      return tasks;
    }
    String schemaJson = SchemaParser.toJson(to);
    Map<Integer, String> specs = new HashMap<>();
    List<FileScanTask> result = new ArrayList<>(tasks.size());
    for (FileScanTask task : tasks) {
      Expression residual = translate(task.residual(), from, to);
      String spec = specs.computeIfAbsent(task.spec().specId(), id -> PartitionSpecParser.toJson(task.spec()));
      result.add(new BaseFileScanTask(
          task.file(), task.deletes().toArray(new DeleteFile[0]), schemaJson, spec, ResidualEvaluator.unpartitioned(residual)));
    }
    return result;
  }
}

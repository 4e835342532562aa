package io.sqe.infoschema;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.calcite.DataContext;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.Sarg;

/**
 * What the conditions Calcite pushed into a metadata table's scan say about one name column:
 * {@code = 'x'}, {@code IN (...)} and ORs of them give exact names; {@code LIKE} and {@code ILIKE}
 * give a prefix. Anything else constrains nothing here. The conditions stay with Calcite, which
 * applies them to the rows again, so a filter only needs to accept every name they accept.
 */
final class PushedFilters {
  private final List<RexNode> conjuncts = new ArrayList<>();
  private final DataContext root;

  /** @param root the statement's values of dynamic parameters ({@code ?0}, {@code ?1}, ...) */
  PushedFilters(List<RexNode> filters, DataContext root) {
    for (RexNode filter : filters) {
      conjuncts.addAll(RelOptUtil.conjunctions(filter));
    }
    this.root = root;
  }

  /** The names of column {@code column} (an index into the table's row) the conditions may accept. */
  NameFilter on(int column) {
    NameFilter result = NameFilter.ANY;
    for (RexNode conjunct : conjuncts) {
      result = result.and(filter(conjunct, column));
    }
    return result;
  }

  private NameFilter filter(RexNode node, int column) {
    Optional<Set<String>> exact = exactValues(node, column);
    if (exact.isPresent()) {
      return NameFilter.exact(exact.get());
    }
    if (node.getKind() == SqlKind.LIKE && ((RexCall) node).getOperator() instanceof SqlLikeOperator) {
      return like((RexCall) node, column);
    }
    return NameFilter.ANY;
  }

  /** The only values the column may have for the condition to hold, when it says so. */
  private Optional<Set<String>> exactValues(RexNode node, int column) {
    switch (node.getKind()) {
      case EQUALS: {
        List<RexNode> operands = ((RexCall) node).getOperands();
        Optional<String> value = isColumn(operands.get(0), column) ? value(operands.get(1))
            : isColumn(operands.get(1), column) ? value(operands.get(0))
            : Optional.empty();
        return value.map(Set::of);
      }
      case SEARCH: {
        List<RexNode> operands = ((RexCall) node).getOperands();
        if (isColumn(operands.get(0), column) && operands.get(1) instanceof RexLiteral) {
          return points(((RexLiteral) operands.get(1)).getValueAs(Sarg.class));
        }
        return Optional.empty();
      }
      case OR: {
        Set<String> union = new LinkedHashSet<>();
        for (RexNode operand : ((RexCall) node).getOperands()) {
          Optional<Set<String>> values = exactValues(operand, column);
          if (values.isEmpty()) {
            return Optional.empty();
          }
          union.addAll(values.get());
        }
        return Optional.of(union);
      }
      case AND: {
        Set<String> intersection = null;
        for (RexNode operand : ((RexCall) node).getOperands()) {
          Optional<Set<String>> values = exactValues(operand, column);
          if (values.isPresent()) {
            if (intersection == null) {
              intersection = new LinkedHashSet<>(values.get());
            } else {
              intersection.retainAll(values.get());
            }
          }
        }
        return Optional.ofNullable(intersection);
      }
      default:
        return Optional.empty();
    }
  }

  /** The values of a search argument that is a list of single values ({@code IN}). */
  private static Optional<Set<String>> points(Sarg<?> sarg) {
    if (sarg == null || !sarg.isPoints()) {
      return Optional.empty();
    }
    Set<String> values = new LinkedHashSet<>();
    for (var range : sarg.rangeSet.asRanges()) {
      Object point = range.lowerEndpoint();
      if (!(point instanceof NlsString)) {
        return Optional.empty();
      }
      values.add(((NlsString) point).getValue());
    }
    return Optional.of(values);
  }

  /** LIKE and ILIKE: the names that start with the pattern's literal prefix. */
  private NameFilter like(RexCall call, int column) {
    SqlLikeOperator operator = (SqlLikeOperator) call.getOperator();
    List<RexNode> operands = call.getOperands();
    if (operator.isNegated() || !isColumn(operands.get(0), column)) {
      return NameFilter.ANY;
    }
    Optional<String> pattern = value(operands.get(1));
    Optional<String> escape = operands.size() > 2 ? value(operands.get(2)) : Optional.empty();
    if (pattern.isEmpty() || (operands.size() > 2 && escape.map(e -> e.length() != 1).orElse(true))) {
      return NameFilter.ANY;
    }
    StringBuilder prefix = new StringBuilder();
    boolean wildcard = false;
    String text = pattern.get();
    for (int i = 0; i < text.length() && !wildcard; i++) {
      char c = text.charAt(i);
      if (escape.isPresent() && c == escape.get().charAt(0) && i + 1 < text.length()) {
        prefix.append(text.charAt(++i));
      } else if (c == '%' || c == '_') {
        wildcard = true;
      } else {
        prefix.append(c);
      }
    }
    String literal = prefix.toString();
    if (operator.isCaseSensitive()) {
      return wildcard ? NameFilter.matching(name -> name.startsWith(literal)) : NameFilter.exact(literal);
    }
    String lower = literal.toLowerCase(Locale.ROOT);
    return wildcard
        ? NameFilter.matching(name -> name.toLowerCase(Locale.ROOT).startsWith(lower))
        : NameFilter.matching(name -> name.equalsIgnoreCase(literal));
  }

  /** Whether the expression is the column itself, perhaps cast to a text type that cuts nothing off. */
  private static boolean isColumn(RexNode node, int column) {
    RexNode inner = node;
    while (inner.getKind() == SqlKind.CAST && unbounded(inner.getType())) {
      inner = ((RexCall) inner).getOperands().get(0);
    }
    return inner instanceof RexInputRef && ((RexInputRef) inner).getIndex() == column;
  }

  private static boolean unbounded(RelDataType type) {
    return type.getFamily() == SqlTypeFamily.CHARACTER && type.getPrecision() == RelDataType.PRECISION_NOT_SPECIFIED;
  }

  /** The text value of a literal or a bound parameter, perhaps cast to text. */
  private Optional<String> value(RexNode node) {
    RexNode inner = node;
    while (inner.getKind() == SqlKind.CAST && unbounded(inner.getType())) {
      inner = ((RexCall) inner).getOperands().get(0);
    }
    if (inner instanceof RexLiteral) {
      return Optional.ofNullable(((RexLiteral) inner).getValueAs(String.class));
    }
    if (inner instanceof RexDynamicParam && root != null) {
      Object value = root.get(((RexDynamicParam) inner).getName());
      return value instanceof String ? Optional.of((String) value) : Optional.empty();
    }
    return Optional.empty();
  }
}

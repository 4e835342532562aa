package io.sqe.engine.sql;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;

/**
 * Rebalances chains of one associative operator, which the parser builds left-deep: {@code a OR b
 * OR c OR d} is {@code ((a OR b) OR c) OR d}, as deep as it is long, and every later stage
 * (validation, conversion, simplification, code generation) recurses once per level and, in
 * places, walks the whole subtree at each level. Balanced, {@code (a OR b) OR (c OR d)}, a chain
 * of n terms is log2(n) deep; the terms keep their order, so evaluation order is unchanged. Chains
 * of fewer than {@value #MIN_BALANCED} terms are left as they are.
 *
 * <p>Balanced are AND, OR and {@code ||}, which are associative whatever their operands, and
 * {@code +} and {@code *} when every term is an exact numeric literal ({@code 1 + 1 + ... + 1}):
 * their sum or product is exact in any grouping, where grouping columns differently could round
 * a floating-point sum differently or overflow at another step.
 *
 * <p>First, in an OR chain, {@value #MIN_IN_LIST} or more terms {@code column = literal} on one
 * column become {@code column IN (literal, ...)}, and in an AND chain terms {@code column <>
 * literal} become {@code column NOT IN (...)}: what SQL defines IN and NOT IN to mean, as BI tools
 * write them by the thousand. Calcite simplifies each inequality of a long AND against all the
 * others (1,000 of them did not plan in a minute); an IN list becomes one search of a set.
 */
public final class ExpressionChains {
  /** The fewest equalities (inequalities) on one column that become an IN (NOT IN) list. */
  public static final int MIN_IN_LIST = 20;

  /**
   * The shortest chain regrouped: shorter ones are cheap as they are, and keep the tree (and so
   * the plans) Calcite's own parser makes.
   */
  static final int MIN_BALANCED = 64;

  private static final Set<SqlKind> ASSOCIATIVE = Set.of(SqlKind.AND, SqlKind.OR, SqlKind.OTHER);
  private static final Set<SqlKind> ASSOCIATIVE_FOR_LITERALS = Set.of(SqlKind.PLUS, SqlKind.TIMES);

  private ExpressionChains() {}

  /** Rebalances the chains in {@code node}, in place, and returns it. */
  public static SqlNode balance(SqlNode node) {
    Deque<SqlNode> pending = new ArrayDeque<>();
    pending.push(node);
    while (!pending.isEmpty()) {
      SqlNode current = pending.pop();
      if (current instanceof SqlNodeList) {
        for (SqlNode element : (SqlNodeList) current) {
          if (element != null) {
            pending.push(element);
          }
        }
      } else if (current instanceof SqlCall) {
        SqlCall call = (SqlCall) current;
        List<SqlNode> chain = chainable(call) ? terms(call) : List.of();
        List<SqlNode> terms = call.getKind() == SqlKind.OR || call.getKind() == SqlKind.AND ? withInLists(call, chain) : chain;
        if (terms.size() == 1) {
          // The chain was one IN list; OR FALSE and AND TRUE leave it as it is, NULL included.
          boolean neutral = call.getKind() == SqlKind.AND;
          ((SqlBasicCall) call).setOperand(0, terms.get(0));
          ((SqlBasicCall) call).setOperand(1, SqlLiteral.createBoolean(neutral, call.getParserPosition()));
        } else if (terms != chain || terms.size() >= MIN_BALANCED && (isAssociative(call.getOperator()) || allExactLiterals(terms))) {
          int middle = terms.size() / 2;
          SqlBasicCall root = (SqlBasicCall) call;
          root.setOperand(0, balanced(call.getOperator(), terms.subList(0, middle)));
          root.setOperand(1, balanced(call.getOperator(), terms.subList(middle, terms.size())));
        }
        for (SqlNode operand : terms.isEmpty() ? call.getOperandList() : terms) {
          if (operand != null) {
            pending.push(operand);
          }
        }
      }
    }
    return node;
  }

  private static boolean chainable(SqlCall call) {
    return call instanceof SqlBasicCall
        && call.operandCount() == 2
        && (isAssociative(call.getOperator()) || ASSOCIATIVE_FOR_LITERALS.contains(call.getKind()));
  }

  /** AND, OR and string concatenation (whose kind Calcite leaves OTHER). */
  private static boolean isAssociative(SqlOperator operator) {
    return ASSOCIATIVE.contains(operator.getKind()) && (operator.getKind() != SqlKind.OTHER || operator.getName().equals("||"));
  }

  /** The terms of the chain of {@code call}'s operator that {@code call} heads, left to right. */
  private static List<SqlNode> terms(SqlCall call) {
    List<SqlNode> terms = new ArrayList<>();
    Deque<SqlNode> pending = new ArrayDeque<>();
    pending.push(call);
    while (!pending.isEmpty()) {
      SqlNode current = pending.pop();
      if (current instanceof SqlBasicCall
          && ((SqlBasicCall) current).getOperator() == call.getOperator()
          && ((SqlBasicCall) current).operandCount() == 2) {
        pending.push(((SqlBasicCall) current).operand(1));
        pending.push(((SqlBasicCall) current).operand(0));
      } else {
        terms.add(current);
      }
    }
    return terms;
  }

  /**
   * The terms with those that compare one column with a literal ({@code =} in an OR, {@code <>} in
   * an AND) gathered into an IN (NOT IN) list where there are {@link #MIN_IN_LIST} or more, at the
   * place of the first. Numbers and strings make separate lists, as they would not share a type.
   */
  private static List<SqlNode> withInLists(SqlCall chain, List<SqlNode> terms) {
    SqlKind comparison = chain.getKind() == SqlKind.OR ? SqlKind.EQUALS : SqlKind.NOT_EQUALS;
    Map<String, List<Integer>> byColumn = new LinkedHashMap<>();
    for (int i = 0; i < terms.size(); i++) {
      String key = columnComparedWithLiteral(terms.get(i), comparison);
      if (key != null) {
        byColumn.computeIfAbsent(key, k -> new ArrayList<>()).add(i);
      }
    }
    if (byColumn.values().stream().noneMatch(list -> list.size() >= MIN_IN_LIST)) {
      return terms;
    }
    List<SqlNode> result = new ArrayList<>(terms);
    for (List<Integer> positions : byColumn.values()) {
      if (positions.size() < MIN_IN_LIST) {
        continue;
      }
      SqlNodeList values = new SqlNodeList(chain.getParserPosition());
      SqlIdentifier column = null;
      for (int position : positions) {
        SqlBasicCall term = (SqlBasicCall) terms.get(position);
        boolean columnFirst = term.operand(0) instanceof SqlIdentifier;
        column = term.operand(columnFirst ? 0 : 1);
        values.add(term.operand(columnFirst ? 1 : 0));
        result.set(position, null);
      }
      SqlOperator in = comparison == SqlKind.EQUALS ? SqlStdOperatorTable.IN : SqlStdOperatorTable.NOT_IN;
      result.set(positions.get(0), in.createCall(terms.get(positions.get(0)).getParserPosition(), column, values));
    }
    result.removeIf(Objects::isNull);
    return result;
  }

  /** The column and kind of literal, if {@code term} is {@code column <comparison> literal} or the reverse. */
  private static String columnComparedWithLiteral(SqlNode term, SqlKind comparison) {
    if (term.getKind() != comparison || !(term instanceof SqlBasicCall) || ((SqlBasicCall) term).operandCount() != 2) {
      return null;
    }
    SqlNode a = ((SqlBasicCall) term).operand(0);
    SqlNode b = ((SqlBasicCall) term).operand(1);
    SqlNode column = a instanceof SqlIdentifier ? a : b;
    SqlNode literal = a instanceof SqlIdentifier ? b : a;
    if (!(column instanceof SqlIdentifier) || ((SqlIdentifier) column).isStar()) {
      return null;
    }
    String kind = literal instanceof SqlNumericLiteral ? "number" : literal instanceof SqlCharStringLiteral ? "string" : null;
    return kind == null ? null : kind + ":" + ((SqlIdentifier) column).names;
  }

  private static boolean allExactLiterals(List<SqlNode> terms) {
    return terms.stream().allMatch(t -> t instanceof SqlNumericLiteral && ((SqlNumericLiteral) t).isExact());
  }

  private static SqlNode balanced(SqlOperator operator, List<SqlNode> terms) {
    if (terms.size() == 1) {
      return terms.get(0);
    }
    int middle = terms.size() / 2;
    SqlNode left = balanced(operator, terms.subList(0, middle));
    SqlNode right = balanced(operator, terms.subList(middle, terms.size()));
    return new SqlBasicCall(operator, List.of(left, right), left.getParserPosition().plus(right.getParserPosition()));
  }
}

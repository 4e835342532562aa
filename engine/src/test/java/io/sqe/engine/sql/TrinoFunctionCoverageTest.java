package io.sqe.engine.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.validate.SqlNameMatchers;
import org.junit.jupiter.api.Test;

/**
 * How many of the functions Trino 476 lists in SHOW FUNCTIONS (functions.tsv, from dev/trino-reference)
 * SQE's operator table knows by name. The names it lacks are listed in missing-functions.txt and in
 * docs/sql.md; the test fails when that list is out of date.
 */
class TrinoFunctionCoverageTest {
  @Test
  void coverageOfTrinosFunctions() throws IOException {
    TreeSet<String> names = new TreeSet<>();
    for (String line : TrinoReferenceTest.resourceLines("trino/functions.tsv")) {
      if (!line.startsWith("#") && !line.startsWith("name\t")) {
        names.add(line.split("\t", -1)[0]);
      }
    }
    List<String> missing = new ArrayList<>();
    for (String name : names) {
      if (!resolves(name)) {
        missing.add(name);
      }
    }
    List<String> listed = TrinoReferenceTest.resourceLines("trino/missing-functions.txt").stream()
        .filter(l -> !l.isBlank() && !l.startsWith("#"))
        .toList();
    double coverage = 1.0 - (double) missing.size() / names.size();
    System.out.printf(Locale.ROOT, "Trino 476 functions: %d of %d (%.1f%%); missing: %s%n",
        names.size() - missing.size(), names.size(), 100 * coverage, String.join(" ", missing));
    assertThat(missing).as("Trino functions SQE lacks (missing-functions.txt and docs/sql.md)").isEqualTo(listed);
    assertThat(coverage).as("share of Trino 476's functions SQE has").isGreaterThanOrEqualTo(0.90);
  }

  /**
   * Whether SQE's operator table has a function of this name (any syntax, any argument types), or its
   * parser reads a call of it as a known function (date_trunc, which the grammar binds itself).
   */
  static boolean resolves(String name) {
    for (String arguments : List.of("x", "x, y")) {
      try {
        if (SqeParser.parseExpression(name + "(" + arguments + ")") instanceof SqlCall call
            && !(call.getOperator() instanceof SqlUnresolvedFunction)) {
          return true;
        }
      } catch (RuntimeException e) {
        // not a call the grammar knows with these arguments: look the name up below
      }
    }
    SqlIdentifier id = new SqlIdentifier(name.toUpperCase(Locale.ROOT), SqlParserPos.ZERO);
    for (SqlSyntax syntax : List.of(SqlSyntax.FUNCTION, SqlSyntax.FUNCTION_ID, SqlSyntax.FUNCTION_STAR, SqlSyntax.SPECIAL)) {
      List<SqlOperator> found = new ArrayList<>();
      SqlDialect.operatorTable().lookupOperatorOverloads(
          id, SqlFunctionCategory.USER_DEFINED_FUNCTION, syntax, found, SqlNameMatchers.withCaseSensitive(false));
      if (!found.isEmpty()) {
        return true;
      }
    }
    return false;
  }
}

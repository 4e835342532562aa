package io.sqe.engine.plan.offload;

import com.google.common.collect.ImmutableList;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.iceberg.IcebergTableScan;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.rel2sql.RelToSqlConverter;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.dialect.PrestoSqlDialect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.validate.SqlValidatorUtil;

/**
 * Writes a logical plan as one Trino statement (Calcite's relational-to-SQL conversion in
 * Presto's dialect, which Trino speaks), every Iceberg table named as its catalog has it and
 * pinned with {@code FOR VERSION AS OF} to the snapshot SQE planned against, so Trino reads
 * exactly the data SQE would. A plan that reads anything else (a system table, an empty table
 * with no snapshot to pin) cannot be written and fails with NOT_SUPPORTED.
 */
public final class TrinoStatements {
  /**
   * Presto's dialect, whose string literals keep the character set prefix Calcite gives them
   * ({@code _UTF-8'x'}: {@code supportsCharSet()} is not asked when a literal is quoted), which
   * Trino does not parse; its strings are Unicode anyway.
   */
  private static final PrestoSqlDialect TRINO = new PrestoSqlDialect(PrestoSqlDialect.DEFAULT_CONTEXT) {
    @Override
    public void quoteStringLiteral(StringBuilder buf, String charsetName, String val) {
      super.quoteStringLiteral(buf, null, val);
    }
  };

  private TrinoStatements() {}

  /**
   * The statement Trino runs for {@code plan}, a logical plan with no SQE-only nodes, and which of
   * its columns are the result's ({@code plan} may carry columns it only sorts by).
   */
  public static Statement write(RelNode plan, List<Integer> resultColumns) {
    RelNode scaled = plan.accept(new TrinoScales());
    Set<String> columns = new HashSet<>();
    columnNames(scaled, columns);
    SqlNode statement = new Converter(columns).visitRoot(scaled).asStatement();
    return new Statement(statement.toSqlString(TRINO).getSql(), resultColumns);
  }

  /**
   * The SELECT of a write Trino runs for {@code plan}, a logical plan with no SQE-only nodes whose
   * columns are all the result's: each column cast to its Trino type of {@code types} and named as
   * {@code names} says, so that the values Trino writes are those of the target's types whatever
   * types Trino gives the plan's expressions.
   */
  public static String select(RelNode plan, List<String> types, List<String> names) {
    int width = plan.getRowType().getFieldCount();
    if (types.size() != width || names.size() != width) {
      throw new IllegalArgumentException("The plan has " + width + " columns, not " + types.size() + " types and " + names.size() + " names");
    }
    List<Integer> all = IntStream.range(0, width).boxed().toList();
    StringBuilder sql = new StringBuilder("SELECT ");
    StringBuilder columns = new StringBuilder();
    for (int i = 0; i < width; i++) {
      String column = TrinoSyntax.identifier("c" + i);
      sql.append(i == 0 ? "" : ", ").append("CAST(").append(column).append(" AS ").append(types.get(i)).append(") AS ")
          .append(TrinoSyntax.identifier(names.get(i)));
      columns.append(i == 0 ? "" : ", ").append(column);
    }
    return sql.append(" FROM (").append(write(plan, all).sql()).append(") AS \"source\" (").append(columns).append(')').toString();
  }

  /**
   * Adds the (lower-cased) names of the columns of {@code rel}, its inputs and its sub-queries to
   * {@code names}. Table aliases must differ from them: Trino resolves {@code "nation"."n_name"}
   * in ORDER BY against an output column {@code nation} first (TPC-H Q9), and its names ignore case.
   */
  private static void columnNames(RelNode rel, Set<String> names) {
    rel.getRowType().getFieldNames().forEach(name -> names.add(name.toLowerCase(Locale.ROOT)));
    rel.getInputs().forEach(input -> columnNames(input, names));
    rel.accept(new RexShuttle() {
      @Override
      public RexNode visitSubQuery(RexSubQuery subQuery) {
        columnNames(subQuery.rel, names);
        return subQuery;
      }
    });
  }

  /**
   * A statement for Trino.
   *
   * @param sql its text
   * @param resultColumns the positions (from 0) of the result's columns among the statement's
   */
  public record Statement(String sql, List<Integer> resultColumns) {
    public Statement {
      java.util.Objects.requireNonNull(sql, "sql is null");
      resultColumns = List.copyOf(resultColumns);
    }
  }

  /**
   * Names and pins each table scan. Public because Calcite dispatches to {@code visit} methods by
   * reflection, which needs an accessible class.
   */
  public static final class Converter extends RelToSqlConverter {
    private Converter(Set<String> columnNames) {
      super(TRINO);
      // Calcite picks each alias not yet in this set: none is then also a column's name.
      aliasSet.addAll(columnNames);
    }

    @Override
    public Result visit(TableScan scan) {
      // The scan's own table: its RelOptTable may wrap the table under an access policy.
      IcebergTable table = scan instanceof IcebergTableScan ? ((IcebergTableScan) scan).icebergTable() : null;
      if (table == null) {
        throw new SqeException(
            ErrorCode.NOT_SUPPORTED, "Cannot offload a statement that reads " + String.join(".", scan.getTable().getQualifiedName()));
      }
      OptionalLong snapshot = table.plannedSnapshotId();
      if (snapshot.isEmpty()) {
        throw new SqeException(
            ErrorCode.NOT_SUPPORTED, "Cannot offload a statement that reads table " + table.id() + ", which has no snapshot");
      }
      List<String> names = new ArrayList<>();
      names.add(table.catalog().name());
      names.addAll(List.of(table.id().namespace().levels()));
      names.add(table.id().name());
      SqlNode pinned = VersionOf.OPERATOR.createCall(
          SqlParserPos.ZERO,
          new SqlIdentifier(names, SqlParserPos.ZERO),
          SqlLiteral.createExactNumeric(Long.toString(snapshot.getAsLong()), SqlParserPos.ZERO));
      // Aliased, as Calcite expects of a FROM item that is not a plain name, with an alias no other
      // scan has: a correlated sub-query's own scan of the table must not hide the outer one's
      // (TPC-H Q21's EXISTS on lineitem inside a query of lineitem).
      String alias = SqlValidatorUtil.uniquify(table.id().name(), new HashSet<>(aliasSet), SqlValidatorUtil.EXPR_SUGGESTER);
      SqlNode aliased = SqlStdOperatorTable.AS.createCall(SqlParserPos.ZERO, pinned, new SqlIdentifier(alias, SqlParserPos.ZERO));
      return result(aliased, ImmutableList.of(Clause.FROM), scan, null);
    }
  }

  /** {@code table FOR VERSION AS OF snapshot}, Trino's time travel to one Iceberg snapshot. */
  private static final class VersionOf extends SqlSpecialOperator {
    static final VersionOf OPERATOR = new VersionOf();

    private VersionOf() {
      // Binds tighter than AS, so the pinned name is not put in parentheses.
      super("FOR VERSION AS OF", SqlKind.OTHER, 100);
    }

    @Override
    public void unparse(SqlWriter writer, SqlCall call, int leftPrec, int rightPrec) {
      call.operand(0).unparse(writer, 0, 0);
      writer.keyword("FOR VERSION AS OF");
      call.operand(1).unparse(writer, 0, 0);
    }
  }
}

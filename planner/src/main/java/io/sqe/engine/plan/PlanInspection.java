package io.sqe.engine.plan;

import io.sqe.engine.iceberg.IcebergTableScan;
import io.sqe.engine.iceberg.ScanBytes;
import io.sqe.engine.sql.functions.TimestampMicros;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelVisitor;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;

/**
 * Looks through a finished plan for what its caching depends on: the Iceberg tables its scans
 * read, scans of anything else, and calls whose value is not a function of their arguments; and
 * for what its scans read, whose bytes decide whether it runs on a Trino cluster. A write target
 * learns here which of its rows the statement reads.
 */
final class PlanInspection {
  private PlanInspection() {}

  static void inspect(RelNode plan, PlanReads reads) {
    RexShuttle calls =
        new RexShuttle() {
          @Override
          public RexNode visitCall(RexCall call) {
            if (!deterministic(call.getOperator())) {
              reads.resultUncacheable("it calls " + call.getOperator().getName());
            }
            return super.visitCall(call);
          }
        };
    new RelVisitor() {
      @Override
      public void visit(RelNode node, int ordinal, RelNode parent) {
        if (node instanceof IcebergTableScan) {
          IcebergTableScan scan = (IcebergTableScan) node;
          reads.scanned(scan.icebergTable());
          reads.scanned(ScanBytes.of(scan));
          scan.planned();
        } else if (node instanceof TableScan) {
          reads.unversioned("a table that is not an Iceberg table");
        }
        node.accept(calls);
        super.visit(node, ordinal, parent);
      }
    }.go(plan);
  }

  /**
   * Whether {@code node}'s own expressions give the same values each time the node is evaluated
   * within one query: no non-deterministic call ({@code RAND}), no correlation variable. Its inputs
   * are not looked at.
   */
  static boolean repeatableExpressions(RelNode node) {
    boolean[] repeatable = {true};
    node.accept(
        new RexShuttle() {
          @Override
          public RexNode visitCall(RexCall call) {
            if (!call.getOperator().isDeterministic()) {
              repeatable[0] = false;
            }
            return super.visitCall(call);
          }

          @Override
          public RexNode visitCorrelVariable(RexCorrelVariable variable) {
            repeatable[0] = false;
            return variable;
          }
        });
    return repeatable[0];
  }

  /**
   * Whether a call's value depends only on its arguments and on what a cached result's key holds
   * (the user). SQE's microsecond timestamp functions are "dynamic" only to keep Calcite from
   * folding them into millisecond literals.
   */
  private static boolean deterministic(SqlOperator operator) {
    if (!operator.isDeterministic()) {
      return false;
    }
    if (!operator.isDynamicFunction() || TimestampMicros.isOurs(operator)) {
      return true;
    }
    return operator == SqlStdOperatorTable.USER
        || operator == SqlStdOperatorTable.CURRENT_USER
        || operator == SqlStdOperatorTable.SESSION_USER
        || operator == SqlStdOperatorTable.SYSTEM_USER;
  }
}

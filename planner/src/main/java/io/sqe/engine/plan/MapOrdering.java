package io.sqe.engine.plan;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelVisitor;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexFieldCollation;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Refuses a sort by MAP values: in ORDER BY, a window's ORDER BY or an aggregate's ORDER BY. Maps
 * have no order (as in Trino), and Calcite's comparator fails on them only once rows are sorted.
 */
final class MapOrdering {
  private MapOrdering() {}

  /** Checks {@code plan}, a converted (logical) plan, with its sub-queries. */
  static void check(RelNode plan) {
    RexShuttle expressions = new RexShuttle() {
      @Override
      public RexNode visitOver(RexOver over) {
        for (RexFieldCollation key : over.getWindow().orderKeys) {
          sortKey(key.left.getType());
        }
        return super.visitOver(over);
      }

      @Override
      public RexNode visitSubQuery(RexSubQuery subQuery) {
        check(subQuery.rel);
        return super.visitSubQuery(subQuery);
      }
    };
    new RelVisitor() {
      @Override
      public void visit(RelNode node, int ordinal, RelNode parent) {
        if (node instanceof Sort sort) {
          sortKeys(sort.getInput(), sort.getCollation().getFieldCollations());
        } else if (node instanceof Aggregate aggregate) {
          for (AggregateCall call : aggregate.getAggCallList()) {
            sortKeys(aggregate.getInput(), call.collation.getFieldCollations());
          }
        }
        node.accept(expressions);
        super.visit(node, ordinal, parent);
      }
    }.go(plan);
  }

  private static void sortKeys(RelNode input, Iterable<RelFieldCollation> keys) {
    for (RelFieldCollation key : keys) {
      sortKey(input.getRowType().getFieldList().get(key.getFieldIndex()).getType());
    }
  }

  private static void sortKey(RelDataType type) {
    if (holdsMap(type)) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "Cannot sort by a value of type " + type + ": maps have no order");
    }
  }

  private static boolean holdsMap(RelDataType type) {
    if (type.getSqlTypeName() == SqlTypeName.MAP) {
      return true;
    }
    if (type.getComponentType() != null && holdsMap(type.getComponentType())) {
      return true;
    }
    if (type.isStruct()) {
      for (RelDataTypeField field : type.getFieldList()) {
        if (holdsMap(field.getType())) {
          return true;
        }
      }
    }
    return false;
  }
}

package io.sqe.engine.plan;

import java.util.List;
import org.apache.calcite.rel.type.RelDataType;

/**
 * What a query returns and takes, from its validation alone, before any optimisation: what a view
 * stores as its columns.
 *
 * @param resultType the query's columns, as {@link PlannedQuery#resultType()} would give them
 * @param parameterTypes the types of its {@code ?} parameters, in order
 */
public record QueryShape(RelDataType resultType, List<RelDataType> parameterTypes) {
  public QueryShape {
    parameterTypes = List.copyOf(parameterTypes);
  }
}

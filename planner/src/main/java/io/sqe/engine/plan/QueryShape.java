package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.rel.type.RelDataType;

/**
 * What a query returns and takes, from its validation alone, before any optimisation: what a view
 * stores as its columns.
 *
 * @param resultType the query's columns, as {@link PlannedQuery#resultType()} would give them
 * @param parameterTypes the types of its {@code ?} parameters, in order
 * @param reads the tables, views and policy verdicts the validation read: the shape holds while
 *     they do
 */
public record QueryShape(RelDataType resultType, List<RelDataType> parameterTypes, PlanReads reads) {
  public QueryShape {
    parameterTypes = List.copyOf(parameterTypes);
    requireNonNull(reads, "reads is null");
  }
}

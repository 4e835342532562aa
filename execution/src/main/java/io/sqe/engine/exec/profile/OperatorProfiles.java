package io.sqe.engine.exec.profile;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The {@link OperatorStats} of one run's columnar operators, by the id of their plan node. */
public final class OperatorProfiles {
  private final Map<Integer, OperatorStats> operators = new ConcurrentHashMap<>();

  /** The figures of the operator of plan node {@code nodeId}, made at its first use. */
  public OperatorStats operator(int nodeId) {
    return operators.computeIfAbsent(nodeId, id -> new OperatorStats());
  }

  /** The figures of plan node {@code nodeId}, if an operator of it has run. */
  public Optional<OperatorStats> find(int nodeId) {
    return Optional.ofNullable(operators.get(nodeId));
  }

  public boolean isEmpty() {
    return operators.isEmpty();
  }
}

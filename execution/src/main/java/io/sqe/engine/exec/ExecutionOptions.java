package io.sqe.engine.exec;

import io.sqe.engine.session.OptionText;
import java.util.Map;
import java.util.Set;

/**
 * Options that change how a compiled plan runs, not its shape: set for the server under {@code
 * execution.*} in {@code sqe.yaml}, overridden per session with {@code SET}, and read by running
 * code through {@link QueryContext#options()}.
 *
 * @param longKeyJoin whether hash joins whose keys fit one long build SQE's primitive table
 *     ({@code io.sqe.engine.exec.join.LongKeyHashJoin}) instead of Calcite's row-level one; off
 *     only to compare the two
 */
public record ExecutionOptions(boolean longKeyJoin) {
  public static final String LONG_KEY_JOIN = "execution.long-key-join";
  /** The options' names, as {@code sqe.yaml} and {@code SET} write them. */
  public static final Set<String> NAMES = Set.of(LONG_KEY_JOIN);
  public static final ExecutionOptions DEFAULT = new ExecutionOptions(true);

  /**
   * These options with {@code name} (normalized, see {@link OptionText#normalize}) set to {@code
   * value}; an INVALID_ARGUMENT {@link io.sqe.engine.SqeException} for a bad value.
   *
   * @throws IllegalArgumentException when {@code name} is not in {@link #NAMES}
   */
  public ExecutionOptions with(String name, String value) {
    switch (name) {
      case LONG_KEY_JOIN:
        return new ExecutionOptions(OptionText.bool(name, value));
      default:
        throw new IllegalArgumentException("Not an execution option: " + name);
    }
  }

  /** These options with those of {@code values} (by normalized name) that are execution options. */
  public ExecutionOptions withAll(Map<String, String> values) {
    ExecutionOptions options = this;
    for (Map.Entry<String, String> value : values.entrySet()) {
      if (NAMES.contains(value.getKey())) {
        options = options.with(value.getKey(), value.getValue());
      }
    }
    return options;
  }
}

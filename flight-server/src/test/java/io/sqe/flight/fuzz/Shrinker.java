package io.sqe.flight.fuzz;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Delta debugging (Zeller's ddmin) over a statement's tokens: removes ever smaller runs of tokens
 * while the statement still fails the same way, then single tokens, within a budget of tries.
 */
final class Shrinker {
  private final Predicate<String> stillFails;
  private final int budget;
  private int tries;

  /** {@code stillFails} runs a candidate and says whether it fails as the original did. */
  Shrinker(Predicate<String> stillFails, int budget) {
    this.stillFails = requireNonNull(stillFails, "stillFails is null");
    this.budget = budget;
  }

  /** The smallest failing statement found, or {@code sql} itself when none smaller fails. */
  String shrink(String sql) {
    List<String> tokens = SqlTokens.split(sql);
    if (!test(tokens)) {
      // Joined with single spaces it no longer fails the same way: keep the statement as it was.
      return sql;
    }
    int chunks = 2;
    while (tokens.size() >= 2 && tries < budget) {
      int size = (int) Math.ceil(tokens.size() / (double) chunks);
      boolean reduced = false;
      for (int start = 0; start < tokens.size() && tries < budget; start += size) {
        List<String> complement = new ArrayList<>(tokens.subList(0, start));
        complement.addAll(tokens.subList(Math.min(tokens.size(), start + size), tokens.size()));
        if (!complement.isEmpty() && test(complement)) {
          tokens = complement;
          chunks = Math.max(chunks - 1, 2);
          reduced = true;
          break;
        }
      }
      if (!reduced) {
        if (chunks >= tokens.size()) {
          break;
        }
        chunks = Math.min(tokens.size(), chunks * 2);
      }
    }
    return SqlTokens.join(tokens);
  }

  int tries() {
    return tries;
  }

  private boolean test(List<String> tokens) {
    tries++;
    return stillFails.test(SqlTokens.join(tokens));
  }
}

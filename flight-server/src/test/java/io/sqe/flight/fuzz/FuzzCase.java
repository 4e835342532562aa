package io.sqe.flight.fuzz;

import static java.util.Objects.requireNonNull;

import io.sqe.flight.fuzz.StatementGenerator.Kind;
import io.sqe.flight.fuzz.StatementRunner.Path;
import java.util.List;
import java.util.Random;

/**
 * One statement of a fuzz run: its number, how it was made ({@code query}, {@code dml}, {@code
 * mutated}, {@code session}), its SQL, and how it is sent.
 */
record FuzzCase(int index, String mode, String sql, boolean update, Path path) {
  FuzzCase {
    requireNonNull(mode, "mode is null");
    requireNonNull(sql, "sql is null");
    requireNonNull(path, "path is null");
  }

  /**
   * The statement(s) of case {@code index} of the run with {@code seed}: 75% generated statements
   * (8% of them DML), 20% mutated queries, 5% a session statement followed by a query in the same
   * session. Each case has its own random numbers, derived from the seed and its index, so any
   * case is built again alone. Of generated statements, 6% go through JDBC and 10% are prepared.
   */
  static List<FuzzCase> of(int index, long seed) {
    Random random = new Random(mix(seed + index * 0x9E3779B97F4A7C15L));
    StatementGenerator generator = new StatementGenerator(random);
    int mode = random.nextInt(100);
    if (mode < 5) {
      return List.of(
          new FuzzCase(index, "session", generator.sessionStatement(), false, Path.FLIGHT),
          new FuzzCase(index, "session", generator.sessionProbe(), false, Path.FLIGHT));
    }
    if (mode < 25) {
      String mutated = new SqlMutator(random).mutate(generator.query());
      return List.of(new FuzzCase(index, "mutated", mutated, false, random.nextInt(6) == 0 ? Path.JDBC : Path.FLIGHT));
    }
    StatementGenerator.Statement statement = generator.statement();
    int path = random.nextInt(100);
    Path via = path < 6 ? Path.JDBC : path < 16 ? Path.PREPARED : Path.FLIGHT;
    boolean update = statement.kind() == Kind.UPDATE;
    return List.of(new FuzzCase(index, update ? "dml" : "query", statement.sql(), update, via));
  }

  /** The SplitMix64 finaliser: neighbouring indexes get unrelated seeds. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}

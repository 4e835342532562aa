package io.sqe.flight.fuzz;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a fuzz run saw: outcomes by code, statements and time by mode and path, the distinct error
 * classes with an example each, and the failures, each matched against {@link KnownFailures}.
 */
final class FuzzReport {
  /** A failed case and how it failed; {@code known} is null for a failure no one is fixing yet. */
  record Failure(FuzzCase c, Outcome outcome, KnownFailures.Known known) {}

  private static final int CLASSES_SHOWN = 25;

  private final long seed;
  private final boolean strict;
  private final Map<String, Integer> codes = new TreeMap<>();
  private final Map<String, Integer> modes = new TreeMap<>();
  private final Map<String, Long> millis = new TreeMap<>();
  private final Map<String, Integer> classes = new TreeMap<>();
  private final Map<String, String> examples = new LinkedHashMap<>();
  private final List<Failure> failures = new ArrayList<>();

  /** {@code strict} counts known failures as new ones. */
  FuzzReport(long seed, boolean strict) {
    this.seed = seed;
    this.strict = strict;
  }

  void record(FuzzCase c, Outcome outcome) {
    requireNonNull(c, "c is null");
    codes.merge(outcome.code(), 1, Integer::sum);
    modes.merge(c.mode(), 1, Integer::sum);
    millis.merge(c.mode() + "/" + c.path(), outcome.elapsed().toMillis(), Long::sum);
    if (!outcome.isOk()) {
      classes.merge(outcome.errorClass(), 1, Integer::sum);
      examples.putIfAbsent(outcome.errorClass(), c.sql());
    }
    if (outcome.isFailure()) {
      KnownFailures.Known known = strict ? null : KnownFailures.match(c.sql(), outcome).orElse(null);
      failures.add(new Failure(c, outcome, known));
      System.out.printf("%s failure at statement %d (%s, %s): %s%n  %s%n  replay: %s%n", known == null ? "NEW" : "known",
          c.index(), c.mode(), c.path(), outcome.errorClass(), abbreviate(c.sql()), replay(c.index()));
    }
  }

  List<Failure> failures() {
    return List.copyOf(failures);
  }

  List<Failure> newFailures() {
    return failures.stream().filter(f -> f.known() == null).toList();
  }

  /** The system properties that run the statements from the last scratch-table rebuild to {@code index}. */
  String replay(int index) {
    int first = index / SqlFuzzTest.SCRATCH_LIFE * SqlFuzzTest.SCRATCH_LIFE;
    return "-Dsqe.fuzz.seed=" + seed + " -Dsqe.fuzz.first=" + first + " -Dsqe.fuzz.statements=" + (index - first + 1);
  }

  /**
   * Prints the figures: statements by mode and outcome, wall and CPU seconds, the most frequent
   * error classes (all of them, with an example, when {@code verbose}), and the shrunk reproducers.
   */
  void print(double seconds, double cpuSeconds, List<String> reproducers, boolean verbose) {
    int statements = codes.values().stream().mapToInt(Integer::intValue).sum();
    System.out.printf(
        "SqlFuzzTest: seed %d, %d statements (%s) in %.1f s (%.1f s of CPU): %s; %d distinct error classes; %d failures (%d known)%n",
        seed, statements, modes, seconds, cpuSeconds, codes, classes.size(), failures.size(),
        failures.size() - newFailures().size());
    System.out.println("  milliseconds by mode and path: " + millis);
    classes.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(verbose ? Long.MAX_VALUE : CLASSES_SHOWN)
        .forEach(e -> {
          System.out.printf("  %5d  %s%n", e.getValue(), e.getKey());
          if (verbose) {
            System.out.printf("         e.g. %s%n", abbreviate(examples.get(e.getKey())));
          }
        });
    if (!reproducers.isEmpty()) {
      System.out.println("Failures, one per class, shrunk:");
      reproducers.forEach(r -> System.out.println("  " + r));
    }
  }

  static String abbreviate(String sql) {
    String oneLine = sql.replace("\n", "\\n").replace("\u0000", "\\0");
    return oneLine.length() <= 600 ? oneLine : oneLine.substring(0, 600) + "... (" + sql.length() + " chars)";
  }
}

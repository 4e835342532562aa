package io.sqe.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/** The benchmarks' command lines: {@code --name value} and {@code --name=value}, and flags without a value. */
final class CommandLineArguments {
  private CommandLineArguments() {}

  /**
   * A benchmark's options from its {@code main}'s arguments: empty after printing {@code usage} for
   * {@code --help} or {@code -h}; a bad argument prints its error and the usage and exits with 2.
   */
  static <T> Optional<T> optionsOrExit(String[] args, String usage, Function<String[], T> parse) {
    if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
      System.out.print(usage);
      return Optional.empty();
    }
    try {
      return Optional.of(parse.apply(args));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.print(usage);
      System.exit(2);
      return Optional.empty();
    }
  }

  /** The arguments by name, in order; a flag maps to {@code "true"}. */
  static Map<String, String> parse(Set<String> flags, String... args) {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      String value = null;
      int equals = name.indexOf('=');
      if (name.startsWith("--") && equals > 0) {
        value = name.substring(equals + 1);
        name = name.substring(0, equals);
      }
      if (flags.contains(name)) {
        values.put(name, "true");
        continue;
      }
      if (value == null) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("Missing value for " + name);
        }
        value = args[++i];
      }
      values.put(name, value);
    }
    return values;
  }

  /** Fails on the first argument not in {@code known}. */
  static void rejectUnknown(Map<String, String> values, Set<String> known) {
    for (String name : values.keySet()) {
      if (!known.contains(name)) {
        throw new IllegalArgumentException("Unknown argument: " + name);
      }
    }
  }

  static int integer(Map<String, String> values, String name, int fallback) {
    return values.containsKey(name) ? integer(name, values.get(name)) : fallback;
  }

  static double number(Map<String, String> values, String name, double fallback) {
    return values.containsKey(name) ? number(name, values.get(name)) : fallback;
  }

  static double number(String name, String value) {
    try {
      return Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number, not '" + value + "'");
    }
  }

  static int integer(String name, String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, not '" + value + "'");
    }
  }
}

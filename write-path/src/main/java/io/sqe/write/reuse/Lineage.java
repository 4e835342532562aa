package io.sqe.write.reuse;

import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What a materialization was computed from, as the summary of the snapshot that committed it
 * records it: the fingerprint of the statement's normalized plan and of the table it makes, every
 * table and view version it read, the effective policy of the user who wrote it and SQE's
 * version. Two statements with equal lineages write the same rows.
 *
 * @param fingerprint a hash of the optimised plan (not the SQL text), the session facts it was
 *     planned with, its parameter values and the new table's schema and layout
 * @param inputs each table scanned at its snapshot, each table planned with its schema and each
 *     view expanded at its version, one per element, sorted
 * @param policy a hash of the writing user and of the access (privileges, row filter, masks,
 *     hidden columns) the plan applied to each object it read
 * @param version the SQE version that computed it
 * @param context a hash of what the fingerprint covers besides the plan (the session facts, the
 *     parameter values, the new table's shape): equal contexts with unequal fingerprints are the
 *     same statement planned otherwise, which computes the same rows; empty when not recorded
 */
public record Lineage(String fingerprint, List<String> inputs, String policy, String version, String context) {
  /** Snapshot summary property: {@link #fingerprint()}. */
  public static final String FINGERPRINT = "sqe.lineage.fingerprint";
  /** Snapshot summary property: {@link #inputs()}, separated by {@value #INPUT_SEPARATOR}. */
  public static final String INPUTS = "sqe.lineage.inputs";
  /** Snapshot summary property: {@link #policy()}. */
  public static final String POLICY = "sqe.lineage.policy";
  /** Snapshot summary property: {@link #version()}. */
  public static final String VERSION = "sqe.version";
  /** Snapshot summary property: {@link #context()}. */
  public static final String CONTEXT = "sqe.lineage.context";
  /** Snapshot summary property: the rows the statement wrote, which a reuse answers with. */
  public static final String ROWS = "sqe.lineage.rows";
  /**
   * Snapshot summary property: the schema, partition spec, sort order and properties the table
   * had as the statement committed, so that a change to the table itself (an ALTER) since is seen.
   */
  public static final String TARGET = "sqe.lineage.target";

  private static final String INPUT_SEPARATOR = ";";

  public Lineage {
    requireNonNull(fingerprint, "fingerprint is null");
    inputs = List.copyOf(inputs);
    requireNonNull(policy, "policy is null");
    requireNonNull(version, "version is null");
    requireNonNull(context, "context is null");
  }

  /** The summary properties of a snapshot that wrote {@code rows} rows with this lineage into a table shaped {@code target}. */
  public Map<String, String> summary(long rows, String target) {
    Map<String, String> summary = new HashMap<>();
    summary.put(FINGERPRINT, fingerprint);
    summary.put(INPUTS, String.join(INPUT_SEPARATOR, inputs.stream().map(Lineage::escape).toList()));
    summary.put(POLICY, policy);
    summary.put(VERSION, version);
    summary.put(CONTEXT, context);
    summary.put(ROWS, Long.toString(rows));
    summary.put(TARGET, requireNonNull(target, "target is null"));
    return summary;
  }

  /** The lineage a snapshot's summary records; empty when it records none (not written by a materialization). */
  public static Optional<Lineage> of(Map<String, String> summary) {
    if (summary == null) {
      return Optional.empty();
    }
    String fingerprint = summary.get(FINGERPRINT);
    String inputs = summary.get(INPUTS);
    String policy = summary.get(POLICY);
    String version = summary.get(VERSION);
    if (fingerprint == null || inputs == null || policy == null || version == null) {
      return Optional.empty();
    }
    List<String> read = inputs.isEmpty() ? List.of() : Stream.of(inputs.split(INPUT_SEPARATOR, -1)).map(Lineage::unescape).toList();
    return Optional.of(new Lineage(fingerprint, read, policy, version, summary.getOrDefault(CONTEXT, "")));
  }

  /**
   * One element of {@link #inputs()}: {@code table <catalog>.<id> <uuid> snapshot <id>}, {@code
   * table <catalog>.<id> <uuid> schema <id>} or {@code view <catalog>.<id> <uuid> version <id>}.
   *
   * @param kind {@code table} or {@code view}
   * @param name the catalog, then the identifier, dotted (a quoted part may hold spaces)
   * @param label {@code snapshot}, {@code schema} or {@code version}: what {@code value} is
   */
  public record Input(String kind, String name, String uuid, String label, long value) {
    public Input {
      requireNonNull(kind, "kind is null");
      requireNonNull(name, "name is null");
      requireNonNull(uuid, "uuid is null");
      requireNonNull(label, "label is null");
    }

    /** {@code input} read back; empty when it is not in the form {@link MaterializationReuse} writes. */
    public static Optional<Input> parse(String input) {
      String[] tokens = input.split(" ");
      if (tokens.length < 5) {
        return Optional.empty();
      }
      try {
        return Optional.of(new Input(
            tokens[0],
            String.join(" ", List.of(tokens).subList(1, tokens.length - 3)),
            tokens[tokens.length - 3],
            tokens[tokens.length - 2],
            Long.parseLong(tokens[tokens.length - 1])));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }

    /** The input as {@link Lineage#inputs()} holds it. */
    public String text() {
      return kind + " " + name + " " + uuid + " " + label + " " + value;
    }
  }

  /** An input as the summary holds it: a quoted name may contain the separator. */
  private static String escape(String input) {
    return input.replace("%", "%25").replace(INPUT_SEPARATOR, "%3B");
  }

  private static String unescape(String input) {
    return input.replace("%3B", INPUT_SEPARATOR).replace("%25", "%");
  }
}

package io.sqe.infoschema;

import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which names of one kind (schemas, tables) a metadata request wants: every name, some exact
 * names (looked up one by one, without listing what holds them), or the names a predicate accepts
 * (listed, then tested).
 */
public final class NameFilter {
  public static final NameFilter ANY = new NameFilter(null, name -> true);

  private final Set<String> exact;
  private final Predicate<String> accepts;

  private NameFilter(Set<String> exact, Predicate<String> accepts) {
    this.exact = exact;
    this.accepts = accepts;
  }

  /** Exactly these names, compared case-sensitively. */
  public static NameFilter exact(Set<String> names) {
    Set<String> copy = Set.copyOf(names);
    return new NameFilter(copy, copy::contains);
  }

  public static NameFilter exact(String name) {
    return exact(Set.of(name));
  }

  /** The names {@code accepts} accepts. */
  public static NameFilter matching(Predicate<String> accepts) {
    return new NameFilter(null, accepts);
  }

  /** A Flight SQL (JDBC) name pattern; null means any name, one without wildcards an exact name. */
  public static NameFilter like(String pattern) {
    if (pattern == null) {
      return ANY;
    }
    LikePattern like = LikePattern.of(pattern);
    return like.literal().map(NameFilter::exact).orElseGet(() -> matching(like::matches));
  }

  /** The names both filters accept. */
  public NameFilter and(NameFilter other) {
    if (this == ANY) {
      return other;
    }
    if (other == ANY) {
      return this;
    }
    if (exact != null || other.exact != null) {
      Set<String> names = new LinkedHashSet<>();
      for (String name : exact != null ? exact : other.exact) {
        if (accepts(name) && other.accepts(name)) {
          names.add(name);
        }
      }
      return exact(names);
    }
    return matching(accepts.and(other.accepts));
  }

  /** The names to look up one by one, when the filter accepts only those. */
  public Optional<Set<String>> exactNames() {
    return Optional.ofNullable(exact);
  }

  public boolean accepts(String name) {
    return accepts.test(name);
  }

  @Override
  public String toString() {
    return this == ANY ? "<any>" : exact != null ? "in " + exact : "<matching>";
  }
}

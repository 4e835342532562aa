package io.sqe.engine.security;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.session.Principal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An access policy read from a file and read again when the file changes, checked at most once
 * per refresh period. A file that fails to load at start is an error; a later bad version is
 * logged and the last good policy stays in force.
 */
public final class PolicyFile implements AccessControl {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyFile.class);

  private final Path path;
  private final long refreshNanos;
  private volatile Loaded loaded;
  private volatile long nextCheck;

  private record Loaded(AccessRules rules, FileTime modified, long size) {}

  private PolicyFile(Path path, Duration refreshPeriod, Loaded loaded) {
    this.path = path;
    this.refreshNanos = refreshPeriod.toNanos();
    this.loaded = loaded;
    this.nextCheck = System.nanoTime() + refreshNanos;
  }

  /**
   * Loads the policy in {@code path} (YAML when it ends in .yaml or .yml, else JSON).
   *
   * @param refreshPeriod how often to look for a changed file; zero never looks again
   * @throws IllegalArgumentException when the file is missing or not a valid policy
   */
  public static PolicyFile load(Path path, Duration refreshPeriod) {
    requireNonNull(path, "path is null");
    requireNonNull(refreshPeriod, "refreshPeriod is null");
    Loaded loaded;
    try {
      loaded = read(path);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read the policy file " + path + ": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid policy file " + path + ": " + e.getMessage(), e);
    }
    for (String section : loaded.rules.absentSections()) {
      LOG.warn("The policy file {} has no '{}' section: it allows everything that section would decide", path, section);
    }
    LOG.info("Access policy loaded from {}", path);
    return new PolicyFile(path, refreshPeriod, loaded);
  }

  private static Loaded read(Path path) throws IOException {
    FileTime modified = Files.getLastModifiedTime(path);
    long size = Files.size(path);
    String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
    AccessRules rules = AccessRules.parse(Files.readString(path), name.endsWith(".yaml") || name.endsWith(".yml"));
    return new Loaded(rules, modified, size);
  }

  /** The policy in force, after reading the file again if it changed and the refresh period is up. */
  AccessRules rules() {
    if (refreshNanos > 0 && System.nanoTime() - nextCheck >= 0) {
      refresh();
    }
    return loaded.rules;
  }

  /** Reads the file now if it changed since it was last read. */
  public synchronized void refresh() {
    nextCheck = System.nanoTime() + refreshNanos;
    Loaded current = loaded;
    try {
      if (Files.getLastModifiedTime(path).equals(current.modified) && Files.size(path) == current.size) {
        return;
      }
      loaded = read(path);
      LOG.info("Access policy reloaded from {}", path);
    } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
      LOG.error("Keeping the previous access policy: cannot reload {}: {}", path, e.getMessage());
    }
  }

  public List<String> absentSections() {
    return loaded.rules.absentSections();
  }

  @Override
  public TableAccess tableAccess(Principal principal, String catalog, String schema, String table) {
    return rules().tableAccess(principal, catalog, schema, table);
  }

  @Override
  public boolean ownsSchema(Principal principal, String catalog, String schema) {
    return rules().ownsSchema(principal, catalog, schema);
  }

  @Override
  public boolean canSeeSchema(Principal principal, String catalog, String schema) {
    return rules().canSeeSchema(principal, catalog, schema);
  }
}

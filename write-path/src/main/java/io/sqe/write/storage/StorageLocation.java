package io.sqe.write.storage;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.CatalogStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;

/**
 * A storage location taken apart for comparison: the scheme's family ({@code s3a} and {@code s3n}
 * are {@code s3}), the authority (an S3 bucket; none for local files) and the path's segments.
 * One location contains another when they share family and authority and its segments start the
 * other's, so {@code /a/b} contains {@code /a/b/c} but not {@code /a/bc}, with or without trailing
 * slashes.
 *
 * @param scheme the scheme as written, lower case
 * @param authority the authority, empty for none
 * @param segments the path's segments, from the root
 */
public record StorageLocation(String scheme, String authority, List<String> segments) {
  private static final Pattern SCHEME = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$", Pattern.DOTALL);

  public StorageLocation {
    requireNonNull(scheme, "scheme is null");
    requireNonNull(authority, "authority is null");
    segments = List.copyOf(segments);
  }

  /**
   * A location a statement chose, which must be unambiguous: absolute, with an authority for
   * object storage and none (or {@code localhost}) for local files; no {@code .} or {@code ..}
   * segment, no {@code //} inside the path, no {@code ?}, {@code #}, {@code %} or {@code \}, no
   * control character and no surrounding spaces. A path without a scheme is a local file.
   *
   * @throws IllegalArgumentException saying what is wrong
   */
  public static StorageLocation parseChosen(String text) {
    if (text.isEmpty()) {
      throw new IllegalArgumentException("it is empty");
    }
    if (!text.strip().equals(text)) {
      throw new IllegalArgumentException("it starts or ends with a space");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isISOControl(c)) {
        throw new IllegalArgumentException("it contains the control character " + String.format("U+%04X", (int) c));
      }
      if (c == '?' || c == '#' || c == '%' || c == '\\') {
        throw new IllegalArgumentException(
            "it contains '" + c + "', which storage clients read in different ways (a query, a fragment, an escape, a separator)");
      }
    }
    Parts parts = split(text);
    if (parts.path.isEmpty() && parts.scheme.equals("file")) {
      throw new IllegalArgumentException("it names no directory");
    }
    if (!parts.path.isEmpty() && !parts.path.startsWith("/")) {
      throw new IllegalArgumentException("its path is not absolute");
    }
    String path = parts.path.endsWith("/") ? parts.path.substring(0, parts.path.length() - 1) : parts.path;
    List<String> segments = new ArrayList<>();
    if (!path.isEmpty()) {
      for (String segment : path.substring(1).split("/", -1)) {
        if (segment.isEmpty()) {
          throw new IllegalArgumentException("its path has an empty segment ('//')");
        }
        if (segment.equals(".") || segment.equals("..")) {
          throw new IllegalArgumentException("its path has a '" + segment + "' segment");
        }
        segments.add(segment);
      }
    }
    return new StorageLocation(parts.scheme, parts.authority, segments);
  }

  /**
   * A location found in a catalog's metadata, read as its storage reads it: local paths have
   * {@code .} and {@code ..} resolved and empty segments dropped (as Hadoop's file system does);
   * an object store key is kept as written up to a {@code ?} or {@code #} (where S3FileIO ends
   * it). Empty when it cannot be taken apart.
   */
  public static Optional<StorageLocation> parseExisting(String text) {
    Parts parts;
    try {
      parts = split(text);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    List<String> segments = new ArrayList<>();
    if (parts.scheme.equals("file")) {
      for (String segment : parts.path.split("/")) {
        if (segment.isEmpty() || segment.equals(".")) {
          continue;
        }
        if (segment.equals("..")) {
          if (!segments.isEmpty()) {
            segments.remove(segments.size() - 1);
          }
          continue;
        }
        segments.add(segment);
      }
    } else {
      String key = parts.path.split("[?#]", -1)[0];
      key = key.startsWith("/") ? key.substring(1) : key;
      if (key.endsWith("/")) {
        key = key.substring(0, key.length() - 1);
      }
      if (!key.isEmpty()) {
        segments.addAll(List.of(key.split("/", -1)));
      }
    }
    return Optional.of(new StorageLocation(parts.scheme, parts.authority, segments));
  }

  /** Where a table keeps its files: its location and the directories its path properties name, as far as they can be taken apart. */
  public static List<StorageLocation> rootsOf(Table table) {
    List<StorageLocation> roots = new ArrayList<>();
    parseExisting(table.location()).ifPresent(roots::add);
    table.properties().forEach((key, value) -> {
      if (LocationRules.isPathProperty(key)) {
        parseExisting(value).ifPresent(roots::add);
      }
    });
    return roots;
  }

  /** Whether {@code other} is this location or lies under it. */
  public boolean contains(StorageLocation other) {
    return CatalogStorage.family(scheme).equals(CatalogStorage.family(other.scheme))
        && authority.equals(other.authority)
        && other.segments.size() >= segments.size()
        && other.segments.subList(0, segments.size()).equals(segments);
  }

  /** Whether one of the two contains the other: they share files. */
  public boolean overlaps(StorageLocation other) {
    return contains(other) || other.contains(this);
  }

  /**
   * A local location with the symbolic links of its existing directories resolved, so that a
   * link cannot lead out of a directory that seems to contain it; other locations as they are.
   */
  public StorageLocation resolveLinks() {
    if (!scheme.equals("file")) {
      return this;
    }
    Path path = Path.of("/" + String.join("/", segments));
    Path existing = path;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return this;
    }
    try {
      Path real = existing.toRealPath().resolve(existing.relativize(path));
      List<String> resolved = new ArrayList<>();
      real.normalize().forEach(name -> resolved.add(name.toString()));
      return new StorageLocation(scheme, authority, resolved);
    } catch (IOException e) {
      return this;
    }
  }

  /** One spelling per file: {@code file:/a/b}, {@code file:///a/b} and {@code /a/b} have the same key, as do {@code s3a://b/k} and {@code s3://b/k}. */
  public String key() {
    return CatalogStorage.family(scheme) + "://" + authority + "/" + String.join("/", segments);
  }

  @Override
  public String toString() {
    String path = "/" + String.join("/", segments);
    return scheme.equals("file") ? "file:" + path : scheme + "://" + authority + path;
  }

  private record Parts(String scheme, String authority, String path) {}

  private static Parts split(String text) {
    Matcher m = SCHEME.matcher(text);
    if (!m.matches()) {
      return new Parts("file", "", text);
    }
    String scheme = m.group(1).toLowerCase(Locale.ROOT);
    String rest = m.group(2);
    String authority = "";
    if (rest.startsWith("//")) {
      int slash = rest.indexOf('/', 2);
      authority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
      rest = slash < 0 ? "" : rest.substring(slash);
    } else if (!rest.startsWith("/")) {
      throw new IllegalArgumentException("it has no path after '" + m.group(1) + ":'");
    }
    if (scheme.equals("file")) {
      if (!authority.isEmpty() && !authority.equalsIgnoreCase("localhost")) {
        throw new IllegalArgumentException("a local file location names a host ('" + authority + "')");
      }
      authority = "";
    } else if (authority.isEmpty()) {
      throw new IllegalArgumentException("it names no bucket or host after '" + m.group(1) + "://'");
    }
    return new Parts(scheme, authority, rest);
  }
}

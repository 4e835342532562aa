package io.sqe.write.storage;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.CatalogStorage;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.session.Principal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.iceberg.TableProperties;

/**
 * Who may choose where a table's files go, and where. A table's {@code location} and the Iceberg
 * properties that name a path ({@code write.data.path}, {@code write.metadata.path},
 * {@code write.object-storage.path}, {@code write.folder-storage.path}), and a schema's
 * {@code location}, are accepted only when all of these hold, checked in this order:
 *
 * <ol>
 *   <li>the value is an unambiguous location ({@link StorageLocation#parseChosen}): otherwise
 *       INVALID_ARGUMENT;
 *   <li>its scheme is one the catalog's storage serves ({@link CatalogStorage#schemes()}), so no
 *       statement makes the server connect to a host of its choosing: otherwise INVALID_ARGUMENT;
 *   <li>the user is an administrator, a principal with role {@value TrackedQuery#ADMIN_ROLE}:
 *       otherwise PERMISSION_DENIED;
 *   <li>it lies under one of the allowed prefixes (none unless configured), with symbolic links
 *       resolved, and neither is nor contains the catalog's own directory or the server's data
 *       directory, nor lies inside the data directory outside the catalog's directory: otherwise
 *       PERMISSION_DENIED;
 *   <li>when the statement runs: it neither is, lies inside nor contains a place where another
 *       table or view keeps files ({@link OtherTables}): otherwise FAILED_PRECONDITION.
 * </ol>
 *
 * {@code write.location-provider.impl} is refused for everyone: a provider of one's own puts files
 * wherever it likes.
 */
public final class LocationRules {
  /** Nobody may choose a location: no allowed prefix, no data directory to protect. */
  public static final LocationRules NONE = new LocationRules(List.of(), null);

  private final List<StorageLocation> allowedPrefixes;
  private final StorageLocation dataDirectory;

  /**
   * @param allowedPrefixes the locations under which an administrator may place tables
   * @param dataDirectory the server's data directory (users, keys, the embedded warehouse); null for none
   * @throws IllegalArgumentException for a prefix that is not an unambiguous location
   */
  public LocationRules(List<String> allowedPrefixes, Path dataDirectory) {
    List<StorageLocation> prefixes = new ArrayList<>();
    for (String prefix : allowedPrefixes) {
      try {
        prefixes.add(StorageLocation.parseChosen(prefix));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Allowed location '" + prefix + "' is not usable: " + e.getMessage(), e);
      }
    }
    this.allowedPrefixes = List.copyOf(prefixes);
    this.dataDirectory = dataDirectory == null
        ? null
        : StorageLocation.parseExisting(dataDirectory.toAbsolutePath().normalize().toString()).orElseThrow();
  }

  /**
   * Checks at start that each allowed prefix can hold tables of {@code storage}.
   *
   * @throws IllegalArgumentException naming a prefix whose scheme the storage does not serve
   */
  public void validate(LakehouseCatalog catalog) {
    for (StorageLocation prefix : allowedPrefixes) {
      if (!catalog.storage().schemes().contains(prefix.scheme())) {
        throw new IllegalArgumentException(
            "Allowed location '" + prefix + "' has scheme '" + prefix.scheme() + "', which the storage of catalog '" + catalog.name()
                + "' does not serve; it serves " + schemes(catalog.storage()));
      }
    }
  }

  /** Whether a table property names a path, so that setting it chooses where files go. */
  public static boolean isPathProperty(String key) {
    String lower = key.toLowerCase(Locale.ROOT);
    return lower.equals("location") || (lower.startsWith("write.") && (lower.endsWith(".path") || lower.endsWith(".location")));
  }

  /**
   * Checks a table property a statement sets (nothing for keys that name no path), as far as it
   * can be checked without the catalog's other tables: steps 1 to 4 of the class comment.
   *
   * @return the location the value names, for {@link #checkFree}; empty for other keys
   */
  public Optional<StorageLocation> checkProperty(
      Principal principal, LakehouseCatalog catalog, String key, String value, SqlPosition at) {
    requireNonNull(principal, "principal is null");
    if (key.equalsIgnoreCase(TableProperties.WRITE_LOCATION_PROVIDER_IMPL)) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "Property '" + key + "' is not accepted: a location provider of one's own could put the table's files anywhere;"
              + " 'write.object-storage.enabled' = true gives Iceberg's object-store layout",
          at,
          null);
    }
    if (!isPathProperty(key)) {
      return Optional.empty();
    }
    StorageLocation location;
    try {
      location = StorageLocation.parseChosen(value);
    } catch (IllegalArgumentException e) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "Invalid '" + key + "' '" + printable(value) + "': " + e.getMessage(), at, e);
    }
    if (!catalog.storage().schemes().contains(location.scheme())) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "Invalid '" + key + "' '" + printable(value) + "': scheme '" + location.scheme() + "' is not one of the storage of catalog '"
              + catalog.name() + "', which serves " + schemes(catalog.storage()),
          at,
          null);
    }
    if (!principal.roles().contains(TrackedQuery.ADMIN_ROLE)) {
      throw new SqeException(
          ErrorCode.PERMISSION_DENIED,
          "Access denied: user '" + principal.user() + "' cannot choose where files go ('" + key + "'); only administrators"
              + " (role '" + TrackedQuery.ADMIN_ROLE + "') may, under the server's security.allowed-locations",
          at,
          null);
    }
    StorageLocation resolved = location.resolveLinks();
    if (allowedPrefixes.stream().noneMatch(prefix -> prefix.resolveLinks().contains(resolved))) {
      throw new SqeException(
          ErrorCode.PERMISSION_DENIED,
          "Access denied: '" + key + "' '" + value + "' is not under a location the server allows (security.allowed-locations: "
              + (allowedPrefixes.isEmpty() ? "none" : allowedPrefixes.stream().map(Object::toString).collect(Collectors.joining(", "))) + ")",
          at,
          null);
    }
    reservedConflict(catalog.storage(), resolved).ifPresent(conflict -> {
      throw new SqeException(ErrorCode.PERMISSION_DENIED, "Access denied: '" + key + "' '" + value + "' " + conflict, at, null);
    });
    return Optional.of(location);
  }

  /**
   * Checks, when the statement runs, that {@code location} shares no files with {@code others}:
   * step 5 of the class comment.
   */
  public void checkFree(OtherTables others, String key, StorageLocation location, SqlPosition at) {
    others.overlapping(location.resolveLinks(), true).ifPresent(other -> {
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          "'" + key + "' '" + location + "' would share files with " + other + ": one of the two locations is, or lies inside, the"
              + " other; choose a location of its own",
          at,
          null);
    });
  }

  private Optional<String> reservedConflict(CatalogStorage storage, StorageLocation location) {
    Optional<StorageLocation> catalogDirectory = storage.catalogDirectory().flatMap(StorageLocation::parseExisting).map(StorageLocation::resolveLinks);
    if (catalogDirectory.isPresent() && location.contains(catalogDirectory.get())) {
      return Optional.of("is or contains the directory of the catalog's own files");
    }
    if (dataDirectory != null) {
      StorageLocation data = dataDirectory.resolveLinks();
      if (location.contains(data)) {
        return Optional.of("is or contains the server's data directory");
      }
      if (data.contains(location) && catalogDirectory.map(dir -> !dir.contains(location)).orElse(true)) {
        return Optional.of("lies inside the server's data directory");
      }
    }
    return Optional.empty();
  }

  private static String schemes(CatalogStorage storage) {
    return storage.schemes().isEmpty() ? "no scheme SQE can check" : storage.schemes().stream().sorted().collect(Collectors.joining(", "));
  }

  private static String printable(String value) {
    return PathSafeNames.printable(value);
  }
}

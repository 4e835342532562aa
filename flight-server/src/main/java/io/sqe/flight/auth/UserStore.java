package io.sqe.flight.auth;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sqe.engine.session.Principal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Local users and their PBKDF2-hashed passwords, kept in a JSON file readable by the owner only.
 *
 * <p>The file holds {@code {"version":1,"users":[{"name","roles","algorithm","iterations","salt",
 * "hash"}]}} with salt and hash in Base64. Each user keeps the iteration count it was hashed with,
 * so raising the store's default does not lock out existing users. Every change rewrites the whole
 * file atomically. Lookups read an immutable snapshot, so authentication never waits for a writer.
 * The file is read once by {@link #open}; edits by other processes are not picked up.
 */
public final class UserStore {
  public static final int DEFAULT_ITERATIONS = 210_000;

  /** Low enough for fast tests, high enough that a typo in a configuration is not a disaster. */
  public static final int MIN_ITERATIONS = 1_000;

  public static final String ADMIN_USER = "admin";
  public static final String ADMIN_ROLE = "admin";

  static final String ALGORITHM = "PBKDF2WithHmacSHA256";
  private static final int FORMAT_VERSION = 1;
  private static final int SALT_BYTES = 16;
  private static final int HASH_BYTES = 32;
  // 18 random bytes are 24 URL-safe Base64 characters (144 bits).
  private static final int GENERATED_PASSWORD_BYTES = 18;
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}");

  private static final Logger log = LoggerFactory.getLogger(UserStore.class);
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final Path file;
  private final int iterations;
  private final SecureRandom random = new SecureRandom();
  private final byte[] dummySalt = new byte[SALT_BYTES];
  private final byte[] dummyHash = new byte[HASH_BYTES];
  private final Object writeLock = new Object();
  private volatile Map<String, StoredUser> users;

  private UserStore(Path file, int iterations, Map<String, StoredUser> users) {
    this.file = requireNonNull(file, "file is null");
    this.iterations = iterations;
    this.users = Collections.unmodifiableMap(users);
    random.nextBytes(dummySalt);
    random.nextBytes(dummyHash);
  }

  /**
   * Opens the store in {@code file}, creating its directory (mode 0700) when missing; the file
   * itself is written on the first change. New passwords are hashed with {@code iterations}.
   */
  public static UserStore open(Path file, int iterations) throws IOException {
    requireNonNull(file, "file is null");
    checkIterations(iterations);
    Path absolute = file.toAbsolutePath();
    PrivateFiles.createDirectories(absolute.getParent());
    if (!Files.exists(absolute)) {
      return new UserStore(absolute, iterations, new LinkedHashMap<>());
    }
    PrivateFiles.warnIfShared(absolute, log);
    return new UserStore(absolute, iterations, read(absolute));
  }

  static void checkIterations(int iterations) {
    checkArgument(
        iterations >= MIN_ITERATIONS,
        "Invalid PBKDF2 iteration count: %s (minimum %s)",
        iterations,
        MIN_ITERATIONS);
  }

  /**
   * Creates user {@value #ADMIN_USER} with role {@value #ADMIN_ROLE} and a random password if the
   * store has no users, and returns that password so the caller can show it once; only its hash is
   * stored. Returns empty when the store already has users.
   */
  public Optional<String> bootstrapAdmin() throws IOException {
    synchronized (writeLock) {
      if (!users.isEmpty()) {
        return Optional.empty();
      }
      byte[] bytes = new byte[GENERATED_PASSWORD_BYTES];
      random.nextBytes(bytes);
      String password = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
      Arrays.fill(bytes, (byte) 0);
      char[] chars = password.toCharArray();
      try {
        addUser(ADMIN_USER, chars, Set.of(ADMIN_ROLE));
      } finally {
        Arrays.fill(chars, '\0');
      }
      log.info("Created user '{}' with role '{}' in {}", ADMIN_USER, ADMIN_ROLE, file);
      return Optional.of(password);
    }
  }

  /**
   * Checks a password and returns the user with their roles, or empty when the user does not exist
   * or the password is wrong. Both failures cost the same: an unknown user still pays for one
   * PBKDF2 run, so response time does not tell which user names exist.
   */
  public Optional<Principal> authenticate(String user, char[] password) {
    requireNonNull(user, "user is null");
    requireNonNull(password, "password is null");
    StoredUser stored = users.get(user);
    if (stored == null) {
      MessageDigest.isEqual(pbkdf2(password, dummySalt, iterations), dummyHash);
      return Optional.empty();
    }
    byte[] candidate = pbkdf2(password, stored.salt(), stored.iterations());
    boolean matches = MessageDigest.isEqual(candidate, stored.hash());
    Arrays.fill(candidate, (byte) 0);
    return matches ? Optional.of(stored.principal()) : Optional.empty();
  }

  /** The user with their current roles, or empty if there is no such user. */
  public Optional<Principal> principal(String user) {
    requireNonNull(user, "user is null");
    return Optional.ofNullable(users.get(user)).map(StoredUser::principal);
  }

  /** The names of all users, sorted. */
  public Set<String> userNames() {
    return Collections.unmodifiableSet(new TreeSet<>(users.keySet()));
  }

  /** Adds a user; fails if the name is taken or not a valid user name. */
  public void addUser(String user, char[] password, Set<String> roles) throws IOException {
    requireNonNull(user, "user is null");
    requireNonNull(password, "password is null");
    requireNonNull(roles, "roles is null");
    checkArgument(NAME.matcher(user).matches(), "Invalid user name: %s", user);
    roles.forEach(
        role -> checkArgument(NAME.matcher(role).matches(), "Invalid role name: %s", role));
    checkArgument(password.length > 0, "Password of user %s is empty", user);
    synchronized (writeLock) {
      checkArgument(!users.containsKey(user), "User already exists: %s", user);
      Map<String, StoredUser> updated = new LinkedHashMap<>(users);
      updated.put(user, hash(user, password, roles));
      commit(updated);
    }
  }

  /** Replaces a user's password, hashing it with the store's current iteration count. */
  public void setPassword(String user, char[] password) throws IOException {
    requireNonNull(user, "user is null");
    requireNonNull(password, "password is null");
    checkArgument(password.length > 0, "Password of user %s is empty", user);
    synchronized (writeLock) {
      StoredUser existing = users.get(user);
      checkArgument(existing != null, "Unknown user: %s", user);
      Map<String, StoredUser> updated = new LinkedHashMap<>(users);
      updated.put(user, hash(user, password, existing.roles()));
      commit(updated);
    }
  }

  /** Replaces a user's roles; the password hash stays as it is. */
  public void setRoles(String user, Set<String> roles) throws IOException {
    requireNonNull(user, "user is null");
    requireNonNull(roles, "roles is null");
    roles.forEach(
        role -> checkArgument(NAME.matcher(role).matches(), "Invalid role name: %s", role));
    synchronized (writeLock) {
      StoredUser existing = users.get(user);
      checkArgument(existing != null, "Unknown user: %s", user);
      Map<String, StoredUser> updated = new LinkedHashMap<>(users);
      updated.put(
          user,
          new StoredUser(
              user, Set.copyOf(roles), existing.iterations(), existing.salt(), existing.hash()));
      commit(updated);
    }
  }

  /** Removes a user; returns false if there was no such user. */
  public boolean removeUser(String user) throws IOException {
    requireNonNull(user, "user is null");
    synchronized (writeLock) {
      if (!users.containsKey(user)) {
        return false;
      }
      Map<String, StoredUser> updated = new LinkedHashMap<>(users);
      updated.remove(user);
      commit(updated);
      return true;
    }
  }

  /** The file this store lives in. */
  public Path file() {
    return file;
  }

  private StoredUser hash(String user, char[] password, Set<String> roles) {
    byte[] salt = new byte[SALT_BYTES];
    random.nextBytes(salt);
    return new StoredUser(
        user, Set.copyOf(roles), iterations, salt, pbkdf2(password, salt, iterations));
  }

  // The in-memory snapshot changes only after the file was written, so a failed write leaves both
  // as they were.
  private void commit(Map<String, StoredUser> updated) throws IOException {
    List<UserEntry> entries =
        updated.values().stream()
            .map(
                u ->
                    new UserEntry(
                        u.name(),
                        List.copyOf(new TreeSet<>(u.roles())),
                        ALGORITHM,
                        u.iterations(),
                        Base64.getEncoder().encodeToString(u.salt()),
                        Base64.getEncoder().encodeToString(u.hash())))
            .toList();
    byte[] content;
    try {
      content = JSON.writeValueAsBytes(new UserFile(FORMAT_VERSION, entries));
    } catch (JsonProcessingException e) {
      throw new IOException("Cannot serialize users", e);
    }
    PrivateFiles.replace(file, content);
    users = Collections.unmodifiableMap(updated);
  }

  private static Map<String, StoredUser> read(Path file) throws IOException {
    UserFile content;
    try {
      content = JSON.readValue(file.toFile(), UserFile.class);
    } catch (JsonProcessingException e) {
      throw new IOException("Invalid user file " + file + ": " + e.getOriginalMessage(), e);
    }
    if (content == null || content.version() != FORMAT_VERSION || content.users() == null) {
      throw invalid(file, "expected version %s and a users list", FORMAT_VERSION);
    }
    Map<String, StoredUser> users = new LinkedHashMap<>();
    for (UserEntry entry : content.users()) {
      StoredUser user = parse(file, entry);
      if (users.put(user.name(), user) != null) {
        throw invalid(file, "duplicate user %s", user.name());
      }
    }
    return users;
  }

  private static StoredUser parse(Path file, UserEntry entry) throws IOException {
    if (entry == null || entry.name() == null || !NAME.matcher(entry.name()).matches()) {
      throw invalid(file, "invalid user name %s", entry == null ? null : entry.name());
    }
    String user = entry.name();
    if (!ALGORITHM.equals(entry.algorithm())) {
      throw invalid(
          file,
          "user %s: unsupported algorithm %s, expected %s",
          user,
          entry.algorithm(),
          ALGORITHM);
    }
    if (entry.iterations() < 1) {
      throw invalid(file, "user %s: invalid iteration count %s", user, entry.iterations());
    }
    if (entry.roles() == null
        || entry.roles().stream().anyMatch(role -> role == null || !NAME.matcher(role).matches())) {
      throw invalid(file, "user %s: invalid roles %s", user, entry.roles());
    }
    byte[] salt = decode(file, user, "salt", entry.salt());
    byte[] hash = decode(file, user, "hash", entry.hash());
    if (salt.length == 0 || hash.length != HASH_BYTES) {
      throw invalid(file, "user %s: empty salt or a hash that is not %s bytes", user, HASH_BYTES);
    }
    return new StoredUser(user, Set.copyOf(entry.roles()), entry.iterations(), salt, hash);
  }

  private static byte[] decode(Path file, String user, String field, String base64)
      throws IOException {
    try {
      return Base64.getDecoder().decode(requireNonNull(base64));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw invalid(file, "user %s: %s is missing or not Base64", user, field);
    }
  }

  private static IOException invalid(Path file, String format, Object... args) {
    return new IOException("Invalid user file " + file + ": " + String.format(format, args));
  }

  private static byte[] pbkdf2(char[] password, byte[] salt, int iterations) {
    PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, HASH_BYTES * Byte.SIZE);
    try {
      return SecretKeyFactory.getInstance(ALGORITHM).generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(ALGORITHM + " is not available in this JDK", e);
    } finally {
      spec.clearPassword();
    }
  }

  /** A user as kept in memory; arrays are never handed out. */
  private record StoredUser(
      String name, Set<String> roles, int iterations, byte[] salt, byte[] hash) {
    Principal principal() {
      return new Principal(name, roles);
    }

    @Override
    public String toString() {
      return "StoredUser[" + name + "]";
    }
  }

  /** The JSON document. */
  record UserFile(int version, List<UserEntry> users) {}

  /** One user in the JSON document. */
  record UserEntry(
      String name,
      List<String> roles,
      String algorithm,
      int iterations,
      String salt,
      String hash) {}
}

package io.sqe.flight.auth;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sqe.engine.session.Principal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Local users and their PBKDF2-hashed passwords, kept in a JSON file readable by the owner only.
 *
 * <p>The file holds {@code {"version":1,"users":[{"name","id","roles","algorithm","iterations",
 * "salt","hash"}]}} with salt and hash in Base64. Each user keeps the iteration count it was hashed
 * with, so raising the store's default does not lock out existing users. The id is random, given
 * when the user is created, so that tokens of a dropped user do not work for a new user of the same
 * name; files written before ids existed have none. Lookups read an immutable snapshot, so
 * authentication never waits for a writer.
 *
 * <p>Several servers (and {@code sqe user}) may share the file. Every change takes an exclusive
 * lock on {@code users.json.lock} next to it, reads the file again, applies the change and
 * replaces the file atomically, so concurrent changes from any process are all kept. A store also
 * reads the file again when it changed (another inode, modification time or size), at most once
 * per refresh period; a file that cannot be read then is logged and the users as last read stay.
 */
public final class UserStore {
  public static final int DEFAULT_ITERATIONS = 210_000;

  /** Low enough for fast tests, high enough that a typo in a configuration is not a disaster. */
  public static final int MIN_ITERATIONS = 1_000;

  /** How many users' last verified passwords are kept at most. */
  private static final int VERIFIED_MAX_USERS = 10_000;

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
  /**
   * One monitor per lock file for the stores of this JVM: a JVM that holds a file lock gets
   * OverlappingFileLockException instead of waiting when it asks for that lock again.
   */
  private static final Map<Path, Object> JVM_LOCKS = new ConcurrentHashMap<>();

  private final Path file;
  private final Path lockFile;
  private final int iterations;
  private final long refreshNanos;
  private final SecureRandom random = new SecureRandom();
  private final byte[] dummySalt = new byte[SALT_BYTES];
  private final byte[] dummyHash = new byte[HASH_BYTES];
  private volatile Loaded loaded;
  private volatile long nextCheck;
  /**
   * Passwords verified lately, as an HMAC under a key of this process over the user's salt and
   * hash and the password, by user; null when off. dbt opens a connection per model, and each
   * login paid a full PBKDF2 run (210,000 iterations by default, about 0.1 s of a core).
   */
  private final Cache<String, byte[]> verified;
  private final ProcessKeyedHash verifiedHash = new ProcessKeyedHash();
  /** How many logins ran PBKDF2, for tests of the cache above. */
  private final LongAdder loginHashes = new LongAdder();

  /** The users as read from (or written to) the file, and the file's stamp then. */
  private record Loaded(Map<String, StoredUser> users, FileStamp stamp) {}

  /** What tells one version of the file from another; null fields for a missing file. */
  private record FileStamp(Object fileKey, FileTime modified, long size) {
    static final FileStamp MISSING = new FileStamp(null, null, -1);

    static FileStamp of(Path file) throws IOException {
      try {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        return new FileStamp(attributes.fileKey(), attributes.lastModifiedTime(), attributes.size());
      } catch (NoSuchFileException e) {
        return MISSING;
      }
    }
  }

  private UserStore(Path file, Path lockFile, int iterations, Duration refreshPeriod, Duration verifiedTtl, Loaded loaded) {
    this.file = requireNonNull(file, "file is null");
    this.lockFile = requireNonNull(lockFile, "lockFile is null");
    this.iterations = iterations;
    this.refreshNanos = refreshPeriod.toNanos();
    this.loaded = requireNonNull(loaded, "loaded is null");
    this.nextCheck = System.nanoTime() + refreshNanos;
    this.verified = verifiedTtl.isZero()
        ? null
        : Caffeine.newBuilder().maximumSize(VERIFIED_MAX_USERS).expireAfterWrite(verifiedTtl).build();
    random.nextBytes(dummySalt);
    random.nextBytes(dummyHash);
  }

  /**
   * Opens the store in {@code file}, creating its directory (mode 0700) when missing; the file
   * itself is written on the first change. New passwords are hashed with {@code iterations}.
   * Changes other processes make are read before this store's own changes, and not otherwise.
   */
  public static UserStore open(Path file, int iterations) throws IOException {
    return open(file, iterations, Duration.ZERO);
  }

  /**
   * As {@link #open(Path, int)}, also reading the file again when it changed, checked at most once
   * per {@code refreshPeriod} (zero: never) when a user is looked up.
   */
  public static UserStore open(Path file, int iterations, Duration refreshPeriod) throws IOException {
    return open(file, iterations, refreshPeriod, Duration.ZERO);
  }

  /**
   * As {@link #open(Path, int, Duration)}, also remembering for {@code verifiedTtl} (zero: not at
   * all) the password each user last logged in with, so that logging in again with it skips
   * PBKDF2. What is kept is an HMAC of the password under a random key of this process, bound to
   * the user's current salt and hash: a changed password or a re-created user never matches it.
   * Wrong passwords and unknown users always pay for PBKDF2.
   */
  public static UserStore open(Path file, int iterations, Duration refreshPeriod, Duration verifiedTtl) throws IOException {
    requireNonNull(file, "file is null");
    requireNonNull(refreshPeriod, "refreshPeriod is null");
    requireNonNull(verifiedTtl, "verifiedTtl is null");
    checkIterations(iterations);
    checkArgument(!refreshPeriod.isNegative(), "Invalid refresh period: %s", refreshPeriod);
    checkArgument(!verifiedTtl.isNegative(), "Invalid password cache lifetime: %s", verifiedTtl);
    Path absolute = file.toAbsolutePath();
    PrivateFiles.createDirectories(absolute.getParent());
    // The real directory, so that every store of this JVM on the file names its lock the same way.
    Path lockFile = absolute.getParent().toRealPath().resolve(absolute.getFileName() + ".lock");
    FileStamp stamp = FileStamp.of(absolute);
    if (stamp == FileStamp.MISSING) {
      return new UserStore(absolute, lockFile, iterations, refreshPeriod, verifiedTtl, new Loaded(Map.of(), stamp));
    }
    PrivateFiles.warnIfShared(absolute, log);
    return new UserStore(absolute, lockFile, iterations, refreshPeriod, verifiedTtl, new Loaded(read(absolute), stamp));
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
    // Every start after the first ends here, without paying for a hash.
    if (!loaded.users().isEmpty()) {
      return Optional.empty();
    }
    byte[] bytes = new byte[GENERATED_PASSWORD_BYTES];
    random.nextBytes(bytes);
    String password = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    Arrays.fill(bytes, (byte) 0);
    char[] chars = password.toCharArray();
    StoredUser admin;
    try {
      admin = hash(ADMIN_USER, newId(), chars, Set.of(ADMIN_ROLE));
    } finally {
      Arrays.fill(chars, '\0');
    }
    // Decided under the lock, so that of two servers starting on one new directory only one creates it.
    boolean created = change(users -> {
      if (!users.isEmpty()) {
        return false;
      }
      users.put(ADMIN_USER, admin);
      return true;
    });
    if (!created) {
      return Optional.empty();
    }
    log.info("Created user '{}' with role '{}' in {}", ADMIN_USER, ADMIN_ROLE, file);
    return Optional.of(password);
  }

  /**
   * Checks a password and returns the user with their roles, or empty when the user does not exist
   * or the password is wrong. Both failures cost the same: an unknown user still pays for one
   * PBKDF2 run, so response time does not tell which user names exist.
   */
  public Optional<Principal> authenticate(String user, char[] password) {
    return login(user, password).map(Account::principal);
  }

  /** As {@link #authenticate}, with the user's id, for the token a login returns. */
  public Optional<Account> login(String user, char[] password) {
    requireNonNull(user, "user is null");
    requireNonNull(password, "password is null");
    StoredUser stored = users().get(user);
    if (stored == null) {
      loginHashes.increment();
      MessageDigest.isEqual(pbkdf2(password, dummySalt, iterations), dummyHash);
      return Optional.empty();
    }
    byte[] tag = verified == null ? null : verifiedTag(stored, password);
    if (tag != null) {
      byte[] known = verified.getIfPresent(user);
      if (known != null && MessageDigest.isEqual(known, tag)) {
        return Optional.of(stored.account());
      }
    }
    loginHashes.increment();
    byte[] candidate = pbkdf2(password, stored.salt(), stored.iterations());
    boolean matches = MessageDigest.isEqual(candidate, stored.hash());
    Arrays.fill(candidate, (byte) 0);
    if (matches && tag != null) {
      verified.put(user, tag);
    }
    return matches ? Optional.of(stored.account()) : Optional.empty();
  }

  /** The password's HMAC-SHA256 under this process's key, over the user's salt and hash first. */
  private byte[] verifiedTag(StoredUser stored, char[] password) {
    ByteBuffer bytes = StandardCharsets.UTF_8.encode(CharBuffer.wrap(password));
    byte[] plain = new byte[bytes.remaining()];
    bytes.get(plain);
    if (bytes.hasArray()) {
      Arrays.fill(bytes.array(), (byte) 0);
    }
    byte[] tag = verifiedHash.tag(stored.salt(), stored.hash(), plain);
    Arrays.fill(plain, (byte) 0);
    return tag;
  }

  /** How many logins so far hashed the password they were given. */
  long loginHashes() {
    return loginHashes.sum();
  }

  /** The user with their current roles, or empty if there is no such user. */
  public Optional<Principal> principal(String user) {
    return account(user).map(Account::principal);
  }

  /** The user with their current roles and id, or empty if there is no such user. */
  public Optional<Account> account(String user) {
    requireNonNull(user, "user is null");
    return Optional.ofNullable(users().get(user)).map(StoredUser::account);
  }

  /** The names of all users, sorted. */
  public Set<String> userNames() {
    return Collections.unmodifiableSet(new TreeSet<>(users().keySet()));
  }

  /**
   * Adds a user with a new id; returns false, changing nothing, if the name is taken. Fails if the
   * name or a role is not valid, or the password is empty.
   */
  public boolean addUser(String user, char[] password, Set<String> roles) throws IOException {
    requireNonNull(user, "user is null");
    requireNonNull(password, "password is null");
    requireNonNull(roles, "roles is null");
    checkName(user);
    checkRoles(roles);
    checkArgument(password.length > 0, "Password of user %s is empty", user);
    String id = newId();
    // Hashed before the lock is taken: PBKDF2 takes a while, and other processes wait on the lock.
    StoredUser added = hash(user, id, password, roles);
    return change(users -> users.putIfAbsent(user, added) == null);
  }

  /**
   * Replaces a user's password, hashing it with the store's current iteration count; returns false
   * if there is no such user. The user's id and roles stay.
   */
  public boolean setPassword(String user, char[] password) throws IOException {
    requireNonNull(user, "user is null");
    requireNonNull(password, "password is null");
    checkArgument(password.length > 0, "Password of user %s is empty", user);
    StoredUser hashed = hash(user, null, password, Set.of());
    return change(users -> {
      StoredUser existing = users.get(user);
      if (existing == null) {
        return false;
      }
      users.put(user, new StoredUser(user, existing.id(), existing.roles(), hashed.iterations(), hashed.salt(), hashed.hash()));
      return true;
    });
  }

  /** Replaces a user's roles, the password hash staying as it is; returns false if there is no such user. */
  public boolean setRoles(String user, Set<String> roles) throws IOException {
    requireNonNull(user, "user is null");
    requireNonNull(roles, "roles is null");
    checkRoles(roles);
    return change(users -> {
      StoredUser existing = users.get(user);
      if (existing == null) {
        return false;
      }
      users.put(
          user,
          new StoredUser(user, existing.id(), Set.copyOf(roles), existing.iterations(), existing.salt(), existing.hash()));
      return true;
    });
  }

  /** Removes a user; returns false if there was no such user. */
  public boolean removeUser(String user) throws IOException {
    requireNonNull(user, "user is null");
    return change(users -> users.remove(user) != null);
  }

  /** Fails with IllegalArgumentException unless {@code user} may name a user. */
  public static void checkName(String user) {
    checkArgument(NAME.matcher(user).matches(), "Invalid user name: %s", user);
  }

  /** Fails with IllegalArgumentException unless every one of {@code roles} may name a role. */
  public static void checkRoles(Set<String> roles) {
    roles.forEach(role -> checkArgument(NAME.matcher(role).matches(), "Invalid role name: %s", role));
  }

  /** The file this store lives in. */
  public Path file() {
    return file;
  }

  /** Reads the file now if it changed since this store last read or wrote it. */
  public void refresh() {
    nextCheck = System.nanoTime() + refreshNanos;
    try {
      reload();
    } catch (IOException | RuntimeException e) {
      log.error("Keeping the users as last read: cannot read {} again: {}", file, e.getMessage());
    }
  }

  /** The users now, after reading the file again if it changed and the refresh period is up. */
  private Map<String, StoredUser> users() {
    if (refreshNanos > 0 && System.nanoTime() - nextCheck >= 0) {
      refresh();
    }
    return loaded.users();
  }

  /** Reads the file if its stamp differs from the one last seen; a missing file keeps the users as they are. */
  private synchronized Loaded reload() throws IOException {
    Loaded current = loaded;
    FileStamp stamp = FileStamp.of(file);
    if (stamp.equals(current.stamp()) || stamp == FileStamp.MISSING) {
      return current;
    }
    Loaded fresh = new Loaded(Collections.unmodifiableMap(read(file)), stamp);
    loaded = fresh;
    log.info("Read the users again from {}: {} users", file, fresh.users().size());
    return fresh;
  }

  /**
   * Applies {@code change} to the users as the file has them now, with every other writer (in this
   * JVM or another process) locked out, and writes the result if it returns true. The in-memory
   * users change only after the file was written, so a failed write leaves both as they were.
   */
  private boolean change(Function<Map<String, StoredUser>, Boolean> change) throws IOException {
    synchronized (JVM_LOCKS.computeIfAbsent(lockFile, path -> new Object())) {
      try (FileChannel channel = PrivateFiles.openLockFile(lockFile);
          FileLock lock = channel.lock()) {
        Map<String, StoredUser> updated = new LinkedHashMap<>(reload().users());
        if (!change.apply(updated)) {
          return false;
        }
        write(updated);
        return true;
      }
    }
  }

  private static String newId() {
    return UUID.randomUUID().toString();
  }

  private StoredUser hash(String user, String id, char[] password, Set<String> roles) {
    byte[] salt = new byte[SALT_BYTES];
    random.nextBytes(salt);
    return new StoredUser(
        user, id, Set.copyOf(roles), iterations, salt, pbkdf2(password, salt, iterations));
  }

  private synchronized void write(Map<String, StoredUser> updated) throws IOException {
    List<UserEntry> entries =
        updated.values().stream()
            .map(
                u ->
                    new UserEntry(
                        u.name(),
                        u.id(),
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
    loaded = new Loaded(Collections.unmodifiableMap(updated), FileStamp.of(file));
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
    if (entry.id() != null && entry.id().isBlank()) {
      throw invalid(file, "user %s: blank id", user);
    }
    byte[] salt = decode(file, user, "salt", entry.salt());
    byte[] hash = decode(file, user, "hash", entry.hash());
    if (salt.length == 0 || hash.length != HASH_BYTES) {
      throw invalid(file, "user %s: empty salt or a hash that is not %s bytes", user, HASH_BYTES);
    }
    return new StoredUser(user, entry.id(), Set.copyOf(entry.roles()), entry.iterations(), salt, hash);
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

  /**
   * A user as others see it: the principal, and the id given when the user was created (null for
   * users created before ids existed).
   */
  public record Account(Principal principal, String id) {
    public Account {
      requireNonNull(principal, "principal is null");
    }
  }

  /** A user as kept in memory; arrays are never handed out. */
  private record StoredUser(
      String name, String id, Set<String> roles, int iterations, byte[] salt, byte[] hash) {
    Account account() {
      return new Account(new Principal(name, roles), id);
    }

    @Override
    public String toString() {
      return "StoredUser[" + name + "]";
    }
  }

  /** The JSON document. */
  record UserFile(int version, List<UserEntry> users) {}

  /** One user in the JSON document. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record UserEntry(
      String name,
      String id,
      List<String> roles,
      String algorithm,
      int iterations,
      String salt,
      String hash) {}
}

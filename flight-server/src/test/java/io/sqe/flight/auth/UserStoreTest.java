package io.sqe.flight.auth;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sqe.engine.session.Principal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UserStoreTest {
  private static final int FAST = UserStore.MIN_ITERATIONS;

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("state").resolve("users.json");
  }

  @Test
  void bootstrapCreatesAdminOnce() throws IOException {
    UserStore store = UserStore.open(file(), FAST);
    Optional<String> password = store.bootstrapAdmin();

    assertThat(password).get().asString().hasSize(24).matches("[A-Za-z0-9_-]{24}");
    assertThat(store.authenticate("admin", password.get().toCharArray()))
        .contains(new Principal("admin", Set.of("admin")));
    assertThat(store.bootstrapAdmin()).isEmpty();
    assertThat(UserStore.open(file(), FAST).bootstrapAdmin()).isEmpty();
    assertThat(UserStore.open(file(), FAST).authenticate("admin", password.get().toCharArray()))
        .isPresent();
  }

  @Test
  void bootstrapPasswordsDiffer() throws IOException {
    String first = UserStore.open(dir.resolve("a.json"), FAST).bootstrapAdmin().orElseThrow();
    String second = UserStore.open(dir.resolve("b.json"), FAST).bootstrapAdmin().orElseThrow();
    assertThat(first).isNotEqualTo(second);
  }

  @Test
  void bootstrapSkippedWhenUsersExist() throws IOException {
    UserStore store = UserStore.open(file(), FAST);
    store.addUser("alice", "secret".toCharArray(), Set.of());
    assertThat(store.bootstrapAdmin()).isEmpty();
    assertThat(store.userNames()).containsExactly("alice");
  }

  @Test
  void fileIsPrivateAndHoldsNoPlaintextPassword() throws IOException {
    UserStore store = UserStore.open(file(), FAST);
    String password = store.bootstrapAdmin().orElseThrow();
    store.addUser("bob", "correct horse battery".toCharArray(), Set.of("analyst"));

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file())))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file().getParent())))
        .isEqualTo("rwx------");
    String content = Files.readString(file(), UTF_8);
    assertThat(content).doesNotContain(password).doesNotContain("correct horse battery");
    // No temporary file is left; the lock file is empty and private too.
    Path lock = file().resolveSibling("users.json.lock");
    try (var files = Files.list(file().getParent())) {
      assertThat(files).containsExactlyInAnyOrder(file(), lock);
    }
    assertThat(Files.size(lock)).isZero();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(lock))).isEqualTo("rw-------");

    JsonNode json = new ObjectMapper().readTree(content);
    assertThat(json.get("version").asInt()).isEqualTo(1);
    JsonNode admin = json.get("users").get(0);
    assertThat(admin.get("name").asText()).isEqualTo("admin");
    assertThat(admin.get("roles").get(0).asText()).isEqualTo("admin");
    assertThat(admin.get("algorithm").asText()).isEqualTo("PBKDF2WithHmacSHA256");
    assertThat(admin.get("iterations").asInt()).isEqualTo(FAST);
    assertThat(Base64.getDecoder().decode(admin.get("salt").asText())).hasSize(16);
    assertThat(Base64.getDecoder().decode(admin.get("hash").asText())).hasSize(32);
  }

  @Test
  void authenticateAcceptsOnlyTheRightPassword() throws IOException {
    UserStore store = UserStore.open(file(), FAST);
    store.addUser("alice", "s3cret-pässword".toCharArray(), Set.of("analyst", "writer"));

    assertThat(store.authenticate("alice", "s3cret-pässword".toCharArray()))
        .contains(new Principal("alice", Set.of("analyst", "writer")));
    assertThat(store.authenticate("alice", "s3cret-password".toCharArray())).isEmpty();
    assertThat(store.authenticate("alice", new char[0])).isEmpty();
    assertThat(store.authenticate("Alice", "s3cret-pässword".toCharArray())).isEmpty();
    assertThat(store.authenticate("mallory", "s3cret-pässword".toCharArray())).isEmpty();
    assertThat(store.authenticate("", new char[0])).isEmpty();
  }

  @Test
  void usersPersistAcrossReopen() throws IOException {
    UserStore store = UserStore.open(file(), FAST);
    store.addUser("alice", "pw-alice".toCharArray(), Set.of("analyst"));
    store.addUser("bob", "pw-bob".toCharArray(), Set.of());
    store.setPassword("bob", "pw-bob-2".toCharArray());
    store.setRoles("bob", Set.of("auditor", "writer"));
    store.addUser("carol", "pw-carol".toCharArray(), Set.of());
    assertThat(store.removeUser("carol")).isTrue();
    assertThat(store.removeUser("carol")).isFalse();

    UserStore reopened = UserStore.open(file(), FAST);
    assertThat(reopened.userNames()).containsExactly("alice", "bob");
    assertThat(reopened.authenticate("alice", "pw-alice".toCharArray()))
        .contains(new Principal("alice", Set.of("analyst")));
    assertThat(reopened.authenticate("bob", "pw-bob".toCharArray())).isEmpty();
    assertThat(reopened.authenticate("bob", "pw-bob-2".toCharArray()))
        .contains(new Principal("bob", Set.of("auditor", "writer")));
    assertThat(reopened.principal("bob"))
        .contains(new Principal("bob", Set.of("auditor", "writer")));
    assertThat(reopened.principal("carol")).isEmpty();
  }

  @Test
  void defaultIterations() throws IOException {
    UserStore store = UserStore.open(file(), UserStore.DEFAULT_ITERATIONS);
    String password = store.bootstrapAdmin().orElseThrow();

    assertThat(store.authenticate("admin", password.toCharArray())).isPresent();
    assertThat(store.authenticate("admin", "wrong".toCharArray())).isEmpty();
    assertThat(
            new ObjectMapper()
                .readTree(file().toFile())
                .get("users")
                .get(0)
                .get("iterations")
                .asInt())
        .isEqualTo(210_000);
  }

  @Test
  void iterationsAreKeptPerUser() throws IOException {
    UserStore.open(file(), FAST).addUser("old", "pw-old".toCharArray(), Set.of());

    UserStore store = UserStore.open(file(), 2 * FAST);
    store.addUser("new", "pw-new".toCharArray(), Set.of());
    assertThat(store.authenticate("old", "pw-old".toCharArray())).isPresent();
    assertThat(store.authenticate("new", "pw-new".toCharArray())).isPresent();

    JsonNode users = new ObjectMapper().readTree(file().toFile()).get("users");
    assertThat(users.get(0).get("iterations").asInt()).isEqualTo(FAST);
    assertThat(users.get(1).get("iterations").asInt()).isEqualTo(2 * FAST);
  }

  @Test
  void aVerifiedPasswordIsRememberedUntilItOrTheUserChanges() throws IOException {
    UserStore store = UserStore.open(file(), FAST, Duration.ZERO, Duration.ofMinutes(10));
    UserStore other = UserStore.open(file(), FAST, Duration.ofNanos(1), Duration.ofMinutes(10));
    store.addUser("alice", "pw-1".toCharArray(), Set.of("analyst"));
    assertThat(store.authenticate("alice", "pw-1".toCharArray())).isPresent();
    assertThat(store.authenticate("alice", "pw-1".toCharArray())).map(Principal::roles).contains(Set.of("analyst"));
    assertThat(store.loginHashes()).as("the second login skips PBKDF2").isEqualTo(1);

    // Anything but the remembered password is hashed, and refused.
    assertThat(store.authenticate("alice", "pw-2".toCharArray())).isEmpty();
    assertThat(store.authenticate("alice", "pw-1 ".toCharArray())).isEmpty();
    assertThat(store.authenticate("nobody", "pw-1".toCharArray())).isEmpty();
    assertThat(store.loginHashes()).isEqualTo(4);
    assertThat(store.authenticate("alice", "pw-1".toCharArray())).isPresent();
    assertThat(store.loginHashes()).isEqualTo(4);

    // A new password, here or by another server sharing the file, makes the old one fail.
    store.setPassword("alice", "pw-2".toCharArray());
    assertThat(store.authenticate("alice", "pw-1".toCharArray())).isEmpty();
    assertThat(store.authenticate("alice", "pw-2".toCharArray())).isPresent();
    assertThat(other.authenticate("alice", "pw-2".toCharArray())).isPresent();
    store.setPassword("alice", "pw-3".toCharArray());
    assertThat(other.authenticate("alice", "pw-2".toCharArray())).isEmpty();
    assertThat(store.authenticate("alice", "pw-3".toCharArray())).isPresent();

    // So does dropping the user, and one re-created under the name has a salt of its own.
    store.removeUser("alice");
    assertThat(store.authenticate("alice", "pw-3".toCharArray())).isEmpty();
    store.addUser("alice", "pw-3".toCharArray(), Set.of());
    long before = store.loginHashes();
    assertThat(store.authenticate("alice", "pw-3".toCharArray())).map(Principal::roles).contains(Set.of());
    assertThat(store.loginHashes()).isEqualTo(before + 1);

    // Off: every login hashes.
    UserStore off = UserStore.open(file(), FAST, Duration.ZERO, Duration.ZERO);
    off.authenticate("alice", "pw-3".toCharArray());
    off.authenticate("alice", "pw-3".toCharArray());
    assertThat(off.loginHashes()).isEqualTo(2);
  }

  @Test
  void unknownUserCostsAsMuchAsAWrongPassword() throws IOException {
    // Compares the fastest of several runs, so a busy machine can only make the check pass slower.
    UserStore store = UserStore.open(file(), 100_000);
    store.addUser("alice", "pw".toCharArray(), Set.of());
    long knownUser = Long.MAX_VALUE;
    long unknownUser = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      long start = System.nanoTime();
      store.authenticate("alice", "wrong".toCharArray());
      knownUser = Math.min(knownUser, System.nanoTime() - start);
      start = System.nanoTime();
      store.authenticate("nobody", "wrong".toCharArray());
      unknownUser = Math.min(unknownUser, System.nanoTime() - start);
    }
    assertThat(unknownUser).isGreaterThan(knownUser / 3);
  }

  @Test
  void rejectsInvalidInput() throws IOException {
    UserStore store = UserStore.open(file(), FAST);
    store.addUser("alice", "pw".toCharArray(), Set.of());

    assertThat(store.addUser("alice", "other".toCharArray(), Set.of("admin"))).isFalse();
    assertThat(store.authenticate("alice", "pw".toCharArray())).contains(Principal.of("alice"));
    assertThatThrownBy(() -> store.addUser("a:b", "pw".toCharArray(), Set.of()))
        .hasMessage("Invalid user name: a:b");
    assertThatThrownBy(() -> store.addUser("", "pw".toCharArray(), Set.of()))
        .hasMessage("Invalid user name: ");
    assertThatThrownBy(() -> store.addUser("bob", "pw".toCharArray(), Set.of("bad role")))
        .hasMessage("Invalid role name: bad role");
    assertThatThrownBy(() -> store.addUser("bob", new char[0], Set.of()))
        .hasMessage("Password of user bob is empty");
    assertThat(store.setPassword("nobody", "pw".toCharArray())).isFalse();
    assertThat(store.setRoles("nobody", Set.of())).isFalse();
    assertThatThrownBy(() -> store.setRoles("alice", Set.of(""))).hasMessage("Invalid role name: ");
    assertThatThrownBy(() -> UserStore.open(file(), 10))
        .hasMessage("Invalid PBKDF2 iteration count: 10 (minimum 1000)");
    assertThat(store.userNames()).containsExactly("alice");
  }

  @Test
  void rejectsCorruptFiles() throws IOException {
    Files.createDirectories(file().getParent());
    Files.writeString(file(), "{not json");
    assertThatThrownBy(() -> UserStore.open(file(), FAST))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("Invalid user file " + file());

    Files.writeString(
        file(),
        "{\"version\":1,\"users\":[{\"name\":\"alice\",\"roles\":[],\"algorithm\":\"MD5\","
            + "\"iterations\":1,\"salt\":\"AAAA\",\"hash\":\"AAAA\"}]}");
    assertThatThrownBy(() -> UserStore.open(file(), FAST))
        .hasMessage(
            "Invalid user file "
                + file()
                + ": user alice: unsupported algorithm MD5, expected PBKDF2WithHmacSHA256");

    Files.writeString(file(), "{\"version\":2,\"users\":[]}");
    assertThatThrownBy(() -> UserStore.open(file(), FAST))
        .hasMessage("Invalid user file " + file() + ": expected version 1 and a users list");
  }

  @Test
  void changesByAnotherStoreOnTheFileAreReadAgain() throws IOException {
    // Two servers sharing a data directory: each store checks the file at every lookup here.
    UserStore first = UserStore.open(file(), FAST, Duration.ofNanos(1));
    UserStore second = UserStore.open(file(), FAST, Duration.ofNanos(1));
    first.addUser("alice", "pw-alice".toCharArray(), Set.of("analyst"));
    String aliceId = first.account("alice").orElseThrow().id();

    assertThat(second.login("alice", "pw-alice".toCharArray()))
        .contains(new UserStore.Account(new Principal("alice", Set.of("analyst")), aliceId));
    second.setPassword("alice", "pw-alice-2".toCharArray());
    second.setRoles("alice", Set.of("writer"));
    assertThat(first.authenticate("alice", "pw-alice".toCharArray())).isEmpty();
    assertThat(first.login("alice", "pw-alice-2".toCharArray()))
        .contains(new UserStore.Account(new Principal("alice", Set.of("writer")), aliceId));

    assertThat(second.removeUser("alice")).isTrue();
    assertThat(first.principal("alice")).isEmpty();
    assertThat(first.addUser("alice", "pw-new".toCharArray(), Set.of())).isTrue();
    assertThat(second.account("alice").orElseThrow().id()).isNotEqualTo(aliceId);
  }

  @Test
  void aStoreThatDoesNotRefreshSeesOtherChangesOnlyWhenAskedOrWhenItWrites() throws IOException {
    UserStore first = UserStore.open(file(), FAST);
    UserStore second = UserStore.open(file(), FAST);
    first.addUser("alice", "pw".toCharArray(), Set.of());
    assertThat(second.userNames()).isEmpty();
    second.refresh();
    assertThat(second.userNames()).containsExactly("alice");
    // A write starts from the file as it is, never from an old copy.
    first.addUser("bob", "pw".toCharArray(), Set.of());
    second.addUser("carol", "pw".toCharArray(), Set.of());
    assertThat(second.userNames()).containsExactly("alice", "bob", "carol");
  }

  @Test
  void aBadFileWrittenByHandKeepsTheUsersAsLastRead() throws IOException {
    UserStore store = UserStore.open(file(), FAST, Duration.ofNanos(1));
    store.addUser("alice", "pw".toCharArray(), Set.of());
    Files.writeString(file(), "{not json");
    assertThat(store.authenticate("alice", "pw".toCharArray())).isPresent();
    Files.delete(file());
    assertThat(store.authenticate("alice", "pw".toCharArray())).isPresent();
  }

  @Test
  void twoStoresWritingTheFileAtOnceLoseNothing() throws Exception {
    UserStore first = UserStore.open(file(), FAST);
    UserStore second = UserStore.open(file(), FAST);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < 32; i++) {
        UserStore store = i % 2 == 0 ? first : second;
        String user = "user" + i;
        futures.add(pool.submit(() -> store.addUser(user, ("pw-" + user).toCharArray(), Set.of())));
      }
      for (Future<?> future : futures) {
        future.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(UserStore.open(file(), FAST).userNames()).hasSize(32);
  }

  @Test
  void twoStoresOnANewFileCreateOneAdmin() throws Exception {
    UserStore first = UserStore.open(file(), FAST);
    UserStore second = UserStore.open(file(), FAST);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Optional<String>> a = pool.submit(first::bootstrapAdmin);
      Future<Optional<String>> b = pool.submit(second::bootstrapAdmin);
      List<String> passwords = new ArrayList<>();
      a.get(60, TimeUnit.SECONDS).ifPresent(passwords::add);
      b.get(60, TimeUnit.SECONDS).ifPresent(passwords::add);
      assertThat(passwords).hasSize(1);
      assertThat(UserStore.open(file(), FAST).authenticate("admin", passwords.get(0).toCharArray())).isPresent();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentChangesAreAllKept() throws Exception {
    UserStore store = UserStore.open(file(), FAST);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < 32; i++) {
        String user = "user" + i;
        futures.add(
            pool.submit(
                () -> {
                  store.addUser(user, ("pw-" + user).toCharArray(), Set.of("r" + user));
                  assertThat(store.authenticate(user, ("pw-" + user).toCharArray())).isPresent();
                  return null;
                }));
      }
      for (Future<?> future : futures) {
        future.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    UserStore reopened = UserStore.open(file(), FAST);
    assertThat(reopened.userNames()).hasSize(32);
    assertThat(reopened.authenticate("user17", "pw-user17".toCharArray()))
        .contains(new Principal("user17", Set.of("ruser17")));
  }
}

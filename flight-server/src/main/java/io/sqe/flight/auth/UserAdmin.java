package io.sqe.flight.auth;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.sqe.flight.config.ConfigException;
import io.sqe.flight.config.ConfigLoader;
import io.sqe.flight.config.ServerConfig;
import io.sqe.flight.ops.LogSettings;
import java.io.ByteArrayOutputStream;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code sqe user add|passwd|remove|list}: local users changed in the data directory's users file,
 * whether or not a server runs on it. It takes the same lock as the servers, which read the file
 * again within {@code auth.users-refresh-period}. Passwords come from the terminal (asked twice) or
 * from one line of standard input, never from the arguments, which other users of the machine can
 * read.
 */
public final class UserAdmin {
  static final String USAGE =
      "Usage: sqe user add NAME [--roles ROLE,...]   add a user; the password is read from the terminal or stdin\n"
          + "       sqe user passwd NAME                  set a user's password (read the same way)\n"
          + "       sqe user remove NAME                  remove a user; their tokens stop working\n"
          + "       sqe user list                         the users and their roles\n"
          + "Options: --config FILE (default: $SQE_CONFIG); SQE_* variables override its settings, as for the server.\n";
  /** The longest line read as a password: a bound on what a mistaken pipe can feed in. */
  private static final int MAX_PASSWORD_BYTES = 4096;

  private final InputStream in;
  private final Console console;
  private final PrintStream out;
  private final PrintStream err;

  private UserAdmin(InputStream in, Console console, PrintStream out, PrintStream err) {
    this.in = in;
    this.console = console;
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    // The store's notes (a file readable by others) matter here; its info lines do not.
    LogSettings.apply(ServerConfig.LogFormat.TEXT, "warn");
    System.exit(run(args, System.getenv(), System.in, System.console(), System.out, System.err));
  }

  /**
   * Runs one command and returns the exit status: 0 done, 1 refused (an existing or unknown user,
   * an invalid name or password, an unreadable file), 2 a usage or configuration error.
   *
   * @param console the terminal to ask for passwords; null to read them from {@code in}
   */
  static int run(String[] args, Map<String, String> environment, InputStream in, Console console, PrintStream out, PrintStream err) {
    return new UserAdmin(in, console, out, err).run(args, environment);
  }

  private int run(String[] args, Map<String, String> environment) {
    List<String> positional = new ArrayList<>();
    Path configFile = null;
    Set<String> roles = Set.of();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--config":
        case "--roles":
          if (i + 1 >= args.length) {
            return usage("Missing value for " + args[i]);
          }
          if (args[i].equals("--config")) {
            configFile = Path.of(args[++i]);
          } else {
            roles = roles(args[++i]);
          }
          break;
        case "-h":
        case "--help":
          out.print(USAGE);
          return 0;
        default:
          if (args[i].startsWith("-")) {
            return usage("Unknown option: " + args[i]);
          }
          positional.add(args[i]);
      }
    }
    if (positional.isEmpty()) {
      return usage("Missing command");
    }
    String command = positional.get(0);
    int names = command.equals("list") ? 0 : 1;
    if (positional.size() != 1 + names) {
      return usage(names == 0 ? "sqe user list takes no name" : "sqe user " + command + " takes one user name");
    }
    if (!roles.isEmpty() && !command.equals("add")) {
      return usage("--roles goes with add");
    }
    if (!List.of("add", "passwd", "remove", "list").contains(command)) {
      return usage("Unknown command: " + command);
    }
    UserStore users;
    try {
      ServerConfig config = config(configFile, environment);
      users = UserStore.open(
          config.dataDir().resolve("security").resolve(AuthConfig.USERS_FILE), config.auth().passwordHashIterations());
    } catch (ConfigException e) {
      err.println("Invalid configuration: " + e.getMessage());
      return 2;
    } catch (IOException e) {
      err.println("Cannot read the users: " + e.getMessage());
      return 1;
    }
    try {
      return switch (command) {
        case "add" -> add(users, positional.get(1), roles);
        case "passwd" -> passwd(users, positional.get(1));
        case "remove" -> remove(users, positional.get(1));
        default -> list(users);
      };
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      return 1;
    } catch (IOException e) {
      err.println("Cannot change the users file " + users.file() + ": " + e.getMessage());
      return 1;
    }
  }

  private int add(UserStore users, String user, Set<String> roles) throws IOException {
    UserStore.checkName(user);
    UserStore.checkRoles(roles);
    if (users.principal(user).isPresent()) {
      err.println("User '" + user + "' already exists");
      return 1;
    }
    char[] password = password(user);
    if (password == null) {
      return 1;
    }
    try {
      if (!users.addUser(user, password, roles)) {
        err.println("User '" + user + "' already exists");
        return 1;
      }
    } finally {
      Arrays.fill(password, '\0');
    }
    out.println("Added user '" + user + "'" + (roles.isEmpty() ? "" : " with roles " + String.join(", ", roles)) + " in " + users.file());
    return 0;
  }

  private int passwd(UserStore users, String user) throws IOException {
    if (users.principal(user).isEmpty()) {
      err.println("User '" + user + "' does not exist");
      return 1;
    }
    char[] password = password(user);
    if (password == null) {
      return 1;
    }
    try {
      if (!users.setPassword(user, password)) {
        err.println("User '" + user + "' does not exist");
        return 1;
      }
    } finally {
      Arrays.fill(password, '\0');
    }
    out.println("Changed the password of user '" + user + "'; tokens issued before stay valid until they expire");
    return 0;
  }

  private int remove(UserStore users, String user) throws IOException {
    if (!users.removeUser(user)) {
      err.println("User '" + user + "' does not exist");
      return 1;
    }
    out.println("Removed user '" + user + "'; their tokens stop working");
    return 0;
  }

  private int list(UserStore users) {
    for (String name : users.userNames()) {
      List<String> roles = users.principal(name).orElseThrow().roles().stream().sorted().toList();
      out.println(name + (roles.isEmpty() ? "" : "\t" + String.join(",", roles)));
    }
    return 0;
  }

  /** The new password: asked twice on a terminal, else the first line of standard input; null after saying why not. */
  private char[] password(String user) throws IOException {
    char[] password;
    if (console != null) {
      password = console.readPassword("Password for %s: ", user);
      char[] again = password == null ? null : console.readPassword("Again: ");
      if (password == null || again == null || !Arrays.equals(password, again)) {
        err.println("The passwords do not match");
        return null;
      }
      Arrays.fill(again, '\0');
    } else {
      password = firstLine();
      if (password == null) {
        err.println("Could not read the password: give it on standard input, one line (at most " + MAX_PASSWORD_BYTES
            + " bytes, UTF-8)");
        return null;
      }
    }
    if (password.length == 0) {
      err.println("The password is empty");
      return null;
    }
    return password;
  }

  /** The first line of standard input without its line ending; null when it is too long or not UTF-8. */
  private char[] firstLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != -1 && b != '\n'; b = in.read()) {
      if (line.size() >= MAX_PASSWORD_BYTES) {
        return null;
      }
      line.write(b);
    }
    byte[] bytes = line.toByteArray();
    int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
    try {
      CharBuffer chars = UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes, 0, length));
      char[] password = new char[chars.remaining()];
      chars.get(password);
      Arrays.fill(chars.array(), '\0');
      return password;
    } catch (CharacterCodingException e) {
      return null;
    } finally {
      Arrays.fill(bytes, (byte) 0);
    }
  }

  private static Set<String> roles(String list) {
    Set<String> roles = new LinkedHashSet<>();
    for (String role : list.split(",")) {
      if (!role.isBlank()) {
        roles.add(role.trim());
      }
    }
    return roles;
  }

  /** The server's configuration, read as {@code Main} reads it. */
  private static ServerConfig config(Path configFile, Map<String, String> environment) {
    return configFile != null ? ConfigLoader.load(configFile, environment) : ConfigLoader.load(environment);
  }

  private int usage(String problem) {
    err.println(problem);
    err.print(USAGE);
    return 2;
  }
}

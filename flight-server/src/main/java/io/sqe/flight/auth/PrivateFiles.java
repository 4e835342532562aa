package io.sqe.flight.auth;

import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardCopyOption.REPLACE_EXISTING;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;

/** Files holding secrets: created readable by the owner only, and replaced atomically. */
final class PrivateFiles {
  private static final Set<PosixFilePermission> OWNER_READ_WRITE =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_ALL =
      PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> OTHERS =
      EnumSet.complementOf(
          EnumSet.of(
              PosixFilePermission.OWNER_READ,
              PosixFilePermission.OWNER_WRITE,
              PosixFilePermission.OWNER_EXECUTE));

  private PrivateFiles() {}

  /** Creates a missing directory (and parents) with mode 0700; an existing one is left alone. */
  static void createDirectories(Path directory) throws IOException {
    if (Files.isDirectory(directory)) {
      return;
    }
    if (isPosix(directory)) {
      Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(OWNER_ALL));
    } else {
      Files.createDirectories(directory);
    }
  }

  /** Replaces the file's content so that readers see either the old or the new bytes in full. */
  static void replace(Path file, byte[] content) throws IOException {
    Path temp = writeTemp(file, content);
    try {
      Files.move(temp, file, ATOMIC_MOVE, REPLACE_EXISTING);
      syncDirectory(file);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Creates the file with this content unless it exists; returns false when another writer created
   * it first. A hard link publishes the complete temporary file and fails if the name is taken,
   * which a rename would silently overwrite.
   */
  static boolean createIfAbsent(Path file, byte[] content) throws IOException {
    Path temp = writeTemp(file, content);
    try {
      Files.createLink(file, temp);
      syncDirectory(file);
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (UnsupportedOperationException e) {
      if (Files.exists(file)) {
        return false;
      }
      Files.move(temp, file, ATOMIC_MOVE);
      syncDirectory(file);
      return true;
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Opens a lock file for writing (a lock needs a writable channel), creating it with mode 0600
   * when missing; it is never written, only locked.
   */
  static FileChannel openLockFile(Path file) throws IOException {
    if (isPosix(parent(file))) {
      return FileChannel.open(file, Set.of(CREATE, WRITE), ownerOnly());
    }
    return FileChannel.open(file, CREATE, WRITE);
  }

  /** Logs a warning when group or others have any access to the file. */
  static void warnIfShared(Path file, Logger log) throws IOException {
    if (!isPosix(file)) {
      return;
    }
    Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
    if (permissions.stream().anyMatch(OTHERS::contains)) {
      log.warn(
          "{} is accessible by other users (mode {}); restrict it with: chmod 600 {}",
          file,
          PosixFilePermissions.toString(permissions),
          file);
    }
  }

  private static Path writeTemp(Path file, byte[] content) throws IOException {
    Path directory = parent(file);
    String prefix = "." + file.getFileName() + ".";
    Path temp =
        isPosix(directory)
            ? Files.createTempFile(directory, prefix, ".tmp", ownerOnly())
            : Files.createTempFile(directory, prefix, ".tmp");
    try (FileChannel channel = FileChannel.open(temp, WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(content);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(true);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    return temp;
  }

  // Makes the rename itself durable; not every platform can open a directory, and then the
  // rename is still atomic, only possibly lost on power failure.
  private static void syncDirectory(Path file) {
    try (FileChannel directory = FileChannel.open(parent(file), READ)) {
      directory.force(true);
    } catch (IOException e) {
      // best effort, see above
    }
  }

  private static FileAttribute<Set<PosixFilePermission>> ownerOnly() {
    return PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE);
  }

  private static Path parent(Path file) {
    Path parent = file.toAbsolutePath().getParent();
    if (parent == null) {
      throw new IllegalArgumentException("File has no parent directory: " + file);
    }
    return parent;
  }

  private static boolean isPosix(Path path) {
    return path.getFileSystem().supportedFileAttributeViews().contains("posix");
  }
}

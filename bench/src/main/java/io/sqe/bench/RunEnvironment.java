package io.sqe.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Where and on what a run happened: date, machine, Java, the commit of the working tree.
 *
 * @param date when the run started, UTC
 * @param commit the git commit, with {@code (modified)} when tracked files differ from it
 * @param cpu the processor model, or unknown
 * @param cores processors available to the JVM
 * @param memoryGb physical memory
 * @param os operating system and architecture
 * @param java Java runtime name and version
 * @param maxHeapMb the JVM's maximum heap
 * @param jvmFlags the JVM's input arguments
 */
record RunEnvironment(
    String date,
    String commit,
    String cpu,
    int cores,
    double memoryGb,
    String os,
    String java,
    long maxHeapMb,
    String jvmFlags) {

  static RunEnvironment detect() {
    var osBean = ManagementFactory.getOperatingSystemMXBean();
    double memory =
        osBean instanceof com.sun.management.OperatingSystemMXBean
            ? ((com.sun.management.OperatingSystemMXBean) osBean).getTotalMemorySize() / (double) (1L << 30)
            : 0;
    return new RunEnvironment(
        OffsetDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")),
        gitCommit(),
        cpuModel(),
        Runtime.getRuntime().availableProcessors(),
        memory,
        System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
        Runtime.getRuntime().maxMemory() >> 20,
        String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
  }

  List<String> describe() {
    return List.of(
        "Date: " + date,
        "Commit: " + commit,
        String.format("Machine: %s, %d cores, %.0f GB RAM, %s", cpu, cores, memoryGb, os),
        "Java: " + java + ", max heap " + maxHeapMb + " MB",
        "JVM flags: " + jvmFlags);
  }

  /** The system's one-minute load average, or -1 where the platform does not tell. */
  static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).strip();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: the model stays unknown
    }
    return "unknown CPU";
  }

  private static String gitCommit() {
    Optional<String> commit = git("rev-parse", "--short=12", "HEAD");
    if (commit.isEmpty()) {
      return "unknown";
    }
    boolean modified = git("status", "--porcelain", "--untracked-files=no").map(s -> !s.isBlank()).orElse(false);
    return commit.get() + (modified ? " (modified)" : "");
  }

  private static Optional<String> git(String... args) {
    String[] command = new String[args.length + 1];
    command[0] = "git";
    System.arraycopy(args, 0, command, 1, args.length);
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroy();
        return Optional.empty();
      }
      return Optional.of(out);
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}

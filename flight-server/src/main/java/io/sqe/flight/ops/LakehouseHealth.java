package io.sqe.flight.ops;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the catalog and the warehouse storage answer, by cheap real calls: the catalog lists its
 * schemas; storage is asked whether the metadata file of one table exists (the first table of the
 * first schemas that have one; an embedded catalog without tables checks its warehouse directory).
 * Each check has a deadline, and an answer is reused for a second, so that many probes cost one
 * check.
 */
public final class LakehouseHealth implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LakehouseHealth.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final Duration REUSE = Duration.ofSeconds(1);
  private static final int SCHEMAS_TO_SEARCH = 5;

  private final LakehouseCatalog catalog;
  private final Path embeddedWarehouse;
  private final ExecutorService checks =
      Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "sqe-health-check");
        thread.setDaemon(true);
        return thread;
      });
  private Report last;
  private long lastNanos;

  /** @param embeddedWarehouse the embedded catalog's directory; null for a REST catalog */
  public LakehouseHealth(LakehouseCatalog catalog, Path embeddedWarehouse) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.embeddedWarehouse = embeddedWarehouse;
  }

  /** What a check found. */
  public record Check(boolean ok, String detail) {}

  /** The checks of the catalog and of storage. */
  public record Report(Check catalog, Check storage) {
    public boolean ok() {
      return catalog.ok() && storage.ok();
    }
  }

  /** The latest report, checked again if it is older than a second. */
  public synchronized Report check() {
    if (last != null && System.nanoTime() - lastNanos < REUSE.toNanos()) {
      return last;
    }
    last = withDeadline();
    lastNanos = System.nanoTime();
    return last;
  }

  private Report withDeadline() {
    Future<Report> report = checks.submit(this::run);
    try {
      return report.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      report.cancel(true);
      Check late = new Check(false, "no answer within " + TIMEOUT.toSeconds() + " s");
      return new Report(late, late);
    } catch (ExecutionException e) {
      Check failed = new Check(false, describe(e.getCause()));
      return new Report(failed, failed);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      Check interrupted = new Check(false, "interrupted");
      return new Report(interrupted, interrupted);
    }
  }

  private Report run() {
    List<Namespace> schemas;
    try {
      schemas = catalog.listSchemas();
    } catch (NotAuthorizedException | ForbiddenException e) {
      if (catalog.passesCallerCredentials()) {
        // Each user's own token reaches the catalog; the server has none of its own to list with.
        return new Report(new Check(true, "reachable; it refuses the server's own credentials"), storageWithoutTables());
      }
      return new Report(new Check(false, "refuses the server's credentials: " + describe(e)), new Check(false, "not checked"));
    } catch (RuntimeException e) {
      return new Report(new Check(false, describe(e)), new Check(false, "not checked"));
    }
    Check catalogCheck = new Check(true, schemas.size() + " schemas");
    try {
      Optional<Table> table = firstTable(schemas);
      if (table.isEmpty()) {
        return new Report(catalogCheck, storageWithoutTables());
      }
      // Details name no table: anyone who reaches the endpoint reads them.
      if (!(table.get() instanceof HasTableOperations)) {
        return new Report(catalogCheck, new Check(true, "a table loaded"));
      }
      String metadata = ((HasTableOperations) table.get()).operations().current().metadataFileLocation();
      if (table.get().io().newInputFile(metadata).exists()) {
        return new Report(catalogCheck, new Check(true, "table metadata readable"));
      }
      LOG.warn("Health check: the metadata file {} of {} is missing", metadata, table.get().name());
      return new Report(catalogCheck, new Check(false, "a table's metadata file is missing (see the server's log)"));
    } catch (RuntimeException e) {
      return new Report(catalogCheck, new Check(false, describe(e)));
    }
  }

  private Optional<Table> firstTable(List<Namespace> schemas) {
    for (Namespace schema : schemas.subList(0, Math.min(SCHEMAS_TO_SEARCH, schemas.size()))) {
      for (TableIdentifier id : catalog.listTables(schema.toString())) {
        Optional<Table> table = catalog.loadTable(id);
        if (table.isPresent()) {
          return table;
        }
      }
    }
    return Optional.empty();
  }

  private Check storageWithoutTables() {
    if (embeddedWarehouse == null) {
      return new Check(true, "no table to check storage with");
    }
    return Files.isDirectory(embeddedWarehouse) && Files.isWritable(embeddedWarehouse)
        ? new Check(true, "warehouse directory writable")
        : new Check(false, "warehouse directory " + embeddedWarehouse + " is not a writable directory");
  }

  private static String describe(Throwable e) {
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null ? "" : ": " + firstLine(message));
  }

  private static String firstLine(String message) {
    int end = message.indexOf('\n');
    String line = end < 0 ? message : message.substring(0, end);
    return line.length() > 300 ? line.substring(0, 300) + "..." : line;
  }

  @Override
  public void close() {
    checks.shutdownNow();
  }
}

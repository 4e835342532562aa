package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.ByteString;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.flight.session.ClientSession;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.flight.CallStatus;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Issues and redeems the handles of statements (tickets and prepared statement handles), so that
 * any server sharing this one's signing keys can serve them: this server serves a handle from
 * the state it keeps when it issued it, and any other plans its statement again from what the
 * handle carries, reading the snapshots a ticket was planned against.
 */
final class StatementHandles {
  private final SignedHandles signed;
  private final IssuingServer server;
  private final QueryEngine engine;
  private final Duration ticketLifetime;
  private final Duration preparedLifetime;
  private final Clock clock;

  /**
   * @param ticketLifetime how long after it is issued (or renewed) a ticket is redeemed
   * @param preparedLifetime how long after it is issued (or parameters are bound) a prepared
   *     statement handle is redeemed
   */
  StatementHandles(
      SignedHandles signed, IssuingServer server, QueryEngine engine, Duration ticketLifetime, Duration preparedLifetime, Clock clock) {
    this.signed = requireNonNull(signed, "signed is null");
    this.server = requireNonNull(server, "server is null");
    this.engine = requireNonNull(engine, "engine is null");
    this.ticketLifetime = requireNonNull(ticketLifetime, "ticketLifetime is null");
    this.preparedLifetime = requireNonNull(preparedLifetime, "preparedLifetime is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  IssuingServer server() {
    return server;
  }

  /**
   * The ticket of a query planned here: self-contained with the snapshots its plan reads, unless
   * it runs in a transaction.
   */
  byte[] queryTicket(String queryId, Session session, Prepared statement, List<List<Object>> parameterSets) {
    if (session.openTransaction().isPresent()) {
      return local(StatementHandle.Kind.TICKET, queryId, session, StatementHandle.Scope.TRANSACTION);
    }
    List<StatementHandle.TableSnapshot> snapshots = engine.snapshotsRead(statement).stream()
        .map(read -> new StatementHandle.TableSnapshot(
            read.catalog(), List.of(read.table().namespace().levels()), read.table().name(), read.snapshotId()))
        .toList();
    return signed.encode(new StatementHandle(
        StatementHandle.Kind.TICKET, now(), server.id(), queryId, session.principal().user(), StatementHandle.Scope.SELF_CONTAINED,
        context(session), statement.sql(), parameterSets, snapshots, null));
  }

  /**
   * The ticket of a command that ran here: it carries the rows it changed (and the text SHOW
   * QUERIES shows), even in a transaction, unless it reports more than a count.
   */
  byte[] commandTicket(String queryId, Session session, String shownText, boolean reports, long rows) {
    // A count is no transaction's state: any server may return it.
    if (reports) {
      return local(StatementHandle.Kind.TICKET, queryId, session, StatementHandle.Scope.SERVER_ONLY);
    }
    return signed.encode(new StatementHandle(
        StatementHandle.Kind.TICKET, now(), server.id(), queryId, session.principal().user(), StatementHandle.Scope.SELF_CONTAINED,
        context(session), shownText, List.of(), List.of(), rows));
  }

  /** A ticket only this server redeems: a command a poll started, whose outcome only this server learns. */
  byte[] serverOnlyTicket(String queryId, Session session) {
    return local(StatementHandle.Kind.TICKET, queryId, session, StatementHandle.Scope.SERVER_ONLY);
  }

  /**
   * The handle of a statement prepared here from {@code sql}: self-contained unless it belongs to
   * a transaction or its text was redacted (it holds a password).
   */
  StatementHandle prepared(String handleId, Session session, String sql, Prepared statement, boolean inTransaction) {
    StatementHandle.Scope scope = inTransaction || session.openTransaction().isPresent()
        ? StatementHandle.Scope.TRANSACTION
        : statement.sql().equals(sql) ? StatementHandle.Scope.SELF_CONTAINED : StatementHandle.Scope.SERVER_ONLY;
    if (scope != StatementHandle.Scope.SELF_CONTAINED) {
      return StatementHandle.local(StatementHandle.Kind.PREPARED, now(), server.id(), handleId, session.principal().user(), scope);
    }
    return new StatementHandle(
        StatementHandle.Kind.PREPARED, now(), server.id(), handleId, session.principal().user(), scope, context(session), sql,
        List.of(), List.of(), null);
  }

  /** The signed bytes of a handle. */
  ByteString encode(StatementHandle handle) {
    return ByteString.copyFrom(signed.encode(handle));
  }

  /** The handle re-signed with {@code rows} bound, now. */
  ByteString withParameters(StatementHandle handle, List<List<Object>> rows) {
    return encode(handle.withParameters(rows, now()));
  }

  /** The handle re-signed now, for a renewed ticket. */
  byte[] renewed(StatementHandle handle) {
    return signed.encode(handle.withParameters(handle.parameterSets(), now()));
  }

  /** When a handle of {@code kind} issued now expires. */
  Instant expiry(StatementHandle.Kind kind) {
    return now().plus(kind == StatementHandle.Kind.TICKET ? ticketLifetime : preparedLifetime);
  }

  private byte[] local(StatementHandle.Kind kind, String id, Session session, StatementHandle.Scope scope) {
    return signed.encode(StatementHandle.local(kind, now(), server.id(), id, session.principal().user(), scope));
  }

  private static StatementHandle.Context context(Session session) {
    return new StatementHandle.Context(
        session.catalog(), session.schema(), session.timeZone().getId(), session.statementTimeout(), session.options(),
        session.preparedStatements());
  }

  /**
   * The handle {@code bytes} hold, checked: signed with our keys, of {@code kind}, not expired, and
   * {@code caller}'s. Empty for bytes that are no signed handle (an id of old), which the caller
   * treats as an unknown one.
   *
   * @param what what the handle is, as messages name it: "ticket", "prepared statement"
   */
  Optional<StatementHandle> read(byte[] bytes, StatementHandle.Kind kind, String what, Principal caller) {
    Optional<StatementHandle> decoded = signed.decode(bytes, what);
    if (decoded.isEmpty()) {
      return decoded;
    }
    StatementHandle handle = decoded.get();
    if (handle.kind() != kind) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "This is no " + what + " but a " + handle.kind().name().toLowerCase(java.util.Locale.ROOT));
    }
    Duration lifetime = kind == StatementHandle.Kind.TICKET ? ticketLifetime : preparedLifetime;
    Instant expired = handle.issuedAt().plus(lifetime);
    if (!now().isBefore(expired)) {
      throw new SqeException(
          ErrorCode.NOT_FOUND,
          "This " + what + " expired at " + expired + " (" + lifetime.toMinutes() + " minutes after it was issued"
              + (kind == StatementHandle.Kind.TICKET ? " or renewed" : " or its parameters were bound") + "); run the statement again");
    }
    if (!caller.user().equals(handle.user())) {
      throw CallStatus.UNAUTHORIZED.withDescription("This " + what + " belongs to another user").toRuntimeException();
    }
    return decoded;
  }

  /** The id a handle's issuing server keeps it under: the handle's, or for bytes of old, their text. */
  static String localId(Optional<StatementHandle> handle, byte[] bytes) {
    return handle.map(StatementHandle::localId).orElseGet(() -> new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
  }

  /**
   * The id a handle's issuing server keeps it under, read without checking the signature: for
   * cancelling, which the query's own user or an admin may do anyway.
   */
  static String localIdOf(byte[] bytes) {
    return localId(SignedHandles.peek(bytes), bytes);
  }

  /**
   * Why this server cannot redeem a handle it does not hold, when it is not self-contained:
   * FAILED_PRECONDITION for one of a transaction, which lives on the issuing server only;
   * UNAVAILABLE for any other, which its issuing server may still hold.
   */
  RuntimeException notHere(StatementHandle handle, String what) {
    if (handle.scope() == StatementHandle.Scope.TRANSACTION) {
      return new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          "This " + what + " belongs to a transaction, which lives only on SQE server " + handle.issuer() + " that began it"
              + (handle.issuer().equals(server.id()) ? " (this one), and has ended" : ", not on this one (" + server.id() + ")")
              + ": send the transaction's statements to that server (docs/deploy.md), or run the transaction again");
    }
    return server.unknown(handle.issuer() + "." + handle.localId(), what, "Unknown or expired " + what + "; run the statement again");
  }

  /** The session a redeemed handle's statement runs in: the caller's, with the settings the handle carries. */
  static Session session(StatementHandle handle, ClientSession client) {
    StatementHandle.Context context = handle.context();
    Session base = client.session();
    return new Session(
        base.principal(), context.catalog(), context.schema(), ZoneId.of(context.timeZone()), null, context.statementTimeout(),
        context.preparedStatements(), context.options());
  }

  /** The snapshots a redeemed ticket's statement reads. */
  static List<QueryEngine.TableSnapshot> snapshots(StatementHandle handle) {
    return handle.snapshots().stream()
        .map(table -> new QueryEngine.TableSnapshot(
            table.catalog(), TableIdentifier.of(Namespace.of(table.namespace().toArray(new String[0])), table.table()), table.snapshotId()))
        .toList();
  }

  /** Whether every table a ticket was planned against is still at the snapshot it read. */
  boolean snapshotsCurrent(StatementHandle handle) {
    List<QueryEngine.TableSnapshot> planned = snapshots(handle);
    return engine.currentSnapshots(planned).equals(planned);
  }

  private Instant now() {
    return Instant.ofEpochSecond(clock.instant().getEpochSecond());
  }
}

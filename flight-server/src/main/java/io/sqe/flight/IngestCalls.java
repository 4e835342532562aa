package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.audit.StatementFacts;
import io.sqe.engine.session.Session;
import io.sqe.flight.audit.AuditLog;
import io.sqe.flight.audit.StatementAudit;
import io.sqe.flight.session.ClientSession;
import io.sqe.write.dml.BulkIngest;
import java.util.List;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest;

/** Flight SQL bulk ingest: a client's Arrow stream written to a table through the write path. */
final class IngestCalls {
  private final BulkIngest ingest;
  private final CallSessions calls;
  private final FlightTransactions transactions;
  private final StatementCalls statements;
  private final AuditLog audit;

  IngestCalls(BulkIngest ingest, CallSessions calls, FlightTransactions transactions, StatementCalls statements, AuditLog audit) {
    this.ingest = requireNonNull(ingest, "ingest is null");
    this.calls = requireNonNull(calls, "calls is null");
    this.transactions = requireNonNull(transactions, "transactions is null");
    this.statements = requireNonNull(statements, "statements is null");
    this.audit = requireNonNull(audit, "audit is null");
  }

  /** Writes the rows a client sends to a table, which it creates, appends to or replaces as the command says. */
  Runnable acceptPut(
      CommandStatementIngest command, CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return () -> {
      String queryId = statements.newQueryId();
      try {
        ClientSession session = calls.session(context);
        Session statementSession = transactions.statementSession(session, command.getTransactionId());
        StatementAudit record = audit(context, statementSession, command);
        long rows = record.recordUpdate(
            queryId, () -> ingest.ingest(statementSession, ingestRequest(command), flightStream.getRoot(), flightStream::next, queryId));
        statements.sendUpdateCount(ackStream, rows);
      } catch (RuntimeException | Error e) {
        ackStream.onError(FlightErrors.toFlight(e, queryId));
      }
    };
  }

  /** The audit record of a bulk ingest: kind INGEST, writing the table it names. */
  private StatementAudit audit(CallContext context, Session session, CommandStatementIngest command) {
    if (!audit.recordsStatements()) {
      return StatementAudit.NONE;
    }
    String catalog = command.hasCatalog() ? command.getCatalog() : session.catalog();
    String schema = command.hasSchema() ? command.getSchema() : session.schema();
    String table = (schema == null ? catalog : catalog + "." + schema) + "." + command.getTable();
    String client = CallSessions.clientAddress(context);
    return audit.statement(
        session.principal().user(), client, new StatementFacts("INGEST", List.of(), List.of(table)),
        audit.tracing().clientContext(name -> CallSessions.header(context, name)));
  }

  /** The write path's form of an ingest command; the protocol asks servers to refuse unspecified table options. */
  private static BulkIngest.Request ingestRequest(CommandStatementIngest command) {
    if (command.getTemporary()) {
      throw new SqeException(ErrorCode.NOT_SUPPORTED, "SQE has no temporary tables; ingest into a table of a schema");
    }
    CommandStatementIngest.TableDefinitionOptions options = command.getTableDefinitionOptions();
    BulkIngest.IfMissing ifMissing;
    switch (options.getIfNotExist()) {
      case TABLE_NOT_EXIST_OPTION_CREATE:
        ifMissing = BulkIngest.IfMissing.CREATE;
        break;
      case TABLE_NOT_EXIST_OPTION_FAIL:
        ifMissing = BulkIngest.IfMissing.FAIL;
        break;
      default:
        throw FlightErrors.invalid("Bulk ingest needs table_definition_options.if_not_exist: CREATE or FAIL");
    }
    BulkIngest.IfExists ifExists;
    switch (options.getIfExists()) {
      case TABLE_EXISTS_OPTION_FAIL:
        ifExists = BulkIngest.IfExists.FAIL;
        break;
      case TABLE_EXISTS_OPTION_APPEND:
        ifExists = BulkIngest.IfExists.APPEND;
        break;
      case TABLE_EXISTS_OPTION_REPLACE:
        ifExists = BulkIngest.IfExists.REPLACE;
        break;
      default:
        throw FlightErrors.invalid("Bulk ingest needs table_definition_options.if_exists: FAIL, APPEND or REPLACE");
    }
    return new BulkIngest.Request(
        command.hasCatalog() ? FlightErrors.name("catalog", command.getCatalog()) : null,
        command.hasSchema() ? FlightErrors.name("schema", command.getSchema()) : null,
        FlightErrors.name("table", command.getTable()),
        ifMissing,
        ifExists);
  }
}

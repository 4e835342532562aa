package io.sqe.engine.command;

import io.sqe.engine.exec.RowStream;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.session.Session;
import java.util.List;
import org.apache.calcite.sql.SqlNode;

/** The engine's query machinery, as commands use it for the queries inside them. */
public interface QueryServices {
  /** Validates, optimises and compiles a query; errors in it carry their SQL position. */
  PlannedQuery plan(Session session, SqlNode query, String sql);

  /** Runs a planned query and hands back its rows in the engine's value representation. */
  RowStream rows(Session session, PlannedQuery query, List<Object> parameters, String queryId);
}

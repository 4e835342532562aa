package io.sqe.engine.plan;

import java.util.Locale;
import java.util.Optional;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.ViewRepresentation;
import org.apache.iceberg.view.ViewVersion;

/** Which of an Iceberg view's SQL texts SQE reads: its own dialect's, else another engine's. */
public final class ViewDefinitions {
  /** The dialect name of SQE's SQL in a view's representations. */
  public static final String DIALECT = "sqe";

  private ViewDefinitions() {}

  /** SQE's SQL if the view has it, else the first SQL representation another engine stored. */
  public static Optional<SQLViewRepresentation> sql(ViewVersion version) {
    SQLViewRepresentation first = null;
    for (ViewRepresentation representation : version.representations()) {
      if (representation instanceof SQLViewRepresentation) {
        SQLViewRepresentation sql = (SQLViewRepresentation) representation;
        if (sql.dialect().toLowerCase(Locale.ROOT).equals(DIALECT)) {
          return Optional.of(sql);
        }
        first = first == null ? sql : first;
      }
    }
    return Optional.ofNullable(first);
  }
}

package io.sqe.write.storage;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import io.sqe.engine.session.Principal;
import io.sqe.engine.sql.ddl.SqlProperty;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The locations a statement's {@code WITH (...)} or {@code SET PROPERTIES} list chooses for a
 * table or schema, checked by {@link LocationRules} when the statement is prepared, and checked
 * against the catalog's other tables ({@link #checkFree}) when it runs.
 */
public final class ChosenLocations {
  private record Chosen(String key, StorageLocation location, SqlPosition at) {}

  private final LocationRules rules;
  private final List<Chosen> chosen;

  private ChosenLocations(LocationRules rules, List<Chosen> chosen) {
    this.rules = requireNonNull(rules, "rules is null");
    this.chosen = List.copyOf(chosen);
  }

  /** Checks every property of {@code properties} (SqlProperty nodes) that names a path. */
  public static ChosenLocations of(LocationRules rules, Principal principal, LakehouseCatalog catalog, List<SqlNode> properties) {
    List<Chosen> chosen = new ArrayList<>();
    for (SqlNode node : properties) {
      SqlProperty property = (SqlProperty) node;
      SqlPosition at = position(property.value());
      String value = property.valueText();
      if (value == null) {
        if (LocationRules.isPathProperty(property.key())) {
          throw new SqeException(ErrorCode.INVALID_ARGUMENT, "The value of '" + property.key() + "' must be a string literal", at, null);
        }
        continue;
      }
      rules.checkProperty(principal, catalog, property.key(), value, at)
          .ifPresent(location -> chosen.add(new Chosen(property.key(), location, at)));
    }
    return new ChosenLocations(rules, chosen);
  }

  /** Checks that no chosen location shares files with a table or view of {@code catalog} other than {@code self}. */
  public void checkFree(LakehouseCatalog catalog, TableIdentifier self) {
    if (chosen.isEmpty()) {
      return;
    }
    OtherTables others = OtherTables.of(catalog, self);
    for (Chosen c : chosen) {
      rules.checkFree(others, c.key(), c.location(), c.at());
    }
  }

  private static SqlPosition position(SqlNode at) {
    SqlParserPos pos = at.getParserPosition();
    return pos.getLineNum() > 0 ? new SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null;
  }
}

package io.sqe.engine.security;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.Principal;
import io.sqe.engine.sql.SqeParser;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * An access policy in the format of Trino's file-based access control ({@code rules.json}), as
 * JSON or YAML: {@code catalogs}, {@code schemas} and {@code tables} sections whose rules are read
 * top-down, the first matching rule deciding. A section that is present and has no matching rule
 * denies; a section that is absent allows everything. No role is exempt unless a rule says so.
 */
public final class AccessRules implements AccessControl {
  private static final ObjectMapper JSON = mapper(new ObjectMapper());
  private static final ObjectMapper YAML = mapper(new ObjectMapper(new YAMLFactory()));

  private final List<CatalogRule> catalogs;
  private final List<SchemaRule> schemas;
  private final List<TableRule> tables;

  private AccessRules(RulesFile file) {
    this.catalogs = file.catalogs == null ? null : List.copyOf(file.catalogs);
    this.schemas = file.schemas == null ? null : List.copyOf(file.schemas);
    this.tables = file.tables == null ? null : List.copyOf(file.tables);
  }

  private static ObjectMapper mapper(ObjectMapper mapper) {
    return mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  }

  /**
   * Parses and checks a policy: unknown keys, bad regexes and masks or filters that are not SQL
   * expressions are errors.
   *
   * @param yaml whether the text is YAML rather than JSON
   * @throws IllegalArgumentException naming what is wrong
   */
  public static AccessRules parse(String text, boolean yaml) {
    RulesFile file;
    try {
      file = (yaml ? YAML : JSON).readValue(text, RulesFile.class);
    } catch (UnrecognizedPropertyException e) {
      throw new IllegalArgumentException(
          "unknown key '" + e.getPropertyName() + "' at " + e.getPathReference() + "; known keys are " + e.getKnownPropertyIds(), e);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e.getOriginalMessage() + " at " + location(e), e);
    }
    if (file == null) {
      throw new IllegalArgumentException("the policy is empty");
    }
    AccessRules rules = new AccessRules(file);
    rules.check();
    return rules;
  }

  private static String location(JsonProcessingException e) {
    return e.getLocation() == null ? "?" : "line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
  }

  /** The sections that are absent, and so allow everything. */
  public List<String> absentSections() {
    List<String> absent = new ArrayList<>();
    if (catalogs == null) {
      absent.add("catalogs");
    }
    if (schemas == null) {
      absent.add("schemas");
    }
    if (tables == null) {
      absent.add("tables");
    }
    return absent;
  }

  private void check() {
    for (int i = 0; catalogs != null && i < catalogs.size(); i++) {
      CatalogRule rule = catalogs.get(i);
      String where = "catalogs[" + i + "]";
      rule.check(where);
      regex(rule.catalog, where + ".catalog");
      catalogAccess(rule.allow, where);
    }
    for (int i = 0; schemas != null && i < schemas.size(); i++) {
      SchemaRule rule = schemas.get(i);
      String where = "schemas[" + i + "]";
      rule.check(where);
      regex(rule.catalog, where + ".catalog");
      regex(rule.schema, where + ".schema");
    }
    for (int i = 0; tables != null && i < tables.size(); i++) {
      TableRule rule = tables.get(i);
      String where = "tables[" + i + "]";
      rule.check(where);
      regex(rule.catalog, where + ".catalog");
      regex(rule.schema, where + ".schema");
      regex(rule.table, where + ".table");
      if (rule.privileges == null) {
        throw new IllegalArgumentException(where + " has no privileges list; write \"privileges\": [] to deny");
      }
      if (rule.filter != null) {
        expression(rule.filter, where + ".filter");
      }
      if (rule.filterEnvironment != null) {
        throw new IllegalArgumentException(where + ".filter_environment is not supported: SQE evaluates filters as the querying user");
      }
      Set<String> seen = new HashSet<>();
      for (int c = 0; rule.columns != null && c < rule.columns.size(); c++) {
        ColumnRule column = rule.columns.get(c);
        String at = where + ".columns[" + c + "]";
        if (column.name == null || column.name.isBlank()) {
          throw new IllegalArgumentException(at + " has no name");
        }
        if (!seen.add(column.name)) {
          throw new IllegalArgumentException(at + " names column '" + column.name + "' a second time");
        }
        if (column.mask != null) {
          expression(column.mask, at + ".mask");
        }
        if (column.maskEnvironment != null) {
          throw new IllegalArgumentException(at + ".mask_environment is not supported: SQE evaluates masks as the querying user");
        }
      }
    }
  }

  private static void regex(String regex, String where) {
    try {
      if (regex != null) {
        Pattern.compile(regex);
      }
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(where + " is not a regular expression: " + e.getDescription() + " in '" + regex + "'", e);
    }
  }

  private static void expression(String sql, String where) {
    try {
      SqeParser.parseExpression(sql);
    } catch (SqeException e) {
      throw new IllegalArgumentException(where + " '" + sql + "' is not a SQL expression: " + e.clientMessage(), e);
    }
  }

  private static Set<Privilege> catalogAccess(String allow, String where) {
    switch (allow == null ? "all" : allow) {
      case "all":
      case "true":
        return EnumSet.allOf(Privilege.class);
      case "read-only":
        return EnumSet.of(Privilege.SELECT);
      case "none":
      case "false":
        return Set.of();
      default:
        throw new IllegalArgumentException(where + ".allow must be all, read-only or none, not '" + allow + "'");
    }
  }

  /** The privileges the catalogs section leaves a principal in a catalog. */
  private Set<Privilege> catalogPrivileges(Principal principal, String catalog) {
    if (catalogs == null) {
      return EnumSet.allOf(Privilege.class);
    }
    for (CatalogRule rule : catalogs) {
      if (rule.matches(principal) && matches(rule.catalog, catalog)) {
        return catalogAccess(rule.allow, "catalog rule");
      }
    }
    return Set.of();
  }

  @Override
  public TableAccess tableAccess(Principal principal, String catalog, String schema, String table) {
    Set<Privilege> allowed = catalogPrivileges(principal, catalog);
    if (allowed.isEmpty() || SYSTEM_SCHEMA.equals(schema)) {
      return allowed.isEmpty() ? TableAccess.NONE : TableAccess.ALL.limitedTo(EnumSet.of(Privilege.SELECT));
    }
    TableAccess access = TableAccess.NONE;
    if (tables == null) {
      access = TableAccess.ALL;
    } else {
      for (TableRule rule : tables) {
        if (rule.matches(principal) && matches(rule.catalog, catalog) && matches(rule.schema, schema) && matches(rule.table, table)) {
          access = rule.access();
          break;
        }
      }
    }
    return access.limitedTo(allowed);
  }

  @Override
  public boolean ownsSchema(Principal principal, String catalog, String schema) {
    if (!catalogPrivileges(principal, catalog).contains(Privilege.CREATE)) {
      return false;
    }
    if (schemas == null) {
      return true;
    }
    for (SchemaRule rule : schemas) {
      if (rule.matches(principal) && matches(rule.catalog, catalog) && matches(rule.schema, schema)) {
        return rule.owner;
      }
    }
    return false;
  }

  /** A schema is visible to its owners and to whoever has a privilege on something in it. */
  @Override
  public boolean canSeeSchema(Principal principal, String catalog, String schema) {
    if (catalogPrivileges(principal, catalog).isEmpty()) {
      return false;
    }
    if (SYSTEM_SCHEMA.equals(schema) || tables == null || ownsSchema(principal, catalog, schema)) {
      return true;
    }
    for (TableRule rule : tables) {
      if (rule.matches(principal) && matches(rule.catalog, catalog) && matches(rule.schema, schema) && !rule.privileges.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private static final String SYSTEM_SCHEMA = "information_schema";

  private static boolean matches(String regex, String value) {
    return regex == null || Pattern.matches(regex, value);
  }

  /** Who a rule is for: regexes over the user's name, roles and groups (SQE's roles are both). */
  private abstract static class Subject {
    @JsonProperty("user")
    String user;

    @JsonProperty("role")
    String role;

    @JsonProperty("group")
    String group;

    void check(String where) {
      regex(user, where + ".user");
      regex(role, where + ".role");
      regex(group, where + ".group");
    }

    boolean matches(Principal principal) {
      return AccessRules.matches(user, principal.user()) && anyRole(role, principal) && anyRole(group, principal);
    }

    private static boolean anyRole(String regex, Principal principal) {
      return regex == null || principal.roles().stream().anyMatch(r -> Pattern.matches(regex, r));
    }
  }

  private static final class RulesFile {
    @JsonProperty("catalogs")
    List<CatalogRule> catalogs;

    @JsonProperty("schemas")
    List<SchemaRule> schemas;

    @JsonProperty("tables")
    List<TableRule> tables;
  }

  private static final class CatalogRule extends Subject {
    @JsonProperty("catalog")
    String catalog;

    @JsonProperty("allow")
    String allow;
  }

  private static final class SchemaRule extends Subject {
    @JsonProperty("catalog")
    String catalog;

    @JsonProperty("schema")
    String schema;

    @JsonProperty("owner")
    boolean owner;
  }

  private static final class TableRule extends Subject {
    @JsonProperty("catalog")
    String catalog;

    @JsonProperty("schema")
    String schema;

    @JsonProperty("table")
    String table;

    @JsonProperty("privileges")
    List<Privilege> privileges;

    @JsonProperty("columns")
    List<ColumnRule> columns;

    @JsonProperty("filter")
    String filter;

    @JsonProperty("filter_environment")
    Map<String, String> filterEnvironment;

    TableAccess access() {
      Set<String> hidden = new HashSet<>();
      Map<String, String> masks = new HashMap<>();
      for (ColumnRule column : columns == null ? List.<ColumnRule>of() : columns) {
        if (!column.allow) {
          hidden.add(column.name);
        } else if (column.mask != null) {
          masks.put(column.name, column.mask);
        }
      }
      return new TableAccess(Privilege.expand(privileges), hidden, masks, filter);
    }
  }

  private static final class ColumnRule {
    @JsonProperty("name")
    String name;

    @JsonProperty("allow")
    boolean allow = true;

    @JsonProperty("mask")
    String mask;

    @JsonProperty("mask_environment")
    Map<String, String> maskEnvironment;
  }
}

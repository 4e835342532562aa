package io.sqe.engine.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.session.Principal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyFileTest {
  private static final Principal BOB = new Principal("bob", Set.of("analyst"));
  private static final Principal ADMIN = new Principal("root", Set.of("admin"));

  @TempDir Path dir;

  @Test
  void firstMatchWinsNoMatchDeniesAbsentSectionAllows() {
    AccessRules rules = AccessRules.parse(
        """
        tables:
          - {user: bob, table: secret, privileges: []}
          - {role: analyst, privileges: [SELECT]}
          - {role: admin, privileges: [OWNERSHIP]}
        """, true);
    assertThat(rules.tableAccess(BOB, "c", "s", "secret").visible()).isFalse();
    assertThat(rules.tableAccess(BOB, "c", "s", "t").privileges()).containsExactly(Privilege.SELECT);
    assertThat(rules.tableAccess(new Principal("eve", Set.of()), "c", "s", "t").visible()).isFalse();
    assertThat(rules.tableAccess(ADMIN, "c", "s", "t").privileges()).hasSize(Privilege.values().length);
    assertThat(rules.absentSections()).containsExactly("catalogs", "schemas");
  }

  @Test
  void noRoleBypassesTheRulesWithoutARule() {
    AccessRules rules = AccessRules.parse("{\"tables\": [{\"role\": \"analyst\", \"privileges\": [\"SELECT\"]}]}", false);
    assertThat(rules.tableAccess(ADMIN, "c", "s", "t").visible()).isFalse();
  }

  @Test
  void readOnlyCatalogLeavesOnlySelect() {
    AccessRules rules = AccessRules.parse("{\"catalogs\": [{\"catalog\": \"lake\", \"allow\": \"read-only\"}]}", false);
    assertThat(rules.tableAccess(BOB, "lake", "s", "t").privileges()).containsExactly(Privilege.SELECT);
    assertThat(rules.tableAccess(BOB, "other", "s", "t").visible()).isFalse();
  }

  @Test
  void badFilesNameWhatIsWrong() {
    assertThatThrownBy(() -> AccessRules.parse("{\"tables\": [{\"privilege\": []}]}", false))
        .hasMessageContaining("unknown key 'privilege'");
    assertThatThrownBy(() -> AccessRules.parse("{\"tables\": [{\"privileges\": [\"READ\"]}]}", false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AccessRules.parse("{\"tables\": [{\"privileges\": [], \"filter\": \"a = \"}]}", false))
        .hasMessageContaining("tables[0].filter");
    assertThatThrownBy(() -> AccessRules.parse(
        "{\"tables\": [{\"privileges\": [], \"columns\": [{\"name\": \"x\", \"mask\": \"substr(\"}]}]}", false))
        .hasMessageContaining("tables[0].columns[0].mask");
    assertThatThrownBy(() -> AccessRules.parse("{\"impersonation\": []}", false)).hasMessageContaining("impersonation");
  }

  @Test
  void aBadReloadKeepsTheLastGoodPolicy() throws Exception {
    Path file = dir.resolve("rules.json");
    Files.writeString(file, "{\"tables\": [{\"user\": \"bob\", \"privileges\": [\"SELECT\"]}]}");
    PolicyFile policy = PolicyFile.load(file, Duration.ofHours(1));
    assertThat(policy.canSeeTable(BOB, "c", "s", "t")).isTrue();

    Files.writeString(file, "{\"tables\": [{\"user\": \"bob\", \"privileges\": [\"SELECT\"], \"oops\": 1}]}");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));
    policy.refresh();
    assertThat(policy.canSeeTable(BOB, "c", "s", "t")).isTrue();

    Files.writeString(file, "{\"tables\": []}");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(10)));
    policy.refresh();
    assertThat(policy.canSeeTable(BOB, "c", "s", "t")).isFalse();
  }

  @Test
  void aBadFileAtStartIsAnError() throws Exception {
    Path file = dir.resolve("rules.yaml");
    Files.writeString(file, "tables:\n  - {privileges: [SELECT], filter: \"region = \"}\n");
    assertThatThrownBy(() -> PolicyFile.load(file, Duration.ZERO))
        .hasMessageContaining("Invalid policy file").hasMessageContaining("tables[0].filter");
  }
}

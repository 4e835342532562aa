package io.sqe.engine.exec.profile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The plan's figures go under their operators' lines, each operator's time less its inputs' (as
 * Trino's EXPLAIN ANALYZE prints an operator's own time), its memory only when it has its own.
 */
class ProfiledPlanTest {
  private static final String PLAN =
      """
      7:SqeAggregate(group=[{0}])
        5:SqeHashJoin(condition=[=($0, $2)])
          3:SqeTableScan(table=[[t]])
          4:SqeFilter(condition=[>($0, 1)])
            2:SqeTableScan(table=[[u]])""";

  @Test
  void eachOperatorsFiguresFollowItsLineWithItsOwnTime() {
    OperatorProfiles profiles = new OperatorProfiles();
    profiles.operator(7).returned(5, 100, 50_000_000L);
    profiles.operator(7).peakMemory(3 * 1024 * 1024);
    profiles.operator(5).returned(700, 2048, 40_000_000L);
    profiles.operator(3).returned(1000, 4096, 10_000_000L);
    profiles.operator(3).returned(-1, 0, 1_000_000L);
    profiles.operator(4).returned(300, 1024, 25_000_000L);
    profiles.operator(2).returned(900, 3000, 20_000_000L);

    ProfiledPlan plan = ProfiledPlan.fromIdPrefixed(PLAN);
    assertThat(plan.text()).isEqualTo(PLAN.replaceAll("(?m)^( *)\\d+:", "$1"));
    assertThat(plan.render(profiles)).containsExactly(
        "SqeAggregate(group=[{0}])",
        "    Output: 5 rows (100B), 1 batch, Time: 10.00ms, Memory: 3.00MB",
        "  SqeHashJoin(condition=[=($0, $2)])",
        // 40 ms less the scan's 11 and the filter's 25.
        "      Output: 700 rows (2.00kB), 1 batch, Time: 4.00ms",
        "    SqeTableScan(table=[[t]])",
        "        Output: 1,000 rows (4.00kB), 1 batch, Time: 11.00ms",
        "    SqeFilter(condition=[>($0, 1)])",
        "        Output: 300 rows (1.00kB), 1 batch, Time: 5.00ms",
        "      SqeTableScan(table=[[u]])",
        "          Output: 900 rows (2.93kB), 1 batch, Time: 20.00ms");
  }

  @Test
  void aPlanWithoutIdsOrAnOperatorThatDidNotRunShowsNoFigures() {
    OperatorProfiles profiles = new OperatorProfiles();
    profiles.operator(3).returned(1, 1, 1);
    assertThat(ProfiledPlan.unprofiled("EnumerableSort\n  EnumerableScan").render(profiles))
        .containsExactly("EnumerableSort", "  EnumerableScan");
    assertThat(ProfiledPlan.fromIdPrefixed("9:SqeLimit\n  8:SqeSort").render(profiles)).isEqualTo(List.of("SqeLimit", "  SqeSort"));
  }
}

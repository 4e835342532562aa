package io.sqe.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationTextTest {
  @Test
  void unitsAndIsoForms() {
    assertThat(DurationText.parse("500ms")).contains(Duration.ofMillis(500));
    assertThat(DurationText.parse(" 30 s ")).contains(Duration.ofSeconds(30));
    assertThat(DurationText.parse("5M")).contains(Duration.ofMinutes(5));
    assertThat(DurationText.parse("1h")).contains(Duration.ofHours(1));
    assertThat(DurationText.parse("2d")).contains(Duration.ofDays(2));
    assertThat(DurationText.parse("PT1M30S")).contains(Duration.ofSeconds(90));
    assertThat(DurationText.parse("PT-5S")).isEmpty();
    assertThat(DurationText.parse("soon")).isEmpty();
    assertThat(DurationText.parse("30")).isEmpty();
    assertThat(DurationText.parse(null)).isEmpty();
  }

  @Test
  void aTimeoutMayBeAWholeNumberOfMilliseconds() {
    assertThat(DurationText.parseTimeout("1500")).contains(Duration.ofMillis(1500));
    assertThat(DurationText.parseTimeout("0")).contains(Duration.ZERO);
    assertThat(DurationText.parseTimeout("2s")).contains(Duration.ofSeconds(2));
    assertThat(DurationText.parseTimeout("-1")).isEmpty();
  }

  @Test
  void formatIsTheShortestExactFormAndParsesBack() {
    for (Duration d : new Duration[] {Duration.ZERO, Duration.ofMillis(1500), Duration.ofSeconds(30), Duration.ofMinutes(5), Duration.ofHours(2)}) {
      assertThat(DurationText.parseTimeout(DurationText.format(d))).contains(d);
    }
    assertThat(DurationText.format(Duration.ofSeconds(90))).isEqualTo("90s");
    assertThat(DurationText.format(Duration.ofHours(2))).isEqualTo("2h");
  }
}

package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Ticker;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which duplicates a takeover step counts: a majority must answer, the rest are reported missing
 * with why; another repeater's claim ends the step at once.
 */
class QuorumCallTest {
  private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long LONG_NANOS = TimeUnit.SECONDS.toNanos(30);

  /** Released after each test, so that the callers blocked on it end. */
  private final CountDownLatch never = new CountDownLatch(1);

  private final List<DuplicateSource> sources = new ArrayList<>();

  @AfterEach
  void release() {
    never.countDown();
  }

  private QuorumCall quorum(int duplicates) {
    for (int d = 1; d <= duplicates; d++) {
      sources.add(
          new StaticDuplicateSource(
              new PluginEndpoint(d, 1, "127.0.0.1", 1000 + d), new BookkeepingState(1, 10)));
    }
    return new QuorumCall(sources, GRACE_NANOS, Ticker.system());
  }

  @Test
  void majorities() {
    assertThat(QuorumCall.majority(1)).isEqualTo(1);
    assertThat(QuorumCall.majority(2)).isEqualTo(2);
    assertThat(QuorumCall.majority(3)).isEqualTo(2);
    assertThat(QuorumCall.majority(4)).isEqualTo(3);
    assertThat(QuorumCall.majority(5)).isEqualTo(3);
  }

  @Test
  void aDuplicateThatNeverAnswersIsMissingOnceTheMajorityHasAndTheGraceIsOver() throws Exception {
    QuorumCall quorum = quorum(3);
    QuorumCall.Answers<Integer> answers =
        quorum.call(
            "read",
            List.of(0, 1, 2),
            2,
            System.nanoTime() + LONG_NANOS,
            source -> {
              if (source.duplicateId() == 2) {
                never.await();
              }
              return source.duplicateId();
            });
    assertThat(answers.answers()).containsOnlyKeys(0, 2).containsValues(1, 3);
    assertThat(answers.missing()).containsOnlyKeys(1);
    assertThat(answers.missing().get(1)).isEqualTo("no answer in time");
  }

  @Test
  void enoughAnswersEndTheCallWithoutTheGrace() throws Exception {
    QuorumCall patient = quorum(3);
    QuorumCall quorum = new QuorumCall(sources, LONG_NANOS, Ticker.system());
    // The grace and the deadline are 30 s; the test's own bound is far shorter, so the call must
    // end on the second answer, not on the grace.
    QuorumCall.Answers<Integer> answers =
        assertTimeoutPreemptively(
            Duration.ofSeconds(10),
            () ->
                quorum.call(
                    "read",
                    List.of(0, 1, 2),
                    1,
                    2,
                    System.nanoTime() + LONG_NANOS,
                    source -> {
                      if (source.duplicateId() == 2) {
                        never.await();
                      }
                      return source.duplicateId();
                    }));
    assertThat(answers.answers()).containsOnlyKeys(0, 2);
    assertThat(answers.missing()).containsOnlyKeys(1);
    assertThatThrownBy(
            () -> patient.call("read", List.of(0, 1, 2), 2, 1, System.nanoTime(), s -> 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("enough must be >= needed (2), was 1");
  }

  @Test
  void aFailingDuplicateIsMissingWithItsReason() throws Exception {
    QuorumCall quorum = quorum(3);
    QuorumCall.Answers<Integer> answers =
        quorum.call(
            "read",
            List.of(0, 1, 2),
            2,
            System.nanoTime() + LONG_NANOS,
            source -> {
              if (source.duplicateId() == 3) {
                throw new IOException("connection refused");
              }
              return source.duplicateId();
            });
    assertThat(answers.answers()).containsOnlyKeys(0, 1);
    assertThat(answers.missing().get(2)).contains("connection refused");
  }

  @Test
  void withoutAMajorityTheStepFailsNamingEveryMissingDuplicate() {
    QuorumCall quorum = quorum(3);
    assertThatThrownBy(
            () ->
                quorum.call(
                    "read the state of",
                    List.of(0, 1, 2),
                    2,
                    System.nanoTime() + LONG_NANOS,
                    source -> {
                      if (source.duplicateId() != 1) {
                        throw new IOException("refused by " + source.duplicateId());
                      }
                      return source.duplicateId();
                    }))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("could not read the state of 2 of 3 duplicates")
        .hasMessageContaining("refused by 2")
        .hasMessageContaining("refused by 3");
  }

  @Test
  void withoutAMajorityByTheDeadlineTheStepTimesOut() {
    QuorumCall quorum = quorum(3);
    assertThatThrownBy(
            () ->
                quorum.call(
                    "read",
                    List.of(0, 1, 2),
                    2,
                    System.nanoTime() + GRACE_NANOS,
                    source -> {
                      if (source.duplicateId() != 1) {
                        never.await();
                      }
                      return source.duplicateId();
                    }))
        .isInstanceOf(TimeoutException.class)
        .hasMessageContaining("duplicate 2 at static:")
        .hasMessageContaining("no answer in time");
  }

  @Test
  void anotherRepeatersClaimEndsTheStepAtOnce() {
    QuorumCall quorum = quorum(3);
    assertThatThrownBy(
            () ->
                quorum.call(
                    "claim",
                    List.of(0, 1, 2),
                    2,
                    System.nanoTime() + LONG_NANOS,
                    source -> {
                      if (source.duplicateId() == 1) {
                        throw new EpochTakenException(1, 5, 5);
                      }
                      never.await();
                      return source.duplicateId();
                    }))
        .isInstanceOf(EpochTakenException.class);
  }
}

package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.internal.repeater.CandidateOrder.Candidate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Who tries to take over first, and how long the others wait. */
class CandidateOrderTest {
  private static final Candidate ACTIVE = new Candidate("candidate-0000000003", "a:1");
  private static final Candidate FIRST = new Candidate("candidate-0000000007", "b:1");
  private static final Candidate SECOND = new Candidate("candidate-0000000012", "c:1");

  @Test
  void theLowestSequenceGoesFirstWhateverTheListingOrder() {
    CandidateOrder order = new CandidateOrder(List.of(SECOND, FIRST, ACTIVE));
    assertThat(order.rank("a:1", null)).isZero();
    assertThat(order.rank("b:1", null)).isEqualTo(1);
    assertThat(order.rank("c:1", null)).isEqualTo(2);
  }

  @Test
  void theDeadActivesCandidateStillListedDoesNotCount() {
    CandidateOrder order = new CandidateOrder(List.of(SECOND, FIRST, ACTIVE));
    assertThat(order.rank("b:1", "a:1")).isZero();
    assertThat(order.rank("c:1", "a:1")).isEqualTo(1);
    assertThat(order.pauseMillis("b:1", "a:1", 1000)).isZero();
    assertThat(order.pauseMillis("c:1", "a:1", 1000)).isEqualTo(1000);
  }

  @Test
  void sequencesCompareAsNumbersNotText() {
    Candidate big = new Candidate("candidate-10000000000", "big:1");
    Candidate small = new Candidate("candidate-9999999999", "small:1");
    CandidateOrder order = new CandidateOrder(List.of(big, small));
    assertThat(order.rank("small:1", null)).isZero();
    assertThat(order.rank("big:1", null)).isEqualTo(1);
  }

  @Test
  void aCandidateWhoseZnodeIsMissingGoesLast() {
    CandidateOrder order = new CandidateOrder(List.of(ACTIVE, FIRST, SECOND));
    assertThat(order.rank("z:1", "a:1")).isEqualTo(2);
    assertThat(order.rank("z:1", null)).isEqualTo(3);
    assertThat(new CandidateOrder(List.of()).rank("z:1", null)).isZero();
  }
}

package io.zoolander.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.wire.Membership.Member;
import io.zoolander.wire.Membership.State;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class MembershipTest {
  private static final Member ONE = new Member(1, State.ACTIVE, "127.0.0.1:2181");
  private static final Member TWO = new Member(2, State.ACTIVE, "127.0.0.1:2281,127.0.0.1:2282");

  @Test
  void roundTripsAsReadableText() {
    Membership m = new Membership(3, List.of(ONE, TWO, new Member(5, State.JOINING, "h:1")));
    String text = new String(m.encode(), StandardCharsets.UTF_8);
    assertThat(text)
        .isEqualTo(
            "3\n1 active 127.0.0.1:2181\n2 active 127.0.0.1:2281,127.0.0.1:2282\n5 joining h:1\n");
    assertThat(Membership.decode(m.encode())).isEqualTo(m);
    assertThat(m.activeCount()).isEqualTo(2);
  }

  @Test
  void eachChangeRaisesTheVersionAndKeepsIdOrder() {
    Membership m = new Membership(1, List.of(ONE, TWO));
    Membership added = m.with(new Member(3, State.JOINING, "h:3"));
    assertThat(added.version()).isEqualTo(2);
    assertThat(added.members()).extracting(Member::duplicateId).containsExactly(1, 2, 3);
    Membership active = added.with(new Member(3, State.ACTIVE, "h:3"));
    assertThat(active.version()).isEqualTo(3);
    assertThat(active.member(3)).get().extracting(Member::active).isEqualTo(true);
    assertThat(active.members()).hasSize(3);
    Membership retired = active.without(1);
    assertThat(retired.version()).isEqualTo(4);
    assertThat(retired.members()).extracting(Member::duplicateId).containsExactly(2, 3);
    assertThat(new Membership(1, List.of(TWO)).with(ONE).members())
        .extracting(Member::duplicateId)
        .containsExactly(1, 2);
  }

  @Test
  void carriesTheAdvisedReadFanOutThroughEveryChange() {
    Membership m = new Membership(4, List.of(ONE, TWO));
    assertThat(m.readFanOut()).isZero();
    Membership advised = m.withReadFanOut(2);
    assertThat(advised.version()).isEqualTo(5);
    assertThat(new String(advised.encode(), StandardCharsets.UTF_8))
        .isEqualTo(
            "5\nread-fan-out 2\n1 active 127.0.0.1:2181\n2 active 127.0.0.1:2281,127.0.0.1:2282\n");
    assertThat(Membership.decode(advised.encode())).isEqualTo(advised);
    assertThat(advised.with(new Member(3, State.JOINING, "h:3")).readFanOut()).isEqualTo(2);
    assertThat(advised.without(1).readFanOut()).isEqualTo(2);
    assertThat(advised.withReadFanOut(0).encode())
        .isEqualTo(new Membership(6, List.of(ONE, TWO)).encode());
    assertThatThrownBy(() -> m.withReadFanOut(-1)).hasMessage("readFanOut must be >= 0, was -1");
    assertThatThrownBy(
            () ->
                Membership.decode(
                    "1\nread-fan-out x\n1 active h:1\n".getBytes(StandardCharsets.UTF_8)))
        .hasMessageStartingWith("not a membership record");
  }

  @Test
  void badRecordsAndChangesAreClearErrors() {
    assertThatThrownBy(() -> new Membership(0, List.of(ONE)))
        .hasMessage("version must be >= 1, was 0");
    assertThatThrownBy(() -> new Membership(1, List.of(ONE, ONE)))
        .hasMessage("duplicate 1 is listed twice");
    assertThatThrownBy(() -> new Membership(1, List.of(TWO, ONE)))
        .hasMessageStartingWith("members must be in increasing id order");
    assertThatThrownBy(() -> new Membership(1, List.of(new Member(1, State.JOINING, "h:1"))))
        .hasMessageStartingWith("at least one member must be active");
    assertThatThrownBy(() -> new Membership(1, List.of(ONE)).without(1))
        .hasMessageStartingWith("at least one member must be active");
    assertThatThrownBy(() -> new Membership(1, List.of(ONE)).without(7))
        .hasMessage("duplicate 7 is not a member");
    assertThatThrownBy(() -> new Member(0, State.ACTIVE, "h:1"))
        .hasMessage("duplicateId must be >= 1, was 0");
    assertThatThrownBy(() -> new Member(1, State.ACTIVE, "h:1 h:2"))
        .hasMessageContaining("without spaces");
    assertThatThrownBy(() -> Membership.decode("x\n".getBytes(StandardCharsets.UTF_8)))
        .hasMessageStartingWith("not a membership record");
    assertThatThrownBy(() -> Membership.decode("1\n1 gone h:1\n".getBytes(StandardCharsets.UTF_8)))
        .hasMessageStartingWith("not a membership record: bad member line");
    assertThatThrownBy(() -> Membership.decode(new byte[0]))
        .hasMessageStartingWith("not a membership record");
  }
}

package io.zoolander.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.wire.Membership;
import io.zoolander.wire.Membership.Member;
import io.zoolander.wire.Membership.State;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a client matches the membership record against its links: by the duplicate a link is known to
 * serve or by its configured connect string; newer records only; retired indexes never reused.
 */
class MemberTableTest {
  private static final String ONE = "127.0.0.1:2181,127.0.0.1:2182";
  private static final String TWO = "127.0.0.1:2281";
  private static final String THREE = "127.0.0.1:2381";

  private static Member active(int id, String connectString) {
    return new Member(id, State.ACTIVE, connectString);
  }

  private static Member joining(int id, String connectString) {
    return new Member(id, State.JOINING, connectString);
  }

  @Test
  void aConfiguredDuplicateIsMatchedByItsConnectStringAndANewActiveMemberIsLinked() {
    MemberTable table = new MemberTable();
    table.add("127.0.0.1:2182,127.0.0.1:2181", -1, MemberTable.Standing.ACTIVE); // other order
    MemberTable.Changes changes =
        table.follow(new Membership(1, List.of(active(1, ONE), active(2, TWO))));
    assertThat(changes).isNotNull();
    assertThat(changes.toLink()).containsExactly(active(2, TWO));
    assertThat(changes.retired()).isEmpty();
    assertThat(table.duplicateId(0)).isEqualTo(1);
    assertThat(table.add(TWO, 2, MemberTable.Standing.ACTIVE)).isEqualTo(1);
    assertThat(table.activeCount()).isEqualTo(2);
    assertThat(table.reconcile(false).isEmpty()).as("nothing left to do").isTrue();
  }

  @Test
  void onlyANewerRecordIsFollowed() {
    MemberTable table = new MemberTable();
    table.add(ONE, -1, MemberTable.Standing.ACTIVE);
    assertThat(table.follow(new Membership(3, List.of(active(1, ONE))))).isNotNull();
    assertThat(table.follow(new Membership(2, List.of(active(1, ONE), active(2, TWO)))))
        .as("older")
        .isNull();
    assertThat(table.follow(new Membership(3, List.of(active(1, ONE), active(2, TWO)))))
        .as("same version")
        .isNull();
    assertThat(table.version()).isEqualTo(3);
  }

  @Test
  void aDuplicateAbsentFromTheNewestRecordIsRetiredForGood() {
    MemberTable table = new MemberTable();
    table.add(ONE, -1, MemberTable.Standing.ACTIVE);
    table.add(TWO, 2, MemberTable.Standing.ACTIVE);
    table.add("127.0.0.1:2481", -1, MemberTable.Standing.ACTIVE);
    assertThat(table.learned(0, 1)).as("its endpoint record names duplicate 1").isTrue();
    MemberTable.Changes changes = table.follow(new Membership(2, List.of(active(2, TWO))));
    assertThat(changes.retired())
        .as("not the link whose duplicate is not known yet: it may be a member")
        .containsExactly(0);
    assertThat(table.standing(2)).isEqualTo(MemberTable.Standing.ACTIVE);
    table.learned(2, 4);
    assertThat(table.reconcile(false).retired()).as("once known, it is not one").containsExactly(2);
    assertThat(table.standing(0)).isEqualTo(MemberTable.Standing.RETIRED);
    assertThat(table.counted(0)).isFalse();
    assertThat(table.activeCount()).isEqualTo(1);
    assertThat(table.liveCount()).as("retired links are not live").isEqualTo(1);
    assertThat(table.indexOf(2)).isEqualTo(1);

    // Added back later: a new link, at a new index; the retired one stays retired.
    changes = table.follow(new Membership(3, List.of(active(1, ONE), active(2, TWO))));
    assertThat(changes.toLink()).containsExactly(active(1, ONE));
    assertThat(table.learned(0, 1)).as("a retired link learns nothing").isFalse();
    assertThat(table.indexOf(1)).isEqualTo(-1);
    assertThat(table.add(ONE, 1, MemberTable.Standing.ACTIVE)).isEqualTo(3);
    assertThat(table.indexOf(1)).isEqualTo(3);
  }

  @Test
  void aJoiningMemberIsNotLinkedAndALinkedOneIsNotCountedUntilActive() {
    MemberTable table = new MemberTable();
    table.add(ONE, -1, MemberTable.Standing.ACTIVE);
    table.add(TWO, -1, MemberTable.Standing.ACTIVE);
    MemberTable.Changes changes =
        table.follow(
            new Membership(4, List.of(active(1, ONE), joining(2, TWO), joining(3, THREE))));
    assertThat(changes.toLink()).as("joining: not linked yet").isEmpty();
    assertThat(changes.joining()).containsExactly(1);
    assertThat(table.counted(1)).isFalse();
    assertThat(table.activeCount()).isEqualTo(1);
    assertThat(table.liveCount()).as("a joining link applies writes too").isEqualTo(2);

    changes =
        table.follow(new Membership(5, List.of(active(1, ONE), active(2, TWO), active(3, THREE))));
    assertThat(changes.activated()).containsExactly(1);
    assertThat(changes.toLink()).containsExactly(active(3, THREE));
    assertThat(table.counted(1)).isTrue();
  }

  @Test
  void aLinkNotKnownYetHoldsBackNewLinksUnlessForcedAndASecondLinkToOneDuplicateIsRetired() {
    MemberTable table = new MemberTable();
    table.add(null, -1, MemberTable.Standing.ACTIVE); // a fixed endpoint, no STATUS yet
    MemberTable.Changes changes =
        table.follow(new Membership(1, List.of(active(1, ONE), active(2, TWO))));
    assertThat(changes.toLink()).isEmpty();
    assertThat(changes.waiting()).isTrue();

    assertThat(table.learned(0, 2)).isTrue(); // its STATUS: duplicate 2
    changes = table.reconcile(false);
    assertThat(changes.toLink()).containsExactly(active(1, ONE));
    assertThat(changes.waiting()).isFalse();

    // Forced before a fixed link's duplicate was known, then it turned out to be a member linked.
    MemberTable forced = new MemberTable();
    forced.add(null, -1, MemberTable.Standing.ACTIVE);
    forced.follow(new Membership(1, List.of(active(1, ONE))));
    assertThat(forced.reconcile(true).toLink()).containsExactly(active(1, ONE));
    forced.add(ONE, 1, MemberTable.Standing.ACTIVE);
    forced.learned(0, 1);
    changes = forced.reconcile(false);
    assertThat(changes.retired()).as("the later link to duplicate 1").containsExactly(1);
    assertThat(forced.indexOf(1)).isEqualTo(0);
  }

  @Test
  void connectStringsNameTheSameEnsembleInAnyOrderButNotUnderAnotherChroot() {
    assertThat(MemberTable.sameEnsemble("a:1,B:2/x", "b:2,a:1/x")).isTrue();
    assertThat(MemberTable.sameEnsemble("a:1", "a:1/")).isTrue();
    assertThat(MemberTable.sameEnsemble("a:1/x", "a:1/y")).isFalse();
    assertThat(MemberTable.sameEnsemble("a:1", "a:2")).isFalse();
  }
}

package io.zoolander.client.internal;

import io.zoolander.wire.Membership;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * The duplicates a client links to, by stable index (the index of their {@code PeerLink}, ranking
 * entry and meters), and where each stands in the newest membership record ({@link Membership},
 * written by the repeater when duplicates are added or retired online): a duplicate is read from
 * and counted (waited for by barriers) only while {@link Standing#ACTIVE}; one the record lists as
 * joining is linked but neither read from nor counted; one the record no longer lists is {@link
 * Standing#RETIRED} for good, and its index is never reused.
 *
 * <p>{@link #follow} takes a record newer than any seen, {@link #reconcile} matches it against the
 * links again whenever the client learns which duplicate a link serves (its endpoint record or its
 * STATUS). A link is matched to a member by the duplicate id it is known to serve, or else by its
 * configured connect string; a link whose duplicate is not known yet holds back the links to add
 * (it may be one of them) unless forced. Two links found to serve one duplicate (a fixed address
 * that turned out to be one learned from the record) keep the first.
 *
 * <p>Confined to the client's event loop, like the rest of the client's request state, except
 * {@link #standing} and {@link #size}, which any thread may read. Internal: not part of the public
 * API.
 */
final class MemberTable {

  /** Where a linked duplicate stands. */
  enum Standing {
    /** Read from and counted. */
    ACTIVE,
    /** Linked, catching up: not read from, not counted. */
    JOINING,
    /** No longer a member: its link is closed; its index stays, unused. */
    RETIRED
  }

  /** What a record (or a reconciliation) changes; the client acts on it. */
  record Changes(
      List<Membership.Member> toLink,
      List<Integer> retired,
      List<Integer> activated,
      List<Integer> joining,
      boolean waiting) {

    /** Whether nothing changes. */
    boolean isEmpty() {
      return toLink.isEmpty() && retired.isEmpty() && activated.isEmpty() && joining.isEmpty();
    }
  }

  private static final class Slot {
    final @Nullable String connectString;

    /**
     * Known from its endpoint record or STATUS, or implied by a connect-string match; -1 if not.
     */
    int duplicateId;

    /** Written on the event loop, read by any thread. */
    volatile Standing standing;

    Slot(@Nullable String connectString, int duplicateId, Standing standing) {
      this.connectString = connectString;
      this.duplicateId = duplicateId;
      this.standing = standing;
    }
  }

  private final List<Slot> slots = new CopyOnWriteArrayList<>();
  private @Nullable Membership newest;

  /**
   * Appends a link's entry.
   *
   * @param connectString its ensemble's connect string, null for a fixed endpoint
   * @param duplicateId the duplicate it serves, -1 if not known yet
   * @return its index
   */
  int add(@Nullable String connectString, int duplicateId, Standing standing) {
    slots.add(new Slot(connectString, duplicateId, standing));
    return slots.size() - 1;
  }

  /** How many links there have been (retired ones included). Any thread. */
  int size() {
    return slots.size();
  }

  /** Where link {@code index} stands. Any thread. */
  Standing standing(int index) {
    return slots.get(index).standing;
  }

  /** Whether link {@code index} is read from and waited for by barriers. */
  boolean counted(int index) {
    return slots.get(index).standing == Standing.ACTIVE;
  }

  /** How many links are active. */
  int activeCount() {
    int n = 0;
    for (Slot s : slots) {
      if (s.standing == Standing.ACTIVE) {
        n++;
      }
    }
    return n;
  }

  /** How many links are not retired: active ones, and joining ones that apply writes too. */
  int liveCount() {
    int n = 0;
    for (Slot s : slots) {
      if (s.standing != Standing.RETIRED) {
        n++;
      }
    }
    return n;
  }

  /** The duplicate link {@code index} serves, -1 if not known. */
  int duplicateId(int index) {
    return slots.get(index).duplicateId;
  }

  /**
   * Link {@code index} serves {@code duplicateId} (its endpoint record or STATUS says so).
   *
   * @return whether that is news: a reconciliation may change something
   */
  boolean learned(int index, int duplicateId) {
    Slot s = slots.get(index);
    if (duplicateId < 0 || s.duplicateId == duplicateId || s.standing == Standing.RETIRED) {
      return false;
    }
    s.duplicateId = duplicateId;
    return true;
  }

  /** The index of the live (not retired) link serving {@code duplicateId}, -1 if none. */
  int indexOf(int duplicateId) {
    for (int i = 0; i < slots.size(); i++) {
      Slot s = slots.get(i);
      if (s.duplicateId == duplicateId && s.standing != Standing.RETIRED) {
        return i;
      }
    }
    return -1;
  }

  /** The version of the newest record followed, 0 before any. */
  long version() {
    Membership m = newest;
    return m == null ? 0 : m.version();
  }

  /**
   * Follows {@code record} if it is newer (higher version) than any seen.
   *
   * @return what changes, null if the record is not newer (ignored)
   */
  @Nullable Changes follow(Membership record) {
    if (record.version() <= version()) {
      return null;
    }
    newest = record;
    return reconcile(false);
  }

  /**
   * Matches the newest record against the links again (after a link's duplicate became known), and
   * updates where each link stands.
   *
   * @param force add links for unmatched active members even while some link's duplicate is not
   *     known yet (it may turn out to be one of them: then the later link is retired)
   */
  Changes reconcile(boolean force) {
    List<Membership.Member> toLink = new ArrayList<>();
    List<Integer> retired = new ArrayList<>();
    List<Integer> activated = new ArrayList<>();
    List<Integer> joining = new ArrayList<>();
    Membership m = newest;
    if (m == null) {
      return new Changes(toLink, retired, activated, joining, false);
    }
    boolean unknown = false;
    Map<Integer, Integer> linked = new HashMap<>(); // duplicate id -> first live index
    for (int i = 0; i < slots.size(); i++) {
      Slot s = slots.get(i);
      if (s.standing == Standing.RETIRED) {
        continue;
      }
      if (s.duplicateId < 0 && s.connectString != null) {
        for (Membership.Member member : m.members()) {
          if (sameEnsemble(member.connectString(), s.connectString)) {
            s.duplicateId = member.duplicateId(); // implied by its configured connect string
          }
        }
      }
      if (s.duplicateId < 0) {
        unknown = true;
        continue;
      }
      Membership.Member member = m.member(s.duplicateId).orElse(null);
      if (member == null || linked.putIfAbsent(s.duplicateId, i) != null) {
        s.standing = Standing.RETIRED; // no longer a member, or a second link to one
        retired.add(i);
      } else if (member.active() && s.standing == Standing.JOINING) {
        s.standing = Standing.ACTIVE;
        activated.add(i);
      } else if (!member.active() && s.standing == Standing.ACTIVE) {
        s.standing = Standing.JOINING;
        joining.add(i);
      }
    }
    boolean waiting = false;
    for (Membership.Member member : m.members()) {
      if (member.active() && !linked.containsKey(member.duplicateId())) {
        if (unknown && !force) {
          waiting = true;
        } else {
          toLink.add(member);
        }
      }
    }
    return new Changes(toLink, retired, activated, joining, waiting);
  }

  /**
   * Whether two ZooKeeper connect strings name the same ensemble: the same servers in any order,
   * host names in any case, and the same chroot.
   */
  static boolean sameEnsemble(String a, String b) {
    return normalized(a).equals(normalized(b));
  }

  private static String normalized(String connectString) {
    int slash = connectString.indexOf('/');
    String hosts = slash < 0 ? connectString : connectString.substring(0, slash);
    String chroot = slash < 0 ? "" : connectString.substring(slash);
    if (chroot.equals("/")) {
      chroot = "";
    }
    String[] servers = hosts.toLowerCase(Locale.ROOT).split(",", -1);
    for (int i = 0; i < servers.length; i++) {
      servers[i] = servers[i].strip();
    }
    Arrays.sort(servers);
    return String.join(",", servers) + chroot;
  }
}

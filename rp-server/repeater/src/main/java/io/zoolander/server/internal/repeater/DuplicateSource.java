package io.zoolander.server.internal.repeater;

import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Membership;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.PluginEndpoint;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What the repeater learns about one duplicate from outside the wire protocol: its bookkeeping
 * state at start and the endpoint of its active plugin. {@link ZooKeeperDuplicateSource} reads both
 * from the duplicate's ensemble; a benchmark can supply them directly.
 */
public interface DuplicateSource extends AutoCloseable {

  int duplicateId();

  /**
   * Where the duplicate is, for logs and {@link
   * io.zoolander.server.repeater.DuplicateView#connectString()}.
   */
  String connectString();

  /**
   * Reads the duplicate's bookkeeping state ({@link BookkeepingState#INITIAL} when there is none),
   * blocking.
   *
   * @param timeoutMillis bound on the whole read
   * @throws Exception if it cannot be read in time or is not a bookkeeping record
   */
  BookkeepingState readState(long timeoutMillis) throws Exception;

  /**
   * Claims {@code epoch} at this duplicate: records it as the highest accepted epoch in the
   * bookkeeping state, by a conditional update of the state read (created if absent, with applied
   * seq 0), blocking. From then on the plugin refuses every write of an older epoch (its
   * version-checked multi fails, it reads the state again and sees the epoch), so the applied seq
   * returned is final for older repeaters: nothing they sent can be applied here after it.
   *
   * @param timeoutMillis bound on the whole claim
   * @return the state as claimed, and the plugin's endpoint if one is published
   * @throws EpochTakenException if the duplicate already holds {@code epoch} or a higher one
   * @throws Exception if it cannot be claimed in time, or the state is not a bookkeeping record
   */
  Claim claim(long epoch, long timeoutMillis) throws Exception;

  /**
   * The duplicates that epoch claims recorded at this duplicate as left out (see {@link
   * #recordLeftOut}), read in the session {@link #readState} keeps: duplicate id to the highest
   * epoch claimed without it. A duplicate whose own epoch is below that may hold a deposed
   * repeater's writes at seqs the newer one sequenced again. Sources without ZooKeeper record
   * nothing.
   *
   * @param timeoutMillis bound on the whole read
   * @throws Exception if it cannot be read in time
   */
  default Map<Integer, Long> readLeftOut(long timeoutMillis) throws Exception {
    return Map.of();
  }

  /**
   * Records at this duplicate that the claim of {@code epoch} left {@code duplicateIds} out, so
   * that every later repeater (whose majority shares a duplicate with this one's) distrusts their
   * state until they rejoin by state transfer. Keeps a higher epoch already recorded.
   *
   * @param timeoutMillis bound on the whole update
   * @throws Exception if it cannot be recorded in time
   */
  default void recordLeftOut(Set<Integer> duplicateIds, long epoch, long timeoutMillis)
      throws Exception {}

  /**
   * Forgets at this duplicate that {@code duplicateId} was left out of a claim, if the claim's
   * epoch is at most {@code epoch}: it has rejoined by state transfer since, so its state is a
   * healthy duplicate's.
   *
   * @param timeoutMillis bound on the whole update
   * @throws Exception if it cannot be done in time
   */
  default void clearLeftOut(int duplicateId, long epoch, long timeoutMillis) throws Exception {}

  /**
   * Reads the membership record ({@link io.zoolander.wire.Znodes#members()}), empty when there is
   * none (no duplicate was ever added or retired online). Sources without ZooKeeper hold none.
   *
   * @param timeoutMillis bound on the whole read
   * @throws Exception if it cannot be read in time or is not a membership record
   */
  default Optional<Membership> readMembership(long timeoutMillis) throws Exception {
    return Optional.empty();
  }

  /**
   * Writes {@code membership} at this duplicate unless it holds a record of the same or a newer
   * version: a conditional update, the znode created if absent.
   *
   * @param timeoutMillis bound on the whole update
   * @return the version this duplicate holds afterwards
   * @throws UnsupportedOperationException if this source cannot hold a record (no ZooKeeper)
   * @throws Exception if it cannot be written in time
   */
  default long writeMembership(Membership membership, long timeoutMillis) throws Exception {
    throw new UnsupportedOperationException(
        "duplicate " + duplicateId() + ": this source cannot hold a membership record");
  }

  /**
   * What a repeater learns at a duplicate where it claimed its epoch.
   *
   * @param routes the partition's route record ({@link NameRoutes#PATH}) as of the claimed state
   */
  record Claim(
      BookkeepingState state, Optional<PluginEndpoint> endpoint, NameRoutes.Versioned routes) {
    /** A claim at a duplicate without a route record. */
    public Claim(BookkeepingState state, Optional<PluginEndpoint> endpoint) {
      this(state, endpoint, NameRoutes.Versioned.ABSENT);
    }
  }

  /**
   * Starts reporting the endpoint: {@code listener} is called on every change (appearance, change,
   * disappearance), the first time once the endpoint is known; it must not block.
   */
  void watchEndpoint(Consumer<Optional<PluginEndpoint>> listener) throws Exception;

  /** Stops watching. */
  @Override
  void close();
}

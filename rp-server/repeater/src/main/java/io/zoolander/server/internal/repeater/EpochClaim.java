package io.zoolander.server.internal.repeater;

import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Ticker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first two steps of taking over (see docs/repeater.md, "Start: taking over"): reads the
 * duplicates' states, claims an epoch above all of them at a majority (which fences every older
 * repeater), then recovers from the most advanced duplicates' plugins the writes that others missed
 * ({@link Recovery}).
 *
 * <p>Runs on the thread that starts the repeater, before the sequencer loop sequences anything; the
 * calls to the duplicates run in parallel on threads of their own, within the start deadline.
 */
final class EpochClaim {
  private static final Logger LOG = LoggerFactory.getLogger(EpochClaim.class);

  /**
   * The epoch claimed at a majority of the duplicates.
   *
   * @param claims by source index, each claimed duplicate's claim (its state as read, its plugin
   *     endpoint)
   * @param leftOut by source index, why each other duplicate was left out: unreachable, or recorded
   *     as left out of an earlier claim it has not rejoined since. Its state is not trusted: it
   *     must rejoin by state transfer.
   */
  record Claimed(
      long epoch, Map<Integer, DuplicateSource.Claim> claims, Map<Integer, String> leftOut) {}

  private final CoreConfig config;
  private final List<DuplicateSource> sources;
  private final NettyRuntime runtime;
  private final LinkSecurity security;
  private final QuorumCall quorum;

  /**
   * @param runtime whose plugin bootstrap the recovery connections use (started)
   */
  EpochClaim(
      CoreConfig config,
      List<DuplicateSource> sources,
      NettyRuntime runtime,
      LinkSecurity security) {
    this.config = config;
    this.sources = sources;
    this.runtime = runtime;
    this.security = security;
    this.quorum =
        new QuorumCall(
            sources,
            TimeUnit.MILLISECONDS.toNanos(config.missingDuplicateGraceMillis()),
            Ticker.system());
  }

  /** What one duplicate's read found: its state, and the duplicates it records as left out. */
  private record Read(BookkeepingState state, Map<Integer, Long> leftOut) {}

  /**
   * Reads the duplicates' states (a majority must answer), chooses an epoch above all of them (or
   * the configured one) and claims it at the duplicates whose state is trusted (a majority must
   * accept it), then records at them the duplicates left out. If another repeater claimed that
   * epoch first somewhere, tries the next one (after a random pause, so two repeaters starting
   * together do not keep colliding), unless the epoch is configured.
   *
   * <p>A duplicate is left out when it does not answer in time (once a majority has, it gets {@link
   * CoreConfig#missingDuplicateGraceMillis} more), or when some duplicate records it as left out of
   * the claim of an epoch above its own: it may then hold writes of a deposed repeater at seqs a
   * newer one sequenced again, so neither its applied seq nor its writes can be used.
   *
   * @throws IllegalStateException if the configured epoch is not above every duplicate's epoch or
   *     was claimed by another repeater first
   * @throws TimeoutException if no majority's state can be read or claimed before {@code deadline}
   */
  Claimed claim(long deadline) throws IOException, InterruptedException, TimeoutException {
    int needed = QuorumCall.majority(sources.size());
    QuorumCall.Answers<Read> reads;
    try {
      reads =
          quorum.call(
              "read the state of",
              allIndexes(),
              needed,
              deadline,
              source -> {
                BookkeepingState state = source.readState(remainingMillis(deadline));
                return new Read(state, source.readLeftOut(remainingMillis(deadline)));
              });
    } catch (EpochTakenException e) {
      throw new IllegalStateException(e); // reading claims nothing
    }
    Map<Integer, String> leftOut = new TreeMap<>(reads.missing());
    Map<Integer, Long> recordedLeftOut = new HashMap<>();
    for (Read read : reads.answers().values()) {
      read.leftOut().forEach((id, epoch) -> recordedLeftOut.merge(id, epoch, Math::max));
    }
    List<Integer> trusted = new ArrayList<>();
    reads
        .answers()
        .forEach(
            (i, read) -> {
              Long leftOutAt = recordedLeftOut.get(sources.get(i).duplicateId());
              // At or below: a claim that arrived after the repeater had given up on it can give
              // it that very epoch, over writes past the claimed seq. A rejoin clears the record.
              if (leftOutAt != null && read.state().epoch() <= leftOutAt) {
                leftOut.put(
                    i,
                    "left out of the claim of epoch "
                        + leftOutAt
                        + " and not rejoined since (it holds epoch "
                        + read.state().epoch()
                        + ")");
              } else {
                trusted.add(i);
              }
            });
    long maxEpoch =
        reads.answers().values().stream().mapToLong(r -> r.state().epoch()).max().orElse(0);
    long chosen = config.fixedEpoch().orElse(maxEpoch + 1);
    if (chosen <= maxEpoch) {
      throw new IllegalStateException(
          "configured epoch "
              + chosen
              + " is not above the highest epoch found in the"
              + " duplicates' state, "
              + maxEpoch
              + ": a newer repeater has run; configure a higher epoch or none");
    }
    if (trusted.size() < needed) {
      throw new IOException(
          "only "
              + trusted.size()
              + " of "
              + sources.size()
              + " duplicates can be trusted, a majority ("
              + needed
              + ") is needed: "
              + quorum.describe(leftOut));
    }
    while (true) {
      long claiming = chosen;
      try {
        QuorumCall.Answers<DuplicateSource.Claim> claims =
            quorum.call(
                "claim epoch " + claiming + " at",
                trusted,
                needed,
                deadline,
                source -> source.claim(claiming, remainingMillis(deadline)));
        leftOut.putAll(claims.missing());
        if (!leftOut.isEmpty()) {
          recordLeftOut(claiming, claims.answers().keySet(), leftOut, needed, deadline);
        }
        return new Claimed(claiming, claims.answers(), leftOut);
      } catch (EpochTakenException e) {
        if (config.fixedEpoch().isPresent()) {
          throw new IllegalStateException(
              "configured epoch " + claiming + ": " + e.getMessage(), e);
        }
        LOG.warn("{}; claiming a higher epoch", e.getMessage());
        chosen = Math.max(claiming, e.heldEpoch()) + 1;
        if (System.nanoTime() - deadline > 0) {
          throw new TimeoutException(
              "no epoch could be claimed at a majority of the duplicates within "
                  + config.startTimeoutMillis()
                  + " ms: other repeaters keep starting");
        }
        Thread.sleep(
            ThreadLocalRandom.current().nextLong(RepeaterSettings.CLAIM_RETRY_PAUSE_MAX_MILLIS)
                + 1);
      }
    }
  }

  /**
   * Records at the claimed duplicates (a majority must take it) that the claim of {@code epoch}
   * left the others out: every later claim reads a majority, so it learns of it too.
   */
  private void recordLeftOut(
      long epoch, Set<Integer> claimed, Map<Integer, String> leftOut, int needed, long deadline)
      throws IOException, InterruptedException, TimeoutException {
    Set<Integer> ids = new TreeSet<>();
    leftOut.keySet().forEach(i -> ids.add(sources.get(i).duplicateId()));
    LOG.warn(
        "claiming epoch {} without {}: {}; they must rejoin by state transfer",
        epoch,
        ids.size() == 1 ? "duplicate " + ids.iterator().next() : "duplicates " + ids,
        quorum.describe(leftOut));
    try {
      quorum.call(
          "record the duplicates left out of epoch " + epoch + " at",
          List.copyOf(claimed),
          needed,
          deadline,
          source -> {
            source.recordLeftOut(ids, epoch, remainingMillis(deadline));
            return Boolean.TRUE;
          });
    } catch (EpochTakenException e) {
      throw new IllegalStateException(e); // recording claims nothing
    }
  }

  private List<Integer> allIndexes() {
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < sources.size(); i++) {
      all.add(i);
    }
    return all;
  }

  /**
   * Recovers what some duplicates applied and others did not, from the most advanced duplicates'
   * plugins ({@link Recovery#recover}).
   *
   * @param applied each duplicate's applied seq at the claim
   * @return a contiguous run of writes ending at the highest applied seq, empty if none is needed
   *     or none could be fetched
   */
  List<Message.Sequenced> recover(Claimed claimed, Map<Integer, Long> applied, long deadline)
      throws InterruptedException {
    return Recovery.recover(
        applied,
        config.logCapacityMessages(),
        (duplicateId, from, to) -> fetchRecentWrites(claimed, duplicateId, from, to, deadline));
  }

  /**
   * Asks a duplicate's plugin for its recent writes; nothing if it has no endpoint or cannot answer
   * in time.
   */
  private List<Message.Sequenced> fetchRecentWrites(
      Claimed claimed, int duplicateId, long from, long to, long deadline)
      throws InterruptedException {
    for (int i = 0; i < sources.size(); i++) {
      if (sources.get(i).duplicateId() != duplicateId) {
        continue;
      }
      DuplicateSource.Claim claim = claimed.claims().get(i);
      if (claim == null) {
        return List.of(); // left out of the claim: its writes are not trusted
      }
      Optional<PluginEndpoint> endpoint = claim.endpoint();
      if (endpoint.isEmpty()) {
        LOG.warn(
            "duplicate {} publishes no plugin endpoint: cannot recover writes {}..{} from it",
            duplicateId,
            from,
            to);
        return List.of();
      }
      try {
        return Recovery.fetch(
            runtime.pluginBootstrap(),
            security,
            endpoint.get(),
            claimed.epoch(),
            from,
            to,
            Math.min(
                RepeaterSettings.RECOVERY_FETCH_TIMEOUT_MILLIS,
                Math.max(1, remainingMillis(deadline))));
      } catch (IOException | TimeoutException e) {
        LOG.warn(
            "cannot recover writes {}..{} from duplicate {}: {}",
            from,
            to,
            duplicateId,
            e.getMessage());
        return List.of();
      }
    }
    return List.of();
  }

  private static long remainingMillis(long deadline) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }
}

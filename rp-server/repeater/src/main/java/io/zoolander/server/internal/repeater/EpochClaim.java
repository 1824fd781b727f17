package io.zoolander.server.internal.repeater;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first two steps of taking over (see docs/repeater.md, "Start: taking over"): reads every
 * duplicate's state, claims an epoch above all of them at every duplicate (which fences every older
 * repeater), then recovers from the most advanced duplicates' plugins the writes that others missed
 * ({@link Recovery}).
 *
 * <p>Runs on the thread that starts the repeater, before the sequencer loop sequences anything; the
 * calls to the duplicates run in parallel on threads of their own, within the start deadline.
 */
final class EpochClaim {
  private static final Logger LOG = LoggerFactory.getLogger(EpochClaim.class);

  /**
   * The epoch claimed at every duplicate.
   *
   * @param claims each duplicate's claim (its state as read, its plugin endpoint), in source order
   */
  record Claimed(long epoch, List<DuplicateSource.Claim> claims) {}

  private final CoreConfig config;
  private final List<DuplicateSource> sources;
  private final NettyRuntime runtime;
  private final LinkSecurity security;

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
  }

  /**
   * Reads every duplicate's state, chooses an epoch above all of them (or the configured one) and
   * claims it at every duplicate. If another repeater claimed that epoch first somewhere, tries the
   * next one (after a random pause, so two repeaters starting together do not keep colliding),
   * unless the epoch is configured.
   *
   * @throws IllegalStateException if the configured epoch is not above every duplicate's epoch or
   *     was claimed by another repeater first
   * @throws TimeoutException if some duplicate's state cannot be read or claimed before {@code
   *     deadline}
   */
  Claimed claim(long deadline) throws IOException, InterruptedException, TimeoutException {
    List<BookkeepingState> states;
    try {
      states =
          onEveryDuplicate(
              "read the state of", deadline, source -> source.readState(remainingMillis(deadline)));
    } catch (EpochTakenException e) {
      throw new IllegalStateException(e); // reading claims nothing
    }
    long maxEpoch = states.stream().mapToLong(BookkeepingState::epoch).max().orElse(0);
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
    while (true) {
      long claiming = chosen;
      try {
        List<DuplicateSource.Claim> claims =
            onEveryDuplicate(
                "claim epoch " + claiming + " at",
                deadline,
                source -> source.claim(claiming, remainingMillis(deadline)));
        return new Claimed(claiming, claims);
      } catch (EpochTakenException e) {
        if (config.fixedEpoch().isPresent()) {
          throw new IllegalStateException(
              "configured epoch " + claiming + ": " + e.getMessage(), e);
        }
        LOG.warn("{}; claiming a higher epoch", e.getMessage());
        chosen = Math.max(claiming, e.heldEpoch()) + 1;
        if (System.nanoTime() - deadline > 0) {
          throw new TimeoutException(
              "no epoch could be claimed at every duplicate within "
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
      Optional<PluginEndpoint> endpoint = claimed.claims().get(i).endpoint();
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

  @FunctionalInterface
  private interface SourceCall<T> {
    T call(DuplicateSource source) throws Exception;
  }

  /**
   * Runs {@code call} on every duplicate's source in parallel, before {@code deadline}; results in
   * source order.
   */
  private <T> List<T> onEveryDuplicate(String what, long deadline, SourceCall<T> call)
      throws IOException, InterruptedException, TimeoutException, EpochTakenException {
    ExecutorService callers =
        Executors.newFixedThreadPool(
            sources.size(), new DefaultThreadFactory("zoolander-repeater-start", true));
    try {
      List<java.util.concurrent.Future<T>> futures = new ArrayList<>();
      for (DuplicateSource source : sources) {
        futures.add(callers.submit(() -> call.call(source)));
      }
      List<T> results = new ArrayList<>();
      for (int i = 0; i < futures.size(); i++) {
        DuplicateSource source = sources.get(i);
        try {
          results.add(
              futures.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (java.util.concurrent.TimeoutException e) {
          throw new TimeoutException(
              "could not "
                  + what
                  + " duplicate "
                  + source.duplicateId()
                  + " at "
                  + source.connectString()
                  + " within "
                  + config.startTimeoutMillis()
                  + " ms");
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof TimeoutException t) {
            throw t;
          }
          if (cause instanceof EpochTakenException t) {
            throw t;
          }
          if (cause instanceof IllegalStateException ise) {
            throw ise;
          }
          throw new IOException(
              "could not "
                  + what
                  + " duplicate "
                  + source.duplicateId()
                  + " at "
                  + source.connectString()
                  + ": "
                  + cause,
              cause);
        }
      }
      return results;
    } finally {
      callers.shutdownNow();
    }
  }

  private static long remainingMillis(long deadline) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }
}

package io.zoolander.server.internal.repeater;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.zoolander.wire.Ticker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One step of a takeover run on every duplicate in parallel, that needs a <em>majority</em> of them
 * to answer: a takeover must survive the loss of any one duplicate, and two majorities always share
 * a duplicate, so two repeaters can still never both claim one epoch. Once a majority has answered,
 * the others get a grace period (a live duplicate that answers a little later is not left out for
 * nothing), then are reported missing.
 *
 * <p>A duplicate that fails (unreachable, timed out) is missing; an {@link EpochTakenException} or
 * {@link IllegalStateException} from any duplicate ends the call at once (another repeater won, or
 * the duplicate is misconfigured: waiting does not help).
 */
final class QuorumCall {

  /** One duplicate's step. */
  @FunctionalInterface
  interface Step<T> {
    T call(DuplicateSource source) throws Exception;
  }

  /**
   * What the duplicates answered.
   *
   * @param answers by source index, the duplicates that answered in time
   * @param missing by source index, why each other duplicate did not
   */
  record Answers<T>(Map<Integer, T> answers, Map<Integer, String> missing) {}

  private final List<DuplicateSource> sources;
  private final long graceNanos;
  private final Ticker ticker;

  /**
   * @param graceNanos how long the others may still answer once a majority has
   */
  QuorumCall(List<DuplicateSource> sources, long graceNanos, Ticker ticker) {
    this.sources = List.copyOf(sources);
    this.graceNanos = graceNanos;
    this.ticker = ticker;
  }

  /** More than half of {@code count}. */
  static int majority(int count) {
    return count / 2 + 1;
  }

  /**
   * Runs {@code step} on every source whose index is in {@code indexes}, in parallel.
   *
   * @param what the step, for messages ("read the state of")
   * @param deadline in the ticker's nanoseconds
   * @param needed how many must answer
   * @throws TimeoutException if fewer than {@code needed} answered in time (every missing one
   *     named)
   * @throws IOException if fewer than {@code needed} can answer because some failed
   */
  <T> Answers<T> call(String what, List<Integer> indexes, int needed, long deadline, Step<T> step)
      throws IOException, InterruptedException, TimeoutException, EpochTakenException {
    return call(what, indexes, needed, indexes.size(), deadline, step);
  }

  /**
   * As {@link #call(String, List, int, long, Step)}, but done as soon as {@code enough} have
   * answered: the others get the grace only while fewer than {@code enough} have. For a step that
   * needs some answers and is sound with a majority, so that one duplicate down does not cost the
   * grace.
   *
   * @param enough how many answers end the call at once, {@code >= needed}
   */
  <T> Answers<T> call(
      String what, List<Integer> indexes, int needed, int enough, long deadline, Step<T> step)
      throws IOException, InterruptedException, TimeoutException, EpochTakenException {
    if (enough < needed) {
      throw new IllegalArgumentException(
          "enough must be >= needed (" + needed + "), was " + enough);
    }
    ExecutorService callers =
        Executors.newFixedThreadPool(
            Math.max(1, indexes.size()),
            new DefaultThreadFactory("zoolander-repeater-start", true));
    try {
      CompletionService<T> done = new ExecutorCompletionService<>(callers);
      Map<Future<T>, Integer> indexOf = new LinkedHashMap<>();
      for (int i : indexes) {
        DuplicateSource source = sources.get(i);
        indexOf.put(done.submit(() -> step.call(source)), i);
      }
      Map<Integer, T> answers = new LinkedHashMap<>();
      Map<Integer, String> failed = new LinkedHashMap<>();
      boolean allTimeouts = true; // a duplicate's own timeout is still a timeout for the caller
      long until = deadline;
      while (answers.size() + failed.size() < indexes.size() && answers.size() < enough) {
        if (indexes.size() - failed.size() < needed) {
          break; // a majority can no longer answer
        }
        long wait = until - ticker.nanoTime();
        Future<T> next = wait > 0 ? done.poll(wait, TimeUnit.NANOSECONDS) : done.poll();
        if (next == null) {
          break;
        }
        int i = indexOf.get(next);
        try {
          answers.put(i, next.get());
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof EpochTakenException t) {
            throw t;
          }
          if (cause instanceof IllegalStateException ise) {
            throw ise;
          }
          allTimeouts &= cause instanceof TimeoutException;
          failed.put(i, String.valueOf(cause));
        }
        if (answers.size() == needed && answers.size() < indexes.size()) {
          until = Math.min(deadline, ticker.nanoTime() + graceNanos);
        }
      }
      Map<Integer, String> missing = new LinkedHashMap<>(failed);
      for (int i : indexes) {
        if (!answers.containsKey(i) && !missing.containsKey(i)) {
          missing.put(i, "no answer in time");
        }
      }
      if (answers.size() < needed) {
        String message =
            "could not "
                + what
                + " "
                + needed
                + " of "
                + indexes.size()
                + " duplicates ("
                + describe(missing)
                + ")";
        if (allTimeouts) {
          throw new TimeoutException(message);
        }
        throw new IOException(message);
      }
      return new Answers<>(answers, missing);
    } finally {
      callers.shutdownNow();
    }
  }

  /** "duplicate 3 at host:port: why; ..." */
  String describe(Map<Integer, String> missing) {
    List<String> parts = new ArrayList<>();
    missing.forEach(
        (i, why) ->
            parts.add(
                "duplicate "
                    + sources.get(i).duplicateId()
                    + " at "
                    + sources.get(i).connectString()
                    + ": "
                    + why));
    return String.join("; ", parts);
  }
}

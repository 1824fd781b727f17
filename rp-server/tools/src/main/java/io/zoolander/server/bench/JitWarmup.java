package io.zoolander.server.bench;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Loads a fresh deployment, one turn after another, until the JIT compilers of its JVMs are quiet:
 * until, over {@link #QUIET_TURNS} turns in a row, they spent at most {@link #QUIET_SHARE} of one
 * core each turn (one quiet turn can fall between two waves of compilation). Bounded by a maximum
 * time; a turn is the caller's (every system of the deployment for a moment, so that each one's
 * code is compiled). Time and the compilers' activity are given, so the rule is testable without a
 * JVM's compilers or a clock.
 */
public final class JitWarmup {
  /** Compilers at or below this share of one core over a turn are quiet. */
  static final double QUIET_SHARE = 0.03;

  /** Quiet turns in a row that end the warm-up. */
  static final int QUIET_TURNS = 2;

  /** How long a turn loads each system of the deployment. */
  static final Duration SLICE_PER_SYSTEM = Duration.ofSeconds(1);

  /** One turn of load; its results are discarded. */
  @FunctionalInterface
  interface Turn {
    void run() throws Exception;
  }

  /**
   * How the warm-up ended.
   *
   * @param turns turns run
   * @param seconds time they took
   * @param quiet whether the last {@link #QUIET_TURNS} turns were quiet (else the maximum time
   *     ended it)
   * @param lastTurnShare the compilers' CPU over the last turn, as a share of one core
   */
  public record Outcome(int turns, double seconds, boolean quiet, double lastTurnShare) {
    /** One line for the report. */
    public String describe() {
      return String.format(
          Locale.ROOT,
          "%s after %.0f s (%d turn%s; compilers at %.1f%% of a core over the last)",
          quiet ? "JIT quiet" : "JIT still busy at the bound",
          seconds,
          turns,
          turns == 1 ? "" : "s",
          lastTurnShare * 100);
    }
  }

  private JitWarmup() {}

  /**
   * Runs {@code turn} until the compiler time ({@code compileNanosSinceLastCall}, asked before the
   * first turn and after each) of {@link #QUIET_TURNS} turns in a row was at most {@link
   * #QUIET_SHARE} of each turn's time, or until {@code max} has passed at the end of a turn; at
   * least one turn.
   *
   * @param nanoTime the clock ({@code System::nanoTime})
   */
  static Outcome run(
      Turn turn, LongSupplier compileNanosSinceLastCall, LongSupplier nanoTime, Duration max)
      throws Exception {
    if (max.isNegative() || max.isZero()) {
      throw new IllegalArgumentException("max warm-up must be positive, was " + max);
    }
    long start = nanoTime.getAsLong();
    var unused = compileNanosSinceLastCall.getAsLong(); // earlier compiling is no turn's
    int turns = 0;
    int quietInARow = 0;
    while (true) {
      long turnStart = nanoTime.getAsLong();
      turn.run();
      turns++;
      long end = nanoTime.getAsLong();
      double share = compileNanosSinceLastCall.getAsLong() / (double) Math.max(1, end - turnStart);
      quietInARow = share <= QUIET_SHARE ? quietInARow + 1 : 0;
      boolean quiet = quietInARow >= QUIET_TURNS;
      if (quiet || end - start >= max.toNanos()) {
        return new Outcome(turns, (end - start) / 1e9, quiet, share);
      }
    }
  }

  /**
   * The benches' use: nothing when {@code maxSeconds} is 0, or when {@code jit} cannot read the
   * compilers here (which it prints); else {@link #run} on the system clock, printing on {@code
   * out} what it does and how it ended, after the bench's {@code [bench]} prefix and {@code label}.
   */
  static Optional<Outcome> untilQuiet(
      JitActivity jit, int maxSeconds, Turn turn, PrintWriter out, String label) throws Exception {
    if (maxSeconds == 0) {
      return Optional.empty();
    }
    if (!jit.supported()) {
      out.printf("[bench] %sno per-thread CPU times here (/proc): no JIT warm-up%n", label);
      out.flush();
      return Optional.empty();
    }
    out.printf(
        "[bench] %severy system in turn until the JIT compilers are quiet (at most %d s): ",
        label, maxSeconds);
    out.flush();
    Outcome outcome =
        run(turn, jit::compileNanosSinceLastCall, System::nanoTime, Duration.ofSeconds(maxSeconds));
    out.println(outcome.describe());
    out.flush();
    return Optional.of(outcome);
  }
}

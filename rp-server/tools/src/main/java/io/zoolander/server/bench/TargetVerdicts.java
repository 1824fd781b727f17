package io.zoolander.server.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * The data path's targets (issue 17), judged on one bench run with the uncertainty of its samples:
 * each figure comes with its {@link Intervals 95% interval}, and a target is {@link Verdict#MET}
 * only when the measured interval lies within its bound's, {@link Verdict#NOT_MET} only when it
 * lies wholly beyond, and {@link Verdict#UNDECIDED} when they overlap: the run had too few samples
 * to tell, and a longer run ({@code --seconds}) can. Two 95% intervals, so a verdict holds with at
 * least 90% confidence. The injector-off condition only; nothing is timed here.
 */
final class TargetVerdicts {

  /** An {@code rp-1} read's p50 may be at most this times plain's. */
  static final double READ_P50_RATIO_ALLOWED = 1.15;

  /** An {@code rp-1} read's p99 may be at most this times plain's. */
  static final double READ_P99_RATIO_ALLOWED = 1.2;

  /** Extra loopback round trips a sequenced write may take at p50 over plain's. */
  static final double WRITE_HOPS_ALLOWED = 1.5;

  /** A sequenced write's p99 may be at most this times plain's. */
  static final double WRITE_P99_RATIO_ALLOWED = 1.3;

  /** The largest {@code rp-N} may miss tau (plain's read p99) at most this fraction as often. */
  static final double TAIL_RATIO_TO_PLAIN_ALLOWED = 0.5;

  /** ... and no more often than the hedged reads that missed least. */
  static final double TAIL_RATIO_TO_HEDGED_ALLOWED = 1;

  /** Microseconds per millisecond: the bench's histograms are in microseconds. */
  private static final double US_PER_MS = 1e3;

  /** Nanoseconds per millisecond: the loopback's histograms are in nanoseconds. */
  private static final double NS_PER_MS = 1e6;

  private TargetVerdicts() {}

  /** What a run says of a target. */
  enum Verdict {
    /** The measured interval lies within the bound's. */
    MET("met"),
    /** The measured interval lies wholly beyond the bound's. */
    NOT_MET("not met"),
    /** The intervals overlap: too few samples to tell. */
    UNDECIDED("undecided");

    private final String words;

    Verdict(String words) {
      this.words = words;
    }

    String words() {
      return words;
    }

    /** For a target {@code measured <= bound}. */
    static Verdict atMost(Intervals.Interval measured, Intervals.Interval bound) {
      if (measured.high() <= bound.low()) {
        return MET;
      }
      if (measured.low() > bound.high()) {
        return NOT_MET;
      }
      return UNDECIDED;
    }
  }

  /**
   * One target: {@code measured <= bound}, each a point estimate with its interval.
   *
   * @param target the target in words
   * @param unit "ms" or "x" (a ratio)
   */
  record Row(
      String target,
      String unit,
      double measured,
      Intervals.Interval measuredInterval,
      double bound,
      Intervals.Interval boundInterval,
      Verdict verdict) {}

  /**
   * @return the rows this run can judge: reads (for {@code rp-1}), writes (for every unhedged
   *     {@code rp-N}) against plain, with the loopback round trip paced at the bench's rate and, if
   *     measured, at its write rate; the largest unhedged {@code rp-N}'s misses at tau against
   *     plain's and the best hedged system's, if N >= 2 (one duplicate has nothing to mask a slow
   *     one with). Empty without plain's injector-off row.
   */
  static List<Row> judge(BenchResult r) {
    List<Row> rows = new ArrayList<>();
    Optional<BenchResult.SystemResult> plainRow = r.system(TailAnalysis.PLAIN, false);
    if (plainRow.isEmpty()) {
      return rows;
    }
    BenchResult.SystemResult plain = plainRow.get();
    r.system("rp-1", false)
        .ifPresent(
            rp1 -> {
              percentileRow(rows, 0.5, READ_P50_RATIO_ALLOWED, rp1, plain, true);
              percentileRow(rows, 0.99, READ_P99_RATIO_ALLOWED, rp1, plain, true);
            });
    for (BenchResult.SystemResult rp : r.systems()) {
      if (rp.anomalies() || !rp.system().startsWith("rp-") || rp.system().contains("hedged")) {
        continue;
      }
      r.loopbackPaced().ifPresent(l -> writeP50Row(rows, rp, plain, l));
      r.loopbackPacedWrites().ifPresent(l -> writeP50Row(rows, rp, plain, l));
      percentileRow(rows, 0.99, WRITE_P99_RATIO_ALLOWED, rp, plain, false);
    }
    tailRows(r, plain, rows);
    return rows;
  }

  /** {@code rp}'s {@code q} quantile at most {@code ratio} times plain's. */
  private static void percentileRow(
      List<Row> rows,
      double q,
      double ratio,
      BenchResult.SystemResult rp,
      BenchResult.SystemResult plain,
      boolean reads) {
    Histogram mine = reads ? rp.reads().histogram() : rp.writes().histogram();
    Histogram theirs = reads ? plain.reads().histogram() : plain.writes().histogram();
    if (mine.getTotalCount() == 0 || theirs.getTotalCount() == 0) {
      return;
    }
    Intervals.Interval measured = Intervals.quantile(mine, q, US_PER_MS, Intervals.CONFIDENCE);
    Intervals.Interval bound =
        Intervals.quantile(theirs, q, US_PER_MS, Intervals.CONFIDENCE).times(ratio, 0);
    rows.add(
        new Row(
            String.format(
                Locale.ROOT,
                "`%s` %s p%s <= %sx plain's",
                rp.system(),
                reads ? "read" : "write",
                q == 0.5 ? "50" : "99",
                trim(ratio)),
            "ms",
            mine.getValueAtPercentile(q * 100) / US_PER_MS,
            measured,
            ratio * theirs.getValueAtPercentile(q * 100) / US_PER_MS,
            bound,
            Verdict.atMost(measured, bound)));
  }

  /** {@code rp}'s write p50 at most plain's plus {@value #WRITE_HOPS_ALLOWED} round trips. */
  private static void writeP50Row(
      List<Row> rows,
      BenchResult.SystemResult rp,
      BenchResult.SystemResult plain,
      LoopbackRoundTrip.Result loopback) {
    Histogram mine = rp.writes().histogram();
    Histogram theirs = plain.writes().histogram();
    Histogram hops = loopback.histogram();
    if (mine.getTotalCount() == 0 || theirs.getTotalCount() == 0 || hops.getTotalCount() == 0) {
      return;
    }
    Intervals.Interval measured = Intervals.quantile(mine, 0.5, US_PER_MS, Intervals.CONFIDENCE);
    Intervals.Interval plainP50 = Intervals.quantile(theirs, 0.5, US_PER_MS, Intervals.CONFIDENCE);
    Intervals.Interval hop = Intervals.quantile(hops, 0.5, NS_PER_MS, Intervals.CONFIDENCE);
    Intervals.Interval bound =
        new Intervals.Interval(
            plainP50.low() + WRITE_HOPS_ALLOWED * hop.low(),
            plainP50.high() + WRITE_HOPS_ALLOWED * hop.high());
    rows.add(
        new Row(
            String.format(
                Locale.ROOT,
                "`%s` write p50 <= plain's + %s round trips paced at %.0f/s",
                rp.system(),
                trim(WRITE_HOPS_ALLOWED),
                loopback.ratePerSec()),
            "ms",
            rp.writes().p50Ms(),
            measured,
            plain.writes().p50Ms() + WRITE_HOPS_ALLOWED * loopback.ms(50),
            bound,
            Verdict.atMost(measured, bound)));
  }

  /** The largest {@code rp-N}'s misses at tau against plain's and the best hedged system's. */
  private static void tailRows(BenchResult r, BenchResult.SystemResult plain, List<Row> rows) {
    Optional<BenchResult.SystemResult> rpRow =
        r.systems().stream()
            .filter(s -> !s.anomalies() && s.system().matches("rp-[0-9]+") && duplicates(s) >= 2)
            .max(Comparator.comparingInt(TargetVerdicts::duplicates));
    double tau = plain.tauMs();
    if (rpRow.isEmpty() || Double.isNaN(tau) || samples(plain) == 0 || samples(rpRow.get()) == 0) {
      return;
    }
    BenchResult.SystemResult rp = rpRow.get();
    tailRow(rows, rp, plain, TAIL_RATIO_TO_PLAIN_ALLOWED, tau);
    r.systems().stream()
        .filter(s -> !s.anomalies() && s.system().startsWith("hedged") && samples(s) > 0)
        .min(Comparator.comparingDouble(s -> (double) misses(s, tau) / samples(s)))
        .ifPresent(hedged -> tailRow(rows, rp, hedged, TAIL_RATIO_TO_HEDGED_ALLOWED, tau));
  }

  private static void tailRow(
      List<Row> rows,
      BenchResult.SystemResult rp,
      BenchResult.SystemResult other,
      double allowed,
      double tau) {
    long k1 = misses(rp, tau);
    long n1 = samples(rp);
    long k2 = misses(other, tau);
    long n2 = samples(other);
    Intervals.Interval measured = Intervals.rateRatio(k1, n1, k2, n2, Intervals.CONFIDENCE);
    double ratio = k2 == 0 ? Double.NaN : ((double) k1 / n1) / ((double) k2 / n2);
    rows.add(
        new Row(
            String.format(
                Locale.ROOT,
                "`%s` misses tau = %.3f ms (%d of %d) <= %sx `%s`'s (%d of %d, %.2f msgs/read)",
                rp.system(),
                tau,
                k1,
                n1,
                trim(allowed),
                other.system(),
                k2,
                n2,
                other.messagesPerRead()),
            "x",
            ratio,
            measured,
            allowed,
            new Intervals.Interval(allowed, allowed),
            Verdict.atMost(measured, new Intervals.Interval(allowed, allowed))));
  }

  /** The N of {@code rp-N}. */
  private static int duplicates(BenchResult.SystemResult rp) {
    return Integer.parseInt(rp.system().substring("rp-".length()));
  }

  /** Reads started that completed or failed. */
  private static long samples(BenchResult.SystemResult s) {
    return s.reads().histogram().getTotalCount() + s.reads().failed();
  }

  private static long misses(BenchResult.SystemResult s, double tauMs) {
    return TailAnalysis.misses(s.reads().histogram(), s.reads().failed(), tauMs);
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
  }

  /** The rows as a markdown section; empty if there are none. */
  static String markdown(List<Row> rows) {
    if (rows.isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder("## The data path's targets, with 95% intervals\n\n");
    md.append(
        "Injector off. Each figure with its 95% confidence interval: for a percentile, between two"
            + " order statistics of the run's samples (distribution-free); for a ratio of miss"
            + " rates, exact given the misses' counts. A target is **met** when the whole interval"
            + " of what was measured lies within its bound's, **not met** when it lies wholly"
            + " beyond, **undecided** when they overlap: too few samples to tell (a longer"
            + " `--seconds` gives more). \"unbounded\": too few samples to bound that side (a p99"
            + " needs 368 or more). Two 95% intervals: a verdict holds with at least 90%"
            + " confidence.\n\n");
    md.append("| target | measured | 95% interval | bound | 95% interval | verdict |\n");
    md.append("|---|---:|---|---:|---|---|\n");
    for (Row row : rows) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s |%n",
              row.target(),
              value(row.measured(), row.unit()),
              interval(row.measuredInterval(), row.unit()),
              value(row.bound(), row.unit()),
              interval(row.boundInterval(), row.unit()),
              row.verdict() == Verdict.UNDECIDED
                  ? row.verdict().words()
                  : "**" + row.verdict().words() + "**"));
    }
    md.append('\n');
    return md.toString();
  }

  private static String value(double v, String unit) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    return String.format(Locale.ROOT, unit.equals("x") ? "%.2fx" : "%.3f ms", v);
  }

  private static String interval(Intervals.Interval i, String unit) {
    if (i.low() == i.high()) {
      return "";
    }
    return bound(i.low(), unit) + " to " + bound(i.high(), unit);
  }

  private static String bound(double v, String unit) {
    if (Double.isInfinite(v)) {
      return "unbounded";
    }
    return String.format(Locale.ROOT, unit.equals("x") ? "%.2f" : "%.3f", v);
  }
}

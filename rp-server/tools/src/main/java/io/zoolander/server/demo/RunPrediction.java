package io.zoolander.server.demo;

import io.zoolander.model.EmpiricalLatency;
import io.zoolander.model.MissCurve;
import io.zoolander.model.SlaEngine;
import io.zoolander.model.SlaEstimate;
import io.zoolander.model.Strategy;
import io.zoolander.server.workload.InterleavedHalves;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The engine's prediction for one demo run, from that run's own calibration half, so that the
 * prediction and the observation share the machine's conditions: reads and writes are predicted
 * apart (each from its own paired reply latencies: one duplicate's latency and how many duplicates
 * are late together), then combined per the run's mix.
 *
 * <p>The interval is where the run's observation should fall: it holds the prediction's own
 * uncertainty (the engine's interval, from the calibration half's size) and the observation half's
 * binomial error, per class, weighted by the mix. The engine's 95% interval is read as a standard
 * error ({@code (high - low) / (2 * 1.96)}), so the 95% and 99.9% intervals are normal ones.
 *
 * <p>Used by the demo and by {@code ModelValidationIT} (one class at a time: the other's halves
 * empty).
 */
public final class RunPrediction {
  /** The standard normal quantile of a two-sided 95% interval. */
  public static final double Z95 = 1.959963984540054;

  /** The standard normal quantile of a two-sided 99.9% interval. */
  public static final double Z999 = 3.2905267314919255;

  /**
   * The combined prediction at one bound.
   *
   * @param tauMs the bound
   * @param sla the predicted SLA of the run's mix
   * @param standardError of the difference between the observation and the prediction
   */
  public record Band(double tauMs, double sla, double standardError) {
    /** The interval's low end at {@code z} standard errors, at least 0. */
    public double low(double z) {
      return Math.max(0, sla - z * standardError);
    }

    /** The interval's high end at {@code z} standard errors, at most 1. */
    public double high(double z) {
      return Math.min(1, sla + z * standardError);
    }
  }

  /** One access class: its share of the observed accesses, its model and its observed count. */
  private record AccessClass(
      double share, long observed, EmpiricalLatency oneDuplicate, SlaEngine engine) {}

  private final int duplicates;
  private final List<AccessClass> classes;

  private RunPrediction(int duplicates, List<AccessClass> classes) {
    this.duplicates = duplicates;
    this.classes = classes;
  }

  /**
   * The prediction for {@code duplicates} duplicates from the calibration halves of a run's reads
   * and writes (rows with a column per duplicate, at least {@code duplicates} of them, or more: the
   * dependence is fitted on every column). A class with no observed access is left out.
   *
   * @throws IllegalStateException if a class that was observed has no calibration row
   */
  public static RunPrediction of(
      int duplicates, InterleavedHalves reads, InterleavedHalves writes) {
    long observed = reads.observation().length + writes.observation().length;
    if (observed == 0) {
      throw new IllegalStateException("no access has every duplicate's reply: nothing to compare");
    }
    List<AccessClass> classes = new ArrayList<>();
    for (InterleavedHalves halves : List.of(reads, writes)) {
      long count = halves.observation().length;
      if (count == 0) {
        continue;
      }
      double[][] calibration = halves.calibration();
      EmpiricalLatency one =
          EmpiricalLatency.of(Arrays.stream(calibration).flatMapToDouble(Arrays::stream).toArray());
      // The calibration's latencies already hold this load's queueing: rate 0 adds none.
      SlaEngine.Builder engine =
          SlaEngine.builder()
              .strategy(Strategy.predictability(duplicates))
              .serviceTime(one)
              .arrivalRatePerSec(0);
      if (duplicates >= 2) {
        engine.pairedSamplesMs(calibration);
      }
      classes.add(new AccessClass((double) count / observed, count, one, engine.build()));
    }
    return new RunPrediction(duplicates, List.copyOf(classes));
  }

  /** The prediction at {@code tauMs}. */
  public Band at(double tauMs) {
    double sla = 0;
    double variance = 0;
    for (AccessClass c : classes) {
      SlaEstimate e = c.engine().predict(tauMs);
      variance += band(c, e.sla(), e.high() - e.low());
      sla += c.share() * e.sla();
    }
    return new Band(tauMs, sla, Math.sqrt(variance));
  }

  /** The prediction at {@code points} bounds from {@code fromMs} to {@code toMs}. */
  public List<Band> curve(double fromMs, double toMs, int points) {
    double[] sla = new double[points];
    double[] variance = new double[points];
    double[] taus = new double[points];
    for (AccessClass c : classes) {
      MissCurve curve = c.engine().missCurve(fromMs, toMs, points);
      for (int i = 0; i < points; i++) {
        SlaEstimate e = curve.all().get(i);
        taus[i] = e.tauMs();
        sla[i] += c.share() * e.sla();
        variance[i] += band(c, e.sla(), e.high() - e.low());
      }
    }
    List<Band> bands = new ArrayList<>(points);
    for (int i = 0; i < points; i++) {
      bands.add(new Band(taus[i], sla[i], Math.sqrt(variance[i])));
    }
    return bands;
  }

  /** A class's share of the variance: the prediction's and the observation half's. */
  private static double band(AccessClass c, double sla, double width95) {
    double prediction = width95 / (2 * Z95);
    double observation = sla * (1 - sla) / c.observed();
    return c.share() * c.share() * (prediction * prediction + observation);
  }

  /** The thesis baseline: independent duplicates, {@code 1 - (1 - F(tau))^N} per class. */
  public double thesis(double tauMs) {
    double sla = 0;
    for (AccessClass c : classes) {
      sla += c.share() * (1 - Math.pow(1 - c.oneDuplicate().cdf(tauMs), duplicates));
    }
    return sla;
  }
}

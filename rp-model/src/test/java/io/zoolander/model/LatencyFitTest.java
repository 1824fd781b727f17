package io.zoolander.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.function.Function;
import org.apache.commons.math3.random.RandomGenerator;
import org.apache.commons.math3.random.Well19937c;
import org.apache.commons.math3.special.Gamma;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LatencyFitTest {
  private static final int N = 50_000;
  private static final double CLOSE = 1e-12;

  /**
   * Every recovery check allows 5 asymptotic standard errors: a seeded 5-sigma miss has probability
   * < 1e-6.
   */
  private static final double SIGMAS = 5;

  private static final double LN2 = Math.log(2);

  // ---------------------------------------------------------------- exact fits on small
  // hand-computed sets

  @Test
  void exponentialMeanIsTheSampleMean() {
    LatencyDistribution fit = LatencyFit.exponential(new double[] {1, 2, 3, 0});
    assertThat(fit.meanMs()).isCloseTo(1.5, within(CLOSE));
    assertThat(fit.scv()).isCloseTo(1, within(CLOSE));
  }

  @Test
  void logNormalIsTheMeanAndBiasedSdOfLogs() {
    // ln {1, 2, 4} = {0, ln2, 2 ln2}: mu = ln2, sigma^2 = (ln2^2 + 0 + ln2^2)/3 = (2/3) ln2^2
    // (divide by n: the MLE).
    LatencyDistribution fit = LatencyFit.logNormal(new double[] {4, 1, 2});
    double sigma2 = 2.0 / 3 * LN2 * LN2;
    assertLogNormal(fit, LN2, Math.sqrt(sigma2), CLOSE);
  }

  @Test
  void paretoScaleIsTheMinimumAndShapeNOverLogSum() {
    // {1, e, e^2}: scale 1, shape 3 / (0 + 1 + 2) = 1.
    double e = Math.E;
    LatencyDistribution fit = LatencyFit.pareto(new double[] {e, 1, e * e});
    assertThat(fit.quantile(0)).isEqualTo(1);
    assertThat(paretoShape(fit)).isCloseTo(1, within(1e-12));
  }

  @Test
  void gammaSatisfiesTheLikelihoodEquations() {
    double[] samples = {0.5, 1, 2, 3, 4.5};
    LatencyDistribution fit = LatencyFit.gamma(samples);
    double mean = 11.0 / 5;
    double meanLog = 0;
    for (double x : samples) {
      meanLog += Math.log(x) / samples.length;
    }
    double shape = 1 / fit.scv();
    // d/dtheta: shape * scale = sample mean; d/dk: ln k - digamma(k) = ln(mean) - mean(ln x).
    assertThat(fit.meanMs()).isCloseTo(mean, within(1e-12));
    assertThat(Math.log(shape) - Gamma.digamma(shape))
        .isCloseTo(Math.log(mean) - meanLog, within(1e-10));
  }

  @ParameterizedTest
  @ValueSource(doubles = {1e-7, 1e-4, 0.01, 0.1, 0.5, 1, 3, 10, 50})
  void gammaShapeNewtonConvergesFromMinkasStart(double s) {
    double k = LatencyFit.gammaShape(s);
    assertThat(k).isPositive().isFinite();
    // ln k - digamma(k) loses ~1e-15 absolute to cancellation when k is large (s small), hence the
    // floor.
    assertThat(Math.log(k) - Gamma.digamma(k))
        .as("residual at s=%s", s)
        .isCloseTo(s, within(1e-10 * s + 1e-13));
  }

  // ---------------------------------------------------------------- recovery from 50k seeded
  // samples

  @Test
  void exponentialRecoversTheMean() {
    double mean = 0.4;
    LatencyDistribution fit =
        LatencyFit.exponential(draw(LatencyDistributions.exponential(mean), 1));
    double se = mean / Math.sqrt(N); // sd of an exponential = its mean
    assertThat(fit.meanMs())
        .as("mean; tolerance %s standard errors mean/sqrt(n) = %.5f", SIGMAS, SIGMAS * se)
        .isCloseTo(mean, within(SIGMAS * se));
  }

  @Test
  void logNormalRecoversMuAndSigma() {
    double mu = -1;
    double sigma = 0.5;
    LatencyDistribution fit =
        LatencyFit.logNormal(draw(LatencyDistributions.logNormal(mu, sigma), 2));
    double sigma2 = Math.log1p(fit.scv());
    double fittedMu = Math.log(fit.meanMs()) - sigma2 / 2;
    double seMu = sigma / Math.sqrt(N); // MLE of mu is a mean of N(mu, sigma^2) logs
    double seSigma = sigma / Math.sqrt(2.0 * N); // asymptotic sd of the normal sd MLE
    assertThat(fittedMu)
        .as("mu; tolerance %s standard errors sigma/sqrt(n) = %.5f", SIGMAS, SIGMAS * seMu)
        .isCloseTo(mu, within(SIGMAS * seMu));
    assertThat(Math.sqrt(sigma2))
        .as("sigma; tolerance %s standard errors sigma/sqrt(2n) = %.5f", SIGMAS, SIGMAS * seSigma)
        .isCloseTo(sigma, within(SIGMAS * seSigma));
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.5, 2, 9})
  void gammaRecoversShapeAndScale(double shape) {
    double scale = 0.4 / shape;
    LatencyDistribution fit = LatencyFit.gamma(draw(LatencyDistributions.gamma(shape, scale), 3));
    double fittedShape = 1 / fit.scv();
    double fittedScale = fit.meanMs() / fittedShape;
    // Inverse Fisher information of (k, theta): Var(k) = k / (n (k psi'(k) - 1)),
    // Var(theta) = theta^2 psi'(k) / (n (k psi'(k) - 1)).
    double trigamma = Gamma.trigamma(shape);
    double det = shape * trigamma - 1;
    double seShape = Math.sqrt(shape / (N * det));
    double seScale = scale * Math.sqrt(trigamma / (N * det));
    assertThat(fittedShape)
        .as(
            "shape; tolerance %s asymptotic standard errors (inverse Fisher information) = %.5f",
            SIGMAS, SIGMAS * seShape)
        .isCloseTo(shape, within(SIGMAS * seShape));
    assertThat(fittedScale)
        .as(
            "scale; tolerance %s asymptotic standard errors (inverse Fisher information) = %.6f",
            SIGMAS, SIGMAS * seScale)
        .isCloseTo(scale, within(SIGMAS * seScale));
  }

  @Test
  void paretoRecoversScaleAndShape() {
    double scale = 1;
    double shape = 2.5;
    LatencyDistribution fit = LatencyFit.pareto(draw(LatencyDistributions.pareto(scale, shape), 4));
    // The minimum of n draws exceeds the scale by a factor 1+t with probability (1+t)^(-n shape):
    // for t = 1e-3 that
    // is e^-125, so a relative tolerance of 1e-3 (one-sided: the minimum is never below the scale)
    // is safe.
    assertThat(fit.quantile(0)).as("scale = sample minimum").isBetween(scale, scale * (1 + 1e-3));
    double se = shape / Math.sqrt(N); // asymptotic sd of the shape MLE
    assertThat(paretoShape(fit))
        .as("shape; tolerance %s standard errors shape/sqrt(n) = %.4f", SIGMAS, SIGMAS * se)
        .isCloseTo(shape, within(SIGMAS * se));
  }

  // ---------------------------------------------------------------- anomaly mixture

  @Test
  void anomalyMixtureByHand() {
    // Threshold 10: body {1, 2, 4}, anomalies {20, 40}: p = 2/5.
    // Body ln = {0, ln2, 2 ln2}: mu = ln2, sigma^2 = (2/3) ln2^2. Anomaly shape = 2 / (ln 2 + ln 4)
    // = 2 / (3 ln 2).
    AnomalyMixture fit = LatencyFit.anomalyMixture(new double[] {20, 1, 4, 40, 2}, 10);
    assertThat(fit.anomalyProbability()).isEqualTo(0.4);
    assertLogNormal(fit.body(), LN2, Math.sqrt(2.0 / 3) * LN2, CLOSE);
    assertThat(fit.anomaly().quantile(0)).isEqualTo(10);
    assertThat(paretoShape(fit.anomaly())).isCloseTo(2 / (3 * LN2), within(1e-12));
  }

  @Test
  void aSampleEqualToTheThresholdBelongsToTheBody() {
    AnomalyMixture fit = LatencyFit.anomalyMixture(new double[] {1, 10, 20, 2}, 10);
    assertThat(fit.anomalyProbability()).isEqualTo(0.25);
  }

  @Test
  void anomalyMixtureRecoversTheAnomalyProbability() {
    double p = 0.02;
    double anomalyShape = 1.5;
    double threshold = 5;
    LatencyDistribution bodyTruth = LatencyDistributions.logNormal(-1, 0.5);
    AnomalyMixture truth =
        LatencyDistributions.anomalyMixture(
            bodyTruth, LatencyDistributions.pareto(threshold, anomalyShape), p);
    AnomalyMixture fit = LatencyFit.anomalyMixture(draw(truth, 5), threshold);

    // The body puts 1 - Phi((ln 5 + 1)/0.5) ~ 1e-7 above the threshold, so the split is the true
    // mixture split.
    assertThat(1 - bodyTruth.cdf(threshold)).isLessThan(1e-6);
    double seP = Math.sqrt(p * (1 - p) / N);
    assertThat(fit.anomalyProbability())
        .as(
            "anomaly probability; tolerance %s binomial standard errors sqrt(p(1-p)/n) = %.5f",
            SIGMAS, SIGMAS * seP)
        .isCloseTo(p, within(SIGMAS * seP));
    double seShape = anomalyShape / Math.sqrt(p * N); // shape MLE from about p*n anomalies
    assertThat(paretoShape(fit.anomaly()))
        .as(
            "anomaly shape; tolerance %s standard errors shape/sqrt(p n) = %.4f",
            SIGMAS, SIGMAS * seShape)
        .isCloseTo(anomalyShape, within(SIGMAS * seShape));
    assertThat(fit.anomaly().quantile(0)).isEqualTo(threshold);
    double seMu = 0.5 / Math.sqrt((1 - p) * N);
    double sigma2 = Math.log1p(fit.body().scv());
    assertThat(Math.log(fit.body().meanMs()) - sigma2 / 2)
        .as(
            "body mu; tolerance %s standard errors sigma/sqrt((1-p) n) = %.5f",
            SIGMAS, SIGMAS * seMu)
        .isCloseTo(-1, within(SIGMAS * seMu));
  }

  // ---------------------------------------------------------------- KS distance

  @Test
  void ksDistanceByHand() {
    LatencyDistribution exp = LatencyDistributions.exponential(1);
    // Samples at cdf values 0.1, 0.4, 0.8 (x = -ln(1-u)), n = 3: the largest gap is |0.4 - 2/3| =
    // 0.2667.
    assertThat(LatencyFit.ksDistance(exp, new double[] {at(0.8), at(0.1), at(0.4)}))
        .isCloseTo(0.8 / 3, within(1e-12));
    // A tie at cdf 0.5 (two of three samples): the empirical cdf jumps from 0 to 2/3 there, gap 0.5
    // below the jump.
    assertThat(LatencyFit.ksDistance(exp, new double[] {at(0.5), at(0.9), at(0.5)}))
        .isCloseTo(0.5, within(1e-12));
    assertThat(LatencyFit.ksDistance(exp, new double[] {at(0.5)})).isCloseTo(0.5, within(1e-12));
  }

  @Test
  void ksDistanceIsExactForDistributionsWithAtoms() {
    // Comparing a jump with a jump: the left limits matter, otherwise a constant would be at
    // distance 1 from itself.
    assertThat(LatencyFit.ksDistance(LatencyDistributions.constant(1), new double[] {1, 1, 1}))
        .isZero();
    assertThat(LatencyFit.ksDistance(LatencyDistributions.constant(1), new double[] {1, 2}))
        .isEqualTo(0.5);
    double[] withTies = {3, 1, 2, 2, 4, 4, 4, 0};
    assertThat(LatencyFit.ksDistance(EmpiricalLatency.of(withTies), withTies)).isZero();
    // Empirical {1, 2} against samples {1, 1}: F = 0.5 vs F_n = 1 at 1.
    assertThat(LatencyFit.ksDistance(EmpiricalLatency.of(1, 2), new double[] {1, 1}))
        .isEqualTo(0.5);
  }

  @Test
  void ksDistanceDoesNotReorderTheCallersArray() {
    double[] samples = {3, 1, 2};
    LatencyFit.ksDistance(LatencyDistributions.exponential(1), samples);
    assertThat(samples).containsExactly(3, 1, 2);
  }

  // ---------------------------------------------------------------- best family

  @Test
  void bestPicksExponentialForExponentialData() {
    assertBest(LatencyDistributions.exponential(0.4), 6, LatencyFit.EXPONENTIAL);
  }

  @Test
  void bestPicksLogNormalForLogNormalData() {
    assertBest(LatencyDistributions.logNormal(-1, 0.5), 7, LatencyFit.LOG_NORMAL);
  }

  @Test
  void bestPicksGammaForGammaData() {
    assertBest(LatencyDistributions.gamma(2, 0.2), 8, LatencyFit.GAMMA);
  }

  @Test
  void bestPicksParetoForParetoData() {
    assertBest(LatencyDistributions.pareto(1, 2.5), 9, LatencyFit.PARETO);
  }

  @Test
  void bestFallsBackToExponentialWhenOtherFamiliesCannotBeFitted() {
    // A zero rules out every family that takes logarithms; identical samples rule out every
    // two-parameter family.
    assertThat(LatencyFit.best(new double[] {0, 1, 2}).family()).isEqualTo(LatencyFit.EXPONENTIAL);
    assertThat(LatencyFit.best(new double[] {2, 2, 2}).family()).isEqualTo(LatencyFit.EXPONENTIAL);
  }

  // ---------------------------------------------------------------- bad input

  @Test
  void everyFitRejectsBadSamplesNamingTheParameter() {
    for (Function<double[], Object> fit : allFits()) {
      assertThatThrownBy(() -> fit.apply(null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("samplesMs");
      assertIae(fit, new double[0], "samplesMs");
      assertIae(fit, new double[] {1, Double.NaN}, "samplesMs[1]");
      assertIae(fit, new double[] {1, -1}, "samplesMs[1]");
      assertIae(fit, new double[] {Double.POSITIVE_INFINITY, 1}, "samplesMs[0]");
    }
  }

  @Test
  void fitsThatTakeLogarithmsRejectZero() {
    assertIae(() -> LatencyFit.logNormal(new double[] {1, 0}), "samplesMs[1]");
    assertIae(() -> LatencyFit.gamma(new double[] {0, 1}), "samplesMs[0]");
    assertIae(() -> LatencyFit.pareto(new double[] {1, 2, 0}), "samplesMs[2]");
    assertIae(() -> LatencyFit.anomalyMixture(new double[] {1, 0, 20}, 10), "samplesMs[1]");
  }

  @Test
  void degenerateSamplesAreRejectedNamingTheParameter() {
    assertIae(() -> LatencyFit.exponential(new double[] {0, 0}), "samplesMs");
    assertIae(() -> LatencyFit.logNormal(new double[] {2, 2}), "samplesMs");
    assertIae(() -> LatencyFit.gamma(new double[] {2}), "samplesMs");
    assertIae(() -> LatencyFit.pareto(new double[] {3, 3, 3}), "samplesMs");
    assertIae(() -> LatencyFit.best(new double[] {0, 0}), "samplesMs");
    assertIae(() -> LatencyFit.anomalyMixture(new double[] {1, 1, 20}, 10), "samplesMs");
  }

  @Test
  void anomalyMixtureRejectsBadThresholdsAndOneSidedSplits() {
    double[] samples = {1, 2, 20};
    assertIae(() -> LatencyFit.anomalyMixture(samples, 0), "thresholdMs");
    assertIae(() -> LatencyFit.anomalyMixture(samples, -1), "thresholdMs");
    assertIae(() -> LatencyFit.anomalyMixture(samples, Double.NaN), "thresholdMs");
    assertIae(() -> LatencyFit.anomalyMixture(samples, Double.POSITIVE_INFINITY), "thresholdMs");
    assertIae(() -> LatencyFit.anomalyMixture(samples, 20), "samplesMs"); // nothing above
    assertIae(() -> LatencyFit.anomalyMixture(samples, 0.5), "samplesMs"); // nothing at or below
  }

  @Test
  void ksDistanceRejectsBadInputNamingTheParameter() {
    LatencyDistribution exp = LatencyDistributions.exponential(1);
    assertThatThrownBy(() -> LatencyFit.ksDistance(null, new double[] {1}))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("distribution");
    assertThatThrownBy(() -> LatencyFit.ksDistance(exp, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("samplesMs");
    assertIae(() -> LatencyFit.ksDistance(exp, new double[0]), "samplesMs");
    assertIae(() -> LatencyFit.ksDistance(exp, new double[] {-1}), "samplesMs[0]");
  }

  @Test
  void resultRejectsBadComponentsNamingThem() {
    LatencyDistribution exp = LatencyDistributions.exponential(1);
    assertThatThrownBy(() -> new LatencyFit.Result(null, exp, 0.1))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("family");
    assertThatThrownBy(() -> new LatencyFit.Result("x", null, 0.1))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("distribution");
    assertIae(() -> new LatencyFit.Result("x", exp, 1.5), "ksDistance");
    assertIae(() -> new LatencyFit.Result("x", exp, Double.NaN), "ksDistance");
  }

  // ---------------------------------------------------------------- helpers

  private static void assertBest(LatencyDistribution truth, long seed, String family) {
    double[] samples = draw(truth, seed);
    LatencyFit.Result best = LatencyFit.best(samples);
    assertThat(best.family())
        .as("best family for %s data (%d samples)", truth, N)
        .isEqualTo(family);
    assertThat(best.ksDistance()).isEqualTo(LatencyFit.ksDistance(best.distribution(), samples));
    // The right family fits to within sampling noise: below the 0.1% critical value 1.95/sqrt(n) of
    // the KS test.
    assertThat(best.ksDistance()).isLessThan(1.95 / Math.sqrt(N));
  }

  private static double[] draw(LatencyDistribution d, long seed) {
    RandomGenerator rng = new Well19937c(seed);
    double[] samples = new double[N];
    for (int i = 0; i < N; i++) {
      samples[i] = d.sample(rng);
    }
    return samples;
  }

  /** The exponential(1) latency at which the cdf is {@code u}. */
  private static double at(double u) {
    return -Math.log1p(-u);
  }

  /** Recovers a Pareto's shape from its cdf at twice its scale: {@code 1 - cdf(2s) = 2^-shape}. */
  private static double paretoShape(LatencyDistribution pareto) {
    double scale = pareto.quantile(0);
    return -Math.log1p(-pareto.cdf(2 * scale)) / LN2;
  }

  private static void assertLogNormal(
      LatencyDistribution d, double mu, double sigma, double tolerance) {
    double sigma2 = Math.log1p(d.scv());
    assertThat(Math.sqrt(sigma2)).as("sigma").isCloseTo(sigma, within(tolerance));
    assertThat(Math.log(d.meanMs()) - sigma2 / 2).as("mu").isCloseTo(mu, within(tolerance));
  }

  private static void assertIae(
      Function<double[], Object> fit, double[] samplesMs, String parameter) {
    assertThatThrownBy(() -> fit.apply(samplesMs))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(parameter);
  }

  private static void assertIae(Runnable call, String parameter) {
    assertThatThrownBy(call::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(parameter);
  }

  private static List<Function<double[], Object>> allFits() {
    return List.of(
        LatencyFit::exponential,
        LatencyFit::logNormal,
        LatencyFit::gamma,
        LatencyFit::pareto,
        LatencyFit::best,
        s -> LatencyFit.anomalyMixture(s, 10),
        s -> LatencyFit.ksDistance(LatencyDistributions.exponential(1), s));
  }
}

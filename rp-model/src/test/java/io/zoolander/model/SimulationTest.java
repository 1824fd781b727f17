package io.zoolander.model;

import static io.zoolander.model.LatencyDistributions.anomalyMixture;
import static io.zoolander.model.LatencyDistributions.constant;
import static io.zoolander.model.LatencyDistributions.exponential;
import static io.zoolander.model.LatencyDistributions.gamma;
import static io.zoolander.model.LatencyDistributions.logNormalWithMean;
import static io.zoolander.model.LatencyDistributions.shifted;
import static io.zoolander.model.LatencyDistributions.truncatedNormal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checks the simulator against exact hand-computed cases and against queueing theory.
 *
 * <p>Statistical tolerances: all runs are seeded, so the tests are deterministic; the tolerances
 * say how far a correct simulator could plausibly land from theory. Where no closed-form standard
 * error exists (waiting times are autocorrelated), the spread was measured over 20 to 30 seeds of
 * the very same configuration and the tolerance set to about 5 standard deviations of it; where
 * draws are independent the binomial standard error is used.
 */
class SimulationTest {

  private static Simulation.Builder single(LatencyDistribution service, double ratePerSec) {
    return Simulation.builder()
        .strategy(Strategy.predictability(1))
        .serviceTime(service)
        .arrivalRatePerSec(ratePerSec)
        .warmupAccesses(10_000);
  }

  @Nested
  class ExactDeterministicCases {

    @Test
    void lindleyRecursionInAnOverloadedDd1Queue() {
      // Service 1 ms, arrivals every 0.5 ms: access i (from 0) waits i * 0.5 ms exactly.
      long warmup = 10;
      long accesses = 1_000;
      SimulationResult r =
          Simulation.builder()
              .strategy(Strategy.predictability(1))
              .serviceTime(constant(1))
              .interArrivalTime(constant(0.5))
              .warmupAccesses(warmup)
              .accesses(accesses)
              .build()
              .run();
      double expectedMeanWait = 0.5 * (warmup + (accesses - 1) / 2.0);
      assertThat(r.meanWaitMs(0)).isCloseTo(expectedMeanWait, within(1e-9));
      assertThat(r.responseTime().minMs()).isCloseTo(0.5 * warmup + 1, within(1e-9));
      assertThat(r.responseTime().maxMs())
          .isCloseTo(0.5 * (warmup + accesses - 1) + 1, within(1e-9));
      assertThat(r.recordedAccesses()).isEqualTo(accesses);
      assertThat(r.accessesServed(0)).isEqualTo(accesses);
      // Busy all the time from the first recorded arrival (working off the warm-up backlog first)
      // until the end.
      assertThat(r.utilisation(0)).isCloseTo(1, within(1e-9));
    }

    @Test
    void utilisationIsBusyTimeOverTheWindow() {
      // Service 1 ms every 2 ms: window from the first arrival (2 ms) to the last finish (2A + 1
      // ms).
      int accesses = 500;
      SimulationResult r =
          Simulation.builder()
              .strategy(Strategy.predictability(1))
              .serviceTime(constant(1))
              .interArrivalTime(constant(2))
              .warmupAccesses(0)
              .accesses(accesses)
              .build()
              .run();
      assertThat(r.simulatedTimeMs()).isCloseTo(2.0 * accesses - 1, within(1e-9));
      assertThat(r.utilisation(0)).isCloseTo(accesses / (2.0 * accesses - 1), within(1e-12));
      assertThat(r.meanWaitMs(0)).isZero();
    }

    @Test
    void responseIsTheFirstReplyIncludingNetworkDelay() {
      SimulationResult r =
          Simulation.builder()
              .strategy(Strategy.predictability(3))
              .serviceTimes(List.of(constant(3), constant(1), constant(2)))
              .interArrivalTime(constant(100))
              .networkDelay(constant(0.5))
              .accesses(1_000)
              .build()
              .run();
      assertThat(r.responseTime().minMs()).isEqualTo(1.5);
      assertThat(r.responseTime().maxMs()).isEqualTo(1.5);
      assertThat(r.sla(1.5)).isEqualTo(1.0);
      assertThat(r.sla(1.4999)).isZero();
      assertThat(r.pairedServiceMs()[0]).containsExactly(3, 1, 2);
    }

    @Test
    void aSlowDuplicateKeepsServingAndQueuesItsOwnBacklog() {
      // Duplicate 0 needs 3 ms per access arriving every 2 ms: it falls behind, but duplicate 1 (1
      // ms) answers.
      SimulationResult r =
          Simulation.builder()
              .strategy(Strategy.predictability(2))
              .serviceTimes(List.of(constant(3), constant(1)))
              .interArrivalTime(constant(2))
              .warmupAccesses(0)
              .accesses(100)
              .build()
              .run();
      assertThat(r.responseTime().maxMs()).isEqualTo(1.0);
      assertThat(r.meanWaitMs(1)).isZero();
      // Duplicate 0: access i waits i ms.
      assertThat(r.meanWaitMs(0)).isCloseTo(49.5, within(1e-9));
    }

    @Test
    void pairedSamplesAreCappedByTheLimit() {
      Simulation.Builder b =
          Simulation.builder()
              .strategy(Strategy.mix(2, 3))
              .serviceTime(exponential(1))
              .arrivalRatePerSec(10)
              .accesses(1_000);
      assertThat(b.pairedSampleLimit(100).build().run().pairedServiceMs()).hasDimensions(100, 3);
      assertThat(b.pairedSampleLimit(5_000).build().run().pairedServiceMs())
          .hasDimensions(1_000, 3);
      assertThat(b.pairedSampleLimit(0).build().run().pairedServiceMs()).isEmpty();
    }

    @Test
    void aBrokenDistributionIsReported() {
      LatencyDistribution negative =
          new LatencyDistribution() {
            @Override
            public double cdf(double xMs) {
              return 1;
            }

            @Override
            public double quantile(double p) {
              return -1;
            }

            @Override
            public double meanMs() {
              return -1;
            }

            @Override
            public double varianceMs2() {
              return 0;
            }

            @Override
            public double sample(org.apache.commons.math3.random.RandomGenerator rng) {
              return -1;
            }
          };
      Simulation sim = single(exponential(1), 100).networkDelay(negative).build();
      assertThatThrownBy(sim::run)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("networkDelay");
    }
  }

  @Nested
  class QueueingTheory {

    @Test
    void mm1MeanWaitIsRhoOverOneMinusRhoTimesMean() {
      // rho = 0.5, mean service 1 ms: Wq = 1 ms. Over 30 seeds the relative error of 500k accesses
      // had sd 0.6-0.7 %.
      SimulationResult r = single(exponential(1), 500).accesses(500_000).seed(11).build().run();
      double expected = 0.5 / (1 - 0.5) * 1;
      double relError = r.meanWaitMs(0) / expected - 1;
      assertThat(relError)
          .as("relative error of the M/M/1 mean wait: %.4f", relError)
          .isCloseTo(0, within(0.03));
      // Sojourn time is exponential with rate mu - lambda: P(T <= 2 ms) = 1 - e^-1; measured sd
      // 0.0011.
      double slaError = r.sla(2) - (1 - Math.exp(-1));
      assertThat(slaError)
          .as("M/M/1 sojourn CDF error at 2 ms: %.5f", slaError)
          .isCloseTo(0, within(0.006));
      // Measured sd of the utilisation 0.002.
      assertThat(r.utilisation(0)).isCloseTo(0.5, within(0.01));
    }

    @Test
    void mg1GammaServiceFollowsPollaczekKhinchine() {
      // Gamma shape 0.5 (Cv^2 = 2), mean 1 ms, rho 0.5: Wq = (1 + 2)/2 * 1 * 1 = 1.5 ms; measured
      // sd 0.7 %.
      LatencyDistribution service = gamma(0.5, 2);
      SimulationResult r = single(service, 500).accesses(500_000).seed(12).build().run();
      double expected = pollaczekKhinchine(service, 0.5);
      assertThat(expected).isCloseTo(1.5, within(1e-9));
      double relError = r.meanWaitMs(0) / expected - 1;
      assertThat(relError)
          .as("relative error of the M/G/1 (gamma) mean wait: %.4f", relError)
          .isCloseTo(0, within(0.04));
    }

    @Test
    void mg1LogNormalServiceFollowsPollaczekKhinchine() {
      // Log-normal, mean 1 ms, Cv^2 = 1.5, rho 0.5: Wq = 1.25 ms; heavier tail, measured sd 1.3-1.5
      // %.
      LatencyDistribution service = logNormalWithMean(1, 1.5);
      SimulationResult r = single(service, 500).accesses(500_000).seed(13).build().run();
      double expected = pollaczekKhinchine(service, 0.5);
      double relError = r.meanWaitMs(0) / expected - 1;
      assertThat(relError)
          .as("relative error of the M/G/1 (log-normal) mean wait: %.4f", relError)
          .isCloseTo(0, within(0.07));
    }

    @Test
    void dm1RenewalArrivalsMatchTheGm1Root() {
      // Arrivals every T = 2 ms, exponential service mean 1 ms: Wq = sigma / (mu (1 - sigma)) with
      // sigma the root of
      // sigma = exp(-mu T (1 - sigma)). Measured sd of the relative error: 0.8 %.
      double sigma = 0.5;
      for (int i = 0; i < 500; i++) {
        sigma = Math.exp(-2 * (1 - sigma));
      }
      double expected = sigma / (1 - sigma);
      SimulationResult r =
          Simulation.builder()
              .strategy(Strategy.predictability(1))
              .serviceTime(exponential(1))
              .interArrivalTime(constant(2))
              .warmupAccesses(10_000)
              .accesses(500_000)
              .seed(14)
              .build()
              .run();
      double relError = r.meanWaitMs(0) / expected - 1;
      assertThat(relError)
          .as("relative error of the D/M/1 mean wait: %.4f", relError)
          .isCloseTo(0, within(0.04));
    }

    private double pollaczekKhinchine(LatencyDistribution service, double rho) {
      return (1 + service.scv()) / 2 * rho / (1 - rho) * service.meanMs();
    }
  }

  @Nested
  class ReplicationForPredictability {
    private static final int ACCESSES = 200_000;
    // rho = lambda * E[S] = 1e-5 per duplicate: an access finds a busy duplicate about once in 1e5,
    // far below the
    // binomial standard error of 2e5 accesses.
    private static final double NEAR_ZERO_RATE = 0.01;

    @Test
    void identicalIndependentDuplicatesAtNearZeroLoad() {
      LatencyDistribution service = logNormalWithMean(1, 2);
      int n = 3;
      SimulationResult r =
          Simulation.builder()
              .strategy(Strategy.predictability(n))
              .serviceTime(service)
              .arrivalRatePerSec(NEAR_ZERO_RATE)
              .accesses(ACCESSES)
              .seed(21)
              .build()
              .run();
      for (double tau : new double[] {0.2, 0.5, 1, 2, 4}) {
        double expected = 1 - Math.pow(1 - service.cdf(tau), n);
        assertSlaWithinBinomialError(r, tau, expected);
      }
    }

    @Test
    void heterogeneousDuplicatesWithNetworkDelayAtNearZeroLoad() {
      List<LatencyDistribution> services =
          List.of(
              gamma(2, 0.5),
              logNormalWithMean(1, 1),
              anomalyMixture(truncatedNormal(0.8, 0.1), shifted(exponential(5), 2), 0.05));
      double net = 0.25;
      SimulationResult r =
          Simulation.builder()
              .strategy(Strategy.predictability(3))
              .serviceTimes(services)
              .arrivalRatePerSec(NEAR_ZERO_RATE)
              .networkDelay(constant(net))
              .accesses(ACCESSES)
              .seed(22)
              .build()
              .run();
      for (double tau : new double[] {0.6, 0.9, 1.1, 1.5, 3}) {
        double allMiss = 1;
        for (LatencyDistribution s : services) {
          allMiss *= 1 - s.cdf(tau - net);
        }
        assertSlaWithinBinomialError(r, tau, 1 - allMiss);
      }
    }

    private void assertSlaWithinBinomialError(SimulationResult r, double tau, double expected) {
      double observed = r.sla(tau);
      double se = Math.sqrt(expected * (1 - expected) / r.recordedAccesses());
      double error = observed - expected;
      // 4.5 standard errors (two-sided 7e-6 per check), and at least 1e-5 for expected values near
      // 0 or 1.
      assertThat(error)
          .as(
              "SLA at tau=%s: observed %.6f, expected %.6f, error %.2e = %.2f binomial SE (SE %.2e)",
              tau, observed, expected, error, se == 0 ? 0 : error / se, se)
          .isCloseTo(0, within(Math.max(4.5 * se, 1e-5)));
    }

    @Test
    void commonModeMakesAllDuplicatesSlowTogether() {
      // Independent anomalies (1 %) plus common-mode 10 ms slowdowns (4 %): "slow" is a service
      // time > 3 ms.
      // At 1 access/s queueing is negligible (a slow access delays the next with probability ~1e-2
      // * 0.04).
      LatencyDistribution service =
          anomalyMixture(truncatedNormal(1, 0.1), shifted(exponential(5), 5), 0.01);
      Simulation.Builder b =
          Simulation.builder()
              .strategy(Strategy.predictability(4))
              .serviceTime(service)
              .arrivalRatePerSec(1)
              .accesses(100_000)
              .seed(23);

      double[][] withCommon = b.commonMode(0.04, constant(10)).build().run().pairedServiceMs();
      double joint = fractionAllSlow(withCommon, 3);
      double product = productOfMarginals(withCommon, 3);
      // Joint should be 0.04 + 0.01^4 * 0.96 (binomial SE 6e-4); the product of marginals ~0.0495^4
      // = 6e-6.
      assertThat(joint)
          .as("P(all 4 slow) = %.5f vs independent product %.2e", joint, product)
          .isGreaterThan(1000 * product)
          .isCloseTo(0.04, within(0.003));

      double[][] independent = b.commonMode(0, constant(10)).build().run().pairedServiceMs();
      double jointIndependent = fractionAllSlow(independent, 3);
      // Expected 1e-8: not one of 1e5 accesses should have all four slow.
      assertThat(jointIndependent)
          .as("P(all 4 slow) without common mode")
          .isLessThanOrEqualTo(2e-5);
    }

    @Test
    void commonModeCapsTheSlaThatDuplicatesCanReach() {
      LatencyDistribution service = truncatedNormal(1, 0.1);
      Simulation.Builder b =
          Simulation.builder()
              .strategy(Strategy.predictability(4))
              .serviceTime(service)
              .arrivalRatePerSec(1)
              .accesses(100_000)
              .seed(24);
      double without = b.build().run().sla(3);
      double with = b.commonMode(0.04, constant(10)).build().run().sla(3);
      assertThat(without).isEqualTo(1.0);
      // 4 % of accesses are slow everywhere: SLA 0.96 (binomial SE 6e-4).
      assertThat(with).as("SLA with 4 %% common mode: %.5f", with).isCloseTo(0.96, within(0.003));
    }

    private double fractionAllSlow(double[][] rows, double thresholdMs) {
      long all =
          Arrays.stream(rows)
              .filter(row -> Arrays.stream(row).allMatch(s -> s > thresholdMs))
              .count();
      return (double) all / rows.length;
    }

    private double productOfMarginals(double[][] rows, double thresholdMs) {
      double product = 1;
      for (int j = 0; j < rows[0].length; j++) {
        int col = j;
        long slow = Arrays.stream(rows).filter(row -> row[col] > thresholdMs).count();
        product *= (double) slow / rows.length;
      }
      return product;
    }
  }

  @Nested
  class ReplicationForThroughput {

    @Test
    void eachOfRReplicasCarriesOneRthOfTheLoad() {
      // Total offered load 2 (2000/s x 1 ms) over 4 replicas: rho = 0.5 each, M/M/1 wait 1 ms each.
      // Measured over 20 seeds: sd 0.002 for the utilisation, 0.016 ms for the mean wait.
      int r = 4;
      long accesses = 400_000;
      SimulationResult result =
          Simulation.builder()
              .strategy(Strategy.throughput(r))
              .serviceTime(exponential(1))
              .arrivalRatePerSec(2000)
              .accesses(accesses)
              .seed(31)
              .build()
              .run();
      double binomialSd = Math.sqrt(accesses * (1.0 / r) * (1 - 1.0 / r));
      for (int node = 0; node < r; node++) {
        assertThat(result.utilisation(node))
            .as("utilisation of node %d", node)
            .isCloseTo(0.5, within(0.012));
        assertThat(result.meanWaitMs(node))
            .as("mean wait of node %d", node)
            .isCloseTo(1.0, within(0.08));
        assertThat((double) result.accessesServed(node))
            .as("accesses served by node %d", node)
            .isCloseTo(accesses / (double) r, within(5 * binomialSd));
      }
    }

    @Test
    void rpLoadsEveryDuplicateWithTheWholeStream() {
      SimulationResult result =
          Simulation.builder()
              .strategy(Strategy.predictability(4))
              .serviceTime(exponential(1))
              .arrivalRatePerSec(500)
              .accesses(200_000)
              .seed(32)
              .build()
              .run();
      for (int node = 0; node < 4; node++) {
        assertThat(result.accessesServed(node)).isEqualTo(200_000);
        assertThat(result.utilisation(node))
            .as("utilisation of node %d", node)
            .isCloseTo(0.5, within(0.015));
      }
    }

    @Test
    void aMixSplitsAcrossSetsAndDuplicatesShareTheirSetsAccesses() {
      SimulationResult result =
          Simulation.builder()
              .strategy(Strategy.mix(2, 2))
              .serviceTime(exponential(1))
              .arrivalRatePerSec(1000)
              .accesses(200_000)
              .seed(33)
              .build()
              .run();
      assertThat(result.accessesServed(0)).isEqualTo(result.accessesServed(1));
      assertThat(result.accessesServed(2)).isEqualTo(result.accessesServed(3));
      assertThat(result.accessesServed(0) + result.accessesServed(2)).isEqualTo(200_000);
      for (int node = 0; node < 4; node++) {
        assertThat(result.utilisation(node))
            .as("utilisation of node %d", node)
            .isCloseTo(0.5, within(0.015));
      }
    }
  }

  @Nested
  class Reproducibility {
    private final Simulation.Builder builder =
        Simulation.builder()
            .strategy(Strategy.mix(2, 3))
            .serviceTime(logNormalWithMean(1, 2))
            .arrivalRatePerSec(800)
            .networkDelay(gamma(4, 0.05))
            .commonMode(0.02, exponential(5))
            .accesses(50_000);

    @Test
    void sameSeedGivesIdenticalResults() {
      Simulation sim = builder.seed(7).build();
      SimulationResult a = sim.run();
      SimulationResult b = sim.run();
      SimulationResult c = builder.seed(7).build().run();
      for (SimulationResult other : List.of(b, c)) {
        assertThat(other.pairedServiceMs()).isDeepEqualTo(a.pairedServiceMs());
        assertThat(other.simulatedTimeMs()).isEqualTo(a.simulatedTimeMs());
        for (double p = 0; p <= 1; p += 0.01) {
          assertThat(other.responseTime().quantile(p)).isEqualTo(a.responseTime().quantile(p));
        }
        for (int node = 0; node < 6; node++) {
          assertThat(other.meanWaitMs(node)).isEqualTo(a.meanWaitMs(node));
          assertThat(other.utilisation(node)).isEqualTo(a.utilisation(node));
          assertThat(other.accessesServed(node)).isEqualTo(a.accessesServed(node));
        }
      }
    }

    @Test
    void differentSeedGivesDifferentResults() {
      SimulationResult a = builder.seed(7).build().run();
      SimulationResult b = builder.seed(8).build().run();
      assertThat(b.pairedServiceMs()[0]).isNotEqualTo(a.pairedServiceMs()[0]);
      assertThat(b.responseTime().meanMs()).isNotEqualTo(a.responseTime().meanMs());
      assertThat(b.meanWaitMs(0)).isNotEqualTo(a.meanWaitMs(0));
    }

    @Test
    void changingTheNetworkLeavesServiceDrawsUnchanged() {
      SimulationResult a = builder.seed(9).build().run();
      SimulationResult b = builder.seed(9).networkDelay(constant(3)).build().run();
      assertThat(b.pairedServiceMs()).isDeepEqualTo(a.pairedServiceMs());
      assertThat(b.responseTime().meanMs()).isNotEqualTo(a.responseTime().meanMs());
    }
  }

  @Nested
  class Validation {

    static Stream<Arguments> badArguments() {
      return Stream.of(
          bad("strategy", NullPointerException.class, b -> b.strategy(null)),
          bad("serviceTime", NullPointerException.class, b -> b.serviceTime(null)),
          bad("serviceTimes", NullPointerException.class, b -> b.serviceTimes(null)),
          bad("serviceTimes", IllegalArgumentException.class, b -> b.serviceTimes(List.of())),
          bad(
              "serviceTimes[1]",
              NullPointerException.class,
              b -> b.serviceTimes(Arrays.asList(constant(1), null))),
          bad("arrivalRatePerSec", IllegalArgumentException.class, b -> b.arrivalRatePerSec(0)),
          bad("arrivalRatePerSec", IllegalArgumentException.class, b -> b.arrivalRatePerSec(-1)),
          bad(
              "arrivalRatePerSec",
              IllegalArgumentException.class,
              b -> b.arrivalRatePerSec(Double.NaN)),
          bad(
              "arrivalRatePerSec",
              IllegalArgumentException.class,
              b -> b.arrivalRatePerSec(Double.POSITIVE_INFINITY)),
          bad("interArrivalTime", NullPointerException.class, b -> b.interArrivalTime(null)),
          bad(
              "interArrivalTime",
              IllegalArgumentException.class,
              b -> b.interArrivalTime(constant(0))),
          bad("networkDelay", NullPointerException.class, b -> b.networkDelay(null)),
          bad(
              "commonMode probability",
              IllegalArgumentException.class,
              b -> b.commonMode(-0.1, constant(1))),
          bad(
              "commonMode probability",
              IllegalArgumentException.class,
              b -> b.commonMode(1.1, constant(1))),
          bad(
              "commonMode probability",
              IllegalArgumentException.class,
              b -> b.commonMode(Double.NaN, constant(1))),
          bad("commonMode extraDelay", NullPointerException.class, b -> b.commonMode(0.1, null)),
          bad("accesses", IllegalArgumentException.class, b -> b.accesses(0)),
          bad("accesses", IllegalArgumentException.class, b -> b.accesses(-5)),
          bad(
              "accesses",
              IllegalArgumentException.class,
              b -> b.accesses(Simulation.MAX_ACCESSES + 1)),
          bad("warmupAccesses", IllegalArgumentException.class, b -> b.warmupAccesses(-1)),
          bad("pairedSampleLimit", IllegalArgumentException.class, b -> b.pairedSampleLimit(-1)),
          // Checked when the arguments meet, in build().
          bad(
              "serviceTimes",
              IllegalArgumentException.class,
              b -> b.serviceTimes(List.of(constant(1))).build()),
          bad(
              "warmupAccesses + accesses",
              IllegalArgumentException.class,
              b -> b.warmupAccesses(Long.MAX_VALUE).build()),
          bad(
              "pairedSampleLimit",
              IllegalArgumentException.class,
              b ->
                  b.strategy(Strategy.predictability(64))
                      .accesses(Simulation.MAX_ACCESSES)
                      .pairedSampleLimit(Integer.MAX_VALUE)
                      .build()));
    }

    private static Arguments bad(
        String field, Class<? extends Throwable> type, Consumer<Simulation.Builder> call) {
      return Arguments.of(field, type, call);
    }

    private static Simulation.Builder valid() {
      return Simulation.builder()
          .strategy(Strategy.predictability(2))
          .serviceTime(exponential(1))
          .arrivalRatePerSec(100);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("badArguments")
    void badArgumentIsRejectedNamingTheField(
        String field, Class<? extends Throwable> type, Consumer<Simulation.Builder> call) {
      assertThatThrownBy(() -> call.accept(valid())).isInstanceOf(type).hasMessageContaining(field);
    }

    @Test
    void missingRequiredSettingsFailTheBuild() {
      assertThatThrownBy(
              () -> Simulation.builder().serviceTime(constant(1)).arrivalRatePerSec(1).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("strategy");
      assertThatThrownBy(
              () ->
                  Simulation.builder()
                      .strategy(Strategy.predictability(1))
                      .arrivalRatePerSec(1)
                      .build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("serviceTime");
      assertThatThrownBy(
              () ->
                  Simulation.builder()
                      .strategy(Strategy.predictability(1))
                      .serviceTime(constant(1))
                      .build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("arrivalRatePerSec");
    }

    @Test
    void resultQueriesRejectBadArguments() {
      SimulationResult r = valid().accesses(100).build().run();
      assertThatThrownBy(() -> r.sla(-1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("tauMs");
      assertThatThrownBy(() -> r.sla(Double.NaN))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("tauMs");
      assertThatThrownBy(() -> r.meanWaitMs(2))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("node");
      assertThatThrownBy(() -> r.utilisation(-1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("node");
      assertThatThrownBy(() -> r.accessesServed(2))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("node");
    }

    @Test
    void theLastOfTwoAlternativesWinsAndTheSimulationIgnoresLaterBuilderChanges() {
      Simulation.Builder b =
          Simulation.builder()
              .strategy(Strategy.predictability(1))
              .serviceTime(constant(1))
              .arrivalRatePerSec(1)
              .interArrivalTime(constant(0.5))
              .warmupAccesses(0)
              .accesses(10);
      Simulation sim = b.build();
      b.serviceTimes(List.of(constant(5))).arrivalRatePerSec(1000);
      // D/D/1 with gap 0.5 and service 1: access i waits i * 0.5 ms.
      assertThat(sim.run().meanWaitMs(0)).isCloseTo(0.5 * 4.5, within(1e-9));
      assertThat(b.build().run().responseTime().minMs()).isEqualTo(5);
    }
  }
}

package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;
import static io.zoolander.model.internal.Preconditions.checkNotNull;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The distribution-level model: the latency a client sees from duplicate n is {@code net + W + S},
 * where network delay {@code net}, waiting time {@code W} and service time {@code S} are combined
 * as distributions, not as means subtracted from tau.
 *
 * <p>The waiting time is the exact M/G/1 waiting-time distribution (Pollaczek-Khinchine / Benes):
 * {@code W} is a geometric sum of residual service times, {@code P(W <= x) = sum_k (1 - rho) rho^k
 * R^{*k}(x)} with residual density {@code (1 - B(x)) / E[S]}. Everything is discretised on a grid
 * of {@code gridPoints} cells over {@code [0, tau]} (values rounded to the nearest cell), the
 * geometric sum solved by its recursion and the three variables convolved: {@code O(gridPoints^2)}
 * per distinct duplicate, a few milliseconds at the default 1024 cells.
 *
 * <p>Assumes Poisson arrivals ({@code arrivalScv = 1}); for other arrival streams use {@link
 * ThesisModel} with {@link QueueingModel#GG1}.
 */
public final class DistributionModel implements SlaModel {
  /** Default grid resolution over {@code [0, tau]}. */
  public static final int DEFAULT_GRID_POINTS = 1024;

  private static final int RESIDUAL_SUBSTEPS = 4;

  private final int gridPoints;
  private final AnomalyDependence dependence;

  private DistributionModel(int gridPoints, AnomalyDependence dependence) {
    this.gridPoints = gridPoints;
    this.dependence = dependence;
  }

  /** The distribution-level model with the default grid and independent duplicates. */
  public static DistributionModel create() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public SlaPrediction predict(Deployment deployment, double tauMs) {
    checkNotNull(deployment, "deployment");
    checkNonNegative(tauMs, "tauMs");
    if (deployment.arrivalScv() != 1) {
      throw new IllegalArgumentException(
          "deployment.arrivalScv must be 1 (Poisson) for the distribution model, was "
              + deployment.arrivalScv()
              + "; use ThesisModel with QueueingModel.GG1");
    }
    List<Deployment.Duplicate> duplicates = deployment.duplicates();
    int n = duplicates.size();
    double lambda = deployment.arrivalRatePerSec();
    double maxRho = 0;
    for (Deployment.Duplicate d : duplicates) {
      maxRho = Math.max(maxRho, QueueingModel.utilisation(lambda, d.serviceTime()));
    }
    if (maxRho >= 1) {
      return SlaPrediction.unstable(tauMs, maxRho, n);
    }
    double[] onTime = new double[n];
    double[] bounds = new double[n];
    Map<Deployment.Duplicate, Double> computed = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Deployment.Duplicate d = duplicates.get(i);
      onTime[i] = computed.computeIfAbsent(d, dup -> onTimeProbability(dup, lambda, tauMs));
      double meanWait = QueueingModel.MG1.meanWaitMs(lambda, d.serviceTime(), 1);
      bounds[i] = tauMs - d.networkDelay().meanMs() - meanWait;
    }
    double sla = dependence.firstReplyOnTime(onTime, bounds);
    return new SlaPrediction(SlaPrediction.Status.STABLE, sla, tauMs, maxRho, onTime);
  }

  /** {@code P(net + W + S <= tau)} for one duplicate. */
  private double onTimeProbability(Deployment.Duplicate duplicate, double lambda, double tauMs) {
    if (tauMs == 0) {
      return duplicate.networkDelay().cdf(0)
          * waitAtZero(duplicate, lambda)
          * duplicate.serviceTime().cdf(0);
    }
    int g = gridPoints;
    double h = tauMs / g;
    LatencyDistribution service = duplicate.serviceTime();
    double[] serviceMass = discretise(service, h, g);
    double[] waitMass = waitingTimeMass(service, lambda, h, g);
    // CDF of W + S on the grid: cumulative of their convolution.
    double[] sumCdf = new double[g + 1];
    double running = 0;
    for (int k = 0; k <= g; k++) {
      double mass = 0;
      for (int j = 0; j <= k; j++) {
        mass += waitMass[j] * serviceMass[k - j];
      }
      running += mass;
      sumCdf[k] = running;
    }
    double[] netMass = discretise(duplicate.networkDelay(), h, g);
    double onTime = 0;
    for (int j = 0; j <= g; j++) {
      onTime += netMass[j] * sumCdf[g - j];
    }
    return Math.max(0, Math.min(1, onTime));
  }

  private static double waitAtZero(Deployment.Duplicate duplicate, double lambda) {
    return 1 - QueueingModel.utilisation(lambda, duplicate.serviceTime());
  }

  /** Mass of cells {@code 0..g}: cell j holds {@code [(j - 1/2) h, (j + 1/2) h)}. */
  private static double[] discretise(LatencyDistribution d, double h, int g) {
    double[] mass = new double[g + 1];
    double previous = 0;
    for (int j = 0; j <= g; j++) {
      double upper = d.cdf((j + 0.5) * h);
      mass[j] = Math.max(0, upper - previous);
      previous = upper;
    }
    return mass;
  }

  /**
   * The M/G/1 waiting time discretised on the grid: {@code w = (1 - rho) delta_0 + rho (r * w)},
   * with r the residual service time, solved cell by cell.
   */
  private static double[] waitingTimeMass(
      LatencyDistribution service, double lambda, double h, int g) {
    double rho = QueueingModel.utilisation(lambda, service);
    double[] wait = new double[g + 1];
    if (rho == 0) {
      wait[0] = 1;
      return wait;
    }
    double[] residual = residualMass(service, h, g);
    double denominator = 1 - rho * residual[0];
    wait[0] = (1 - rho) / denominator;
    for (int k = 1; k <= g; k++) {
      double s = 0;
      for (int j = 1; j <= k; j++) {
        s += residual[j] * wait[k - j];
      }
      wait[k] = rho * s / denominator;
    }
    return wait;
  }

  /**
   * Residual service time R with density {@code (1 - B(x)) / E[S]}, integrated by the midpoint rule
   * per cell.
   */
  private static double[] residualMass(LatencyDistribution service, double h, int g) {
    double mean = service.meanMs();
    double[] mass = new double[g + 1];
    double step = h / RESIDUAL_SUBSTEPS;
    double x = 0;
    for (int j = 0; j <= g; j++) {
      double upper = (j + 0.5) * h;
      double integral = 0;
      while (x < upper - 1e-12 * h) {
        double width = Math.min(step, upper - x);
        integral += (1 - service.cdf(x + width / 2)) * width;
        x += width;
      }
      mass[j] = integral / mean;
    }
    return mass;
  }

  @Override
  public String toString() {
    return "DistributionModel[grid=" + gridPoints + ", " + dependence + "]";
  }

  /** Builds a {@link DistributionModel}. */
  public static final class Builder {
    private int gridPoints = DEFAULT_GRID_POINTS;
    private AnomalyDependence dependence = AnomalyDependence.independent();

    private Builder() {}

    /**
     * Grid cells over {@code [0, tau]}, at least 16; more is more accurate and quadratically
     * slower.
     */
    public Builder gridPoints(int gridPoints) {
      if (gridPoints < 16) {
        throw new IllegalArgumentException("gridPoints must be >= 16, was " + gridPoints);
      }
      this.gridPoints = gridPoints;
      return this;
    }

    /** How duplicates' slow events relate; independent by default. */
    public Builder dependence(AnomalyDependence dependence) {
      this.dependence = checkNotNull(dependence, "dependence");
      return this;
    }

    public DistributionModel build() {
      return new DistributionModel(gridPoints, dependence);
    }
  }
}

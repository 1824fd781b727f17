package io.zoolander.model;

import static io.zoolander.model.internal.Preconditions.checkNonNegative;
import static io.zoolander.model.internal.Preconditions.checkNotNull;
import static io.zoolander.model.internal.Preconditions.checkPositive;

import java.util.ArrayList;
import java.util.List;

/**
 * One replica set as a model sees it: its duplicates (each with a service-time and a round-trip
 * network-delay distribution) and the arrival stream every one of them serves. Immutable.
 */
public final class Deployment {

  /**
   * One duplicate: its service time and the round-trip network delay between the client and it.
   *
   * @param serviceTime time the duplicate takes to serve one access, excluding queueing
   * @param networkDelay round-trip network delay
   */
  public record Duplicate(LatencyDistribution serviceTime, LatencyDistribution networkDelay) {
    public Duplicate {
      checkNotNull(serviceTime, "serviceTime");
      checkNotNull(networkDelay, "networkDelay");
    }
  }

  private final List<Duplicate> duplicates;
  private final double arrivalRatePerSec;
  private final double arrivalScv;

  private Deployment(List<Duplicate> duplicates, double arrivalRatePerSec, double arrivalScv) {
    this.duplicates = List.copyOf(duplicates);
    this.arrivalRatePerSec = arrivalRatePerSec;
    this.arrivalScv = arrivalScv;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * {@code count} identical duplicates with no network delay, serving Poisson arrivals at {@code
   * arrivalRatePerSec}.
   */
  public static Deployment homogeneous(
      int count, LatencyDistribution serviceTime, double arrivalRatePerSec) {
    return builder().duplicates(count, serviceTime).arrivalRatePerSec(arrivalRatePerSec).build();
  }

  public List<Duplicate> duplicates() {
    return duplicates;
  }

  public int size() {
    return duplicates.size();
  }

  /** Arrivals per second that every duplicate serves. */
  public double arrivalRatePerSec() {
    return arrivalRatePerSec;
  }

  /** Squared coefficient of variation of inter-arrival times (1 for Poisson). */
  public double arrivalScv() {
    return arrivalScv;
  }

  /** The same duplicates under another arrival rate. */
  public Deployment withArrivalRate(double arrivalRatePerSec) {
    checkNonNegative(arrivalRatePerSec, "arrivalRatePerSec");
    return new Deployment(duplicates, arrivalRatePerSec, arrivalScv);
  }

  /**
   * The first {@code count} duplicates, or copies of the last one when {@code count} exceeds {@link
   * #size()}.
   */
  public Deployment withDuplicates(int count) {
    checkPositive(count, "count");
    List<Duplicate> resized = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      resized.add(duplicates.get(Math.min(i, duplicates.size() - 1)));
    }
    return new Deployment(resized, arrivalRatePerSec, arrivalScv);
  }

  @Override
  public String toString() {
    return "Deployment[duplicates=" + duplicates.size() + ", lambda=" + arrivalRatePerSec + "/s]";
  }

  /** Builds a {@link Deployment}; validates every argument as it is given. */
  public static final class Builder {
    private final List<Duplicate> duplicates = new ArrayList<>();
    private LatencyDistribution networkDelay = LatencyDistributions.constant(0);
    private double arrivalRatePerSec = Double.NaN;
    private double arrivalScv = 1;

    private Builder() {}

    /**
     * Round-trip network delay for the duplicates added after this call without their own (default:
     * none). Set it before adding duplicates.
     */
    public Builder networkDelay(LatencyDistribution networkDelay) {
      this.networkDelay = checkNotNull(networkDelay, "networkDelay");
      return this;
    }

    /** Adds one duplicate with the builder's network delay. */
    public Builder duplicate(LatencyDistribution serviceTime) {
      duplicates.add(new Duplicate(serviceTime, networkDelay));
      return this;
    }

    /** Adds one duplicate with its own network delay. */
    public Builder duplicate(LatencyDistribution serviceTime, LatencyDistribution networkDelay) {
      duplicates.add(new Duplicate(serviceTime, networkDelay));
      return this;
    }

    /** Adds {@code count} identical duplicates. */
    public Builder duplicates(int count, LatencyDistribution serviceTime) {
      checkPositive(count, "count");
      checkNotNull(serviceTime, "serviceTime");
      for (int i = 0; i < count; i++) {
        duplicate(serviceTime);
      }
      return this;
    }

    /** Arrivals per second every duplicate serves (required). */
    public Builder arrivalRatePerSec(double arrivalRatePerSec) {
      this.arrivalRatePerSec = checkNonNegative(arrivalRatePerSec, "arrivalRatePerSec");
      return this;
    }

    /** Squared coefficient of variation of inter-arrival times; 1 (Poisson) by default. */
    public Builder arrivalScv(double arrivalScv) {
      this.arrivalScv = checkNonNegative(arrivalScv, "arrivalScv");
      return this;
    }

    /**
     * @throws IllegalArgumentException if there are no duplicates
     * @throws IllegalStateException if the arrival rate was not set
     */
    public Deployment build() {
      if (duplicates.isEmpty()) {
        throw new IllegalArgumentException(
            "duplicates must not be empty: add at least one duplicate");
      }
      if (Double.isNaN(arrivalRatePerSec)) {
        throw new IllegalStateException("arrivalRatePerSec must be set");
      }
      return new Deployment(duplicates, arrivalRatePerSec, arrivalScv);
    }
  }
}

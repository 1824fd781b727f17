package io.zoolander.client.balance;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What one partition carries and can take, as a {@link PartitionProbe} sees it in one period.
 *
 * @param nameWriteRatesPerSec writes per second to each top-level name (without its slash), as the
 *     partition's repeater measures them ({@code Repeater.nameWriteRates()}, the JMX attribute
 *     {@code NameWriteRates}); names a balancer cannot move (the route record, the repeater's
 *     "(other names)") count in the partition's rate but are never moved
 * @param capacityPerSec the highest write rate at which the partition is predicted to meet the
 *     target ({@code Repeater.writeCapacityPerSec(targetSla, tauMs)}); NaN when unknown (a
 *     partition with no recent writes has no latencies to predict from)
 */
public record PartitionLoad(Map<String, Double> nameWriteRatesPerSec, double capacityPerSec) {

  /**
   * @throws NullPointerException if the rates or a name is null
   * @throws IllegalArgumentException if a rate is negative or not finite, or the capacity is
   *     negative or infinite
   */
  public PartitionLoad {
    Objects.requireNonNull(nameWriteRatesPerSec, "nameWriteRatesPerSec must not be null");
    Map<String, Double> copy = new LinkedHashMap<>();
    nameWriteRatesPerSec.forEach(
        (name, rate) -> {
          Objects.requireNonNull(name, "nameWriteRatesPerSec: a name is null");
          if (rate == null || !(rate >= 0) || rate.isInfinite()) {
            throw new IllegalArgumentException(
                "nameWriteRatesPerSec: the rate of '"
                    + name
                    + "' must be finite and >= 0, was "
                    + rate);
          }
          copy.put(name, rate);
        });
    if (capacityPerSec < 0 || Double.isInfinite(capacityPerSec)) {
      throw new IllegalArgumentException(
          "capacityPerSec must be finite and >= 0, or NaN when unknown, was " + capacityPerSec);
    }
    nameWriteRatesPerSec = Collections.unmodifiableMap(copy);
  }

  /** The partition's write rate: the sum of its names' rates. */
  public double ratePerSec() {
    double sum = 0;
    for (double rate : nameWriteRatesPerSec.values()) {
      sum += rate;
    }
    return sum;
  }

  /** Whether the capacity is known. */
  public boolean capacityKnown() {
    return !Double.isNaN(capacityPerSec);
  }
}

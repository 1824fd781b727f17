package io.zoolander.client.balance;

/**
 * How a {@link PartitionBalancer} sees one partition each period: its per-name write rates and its
 * capacity at the target. Over an embedded or in-process repeater, {@code () -> new
 * PartitionLoad(repeater.nameWriteRates(), repeater.writeCapacityPerSec(targetSla, tauMs))}; over
 * JMX, the repeater MBean's {@code NameWriteRates} attribute and the predictor MBean's {@code
 * writeCapacityPerSec} operation.
 *
 * <p>Called on the balancer's thread, once per period; it may block (a JMX call), not for long. A
 * probe that throws makes the period hold: nothing is decided from part of the deployment.
 */
@FunctionalInterface
public interface PartitionProbe {
  /** The partition's load now. */
  PartitionLoad load() throws Exception;
}

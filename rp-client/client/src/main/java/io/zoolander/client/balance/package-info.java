/**
 * A balancer that follows the write load across the partitions of a deployment by moving top-level
 * names between them online ({@link io.zoolander.client.balance.PartitionBalancer}).
 *
 * <h2>The model</h2>
 *
 * <p>Each partition is one sequencer with its own duplicates; its writes are the sum of the writes
 * to the top-level names it serves. Its repeater measures both sides of the question: the write
 * rate of each name over a window ({@code Repeater.nameWriteRates()}), and the highest write rate
 * at which its duplicates are predicted to meet the target SLA at tau ({@code
 * Repeater.writeCapacityPerSec}, the model's engine over the live ACK latencies). A partition above
 * a high mark of its capacity is about to miss the target: it sheds its busiest name that fits in
 * another partition. A partition whose whole rate fits under a low mark of another's capacity
 * wastes a sequencer and its duplicates: it is drained into the other, one name per move, once the
 * lull has lasted. Spares (partitions without writes) take names only when no busy partition has
 * room, so that they can stay idle.
 *
 * <p>Moves are {@link io.zoolander.client.PartitionedClient#moveName}'s: online, each name's writes
 * wait while it is copied, no write lost or applied twice. The rules and their hysteresis are
 * written down in {@link io.zoolander.client.internal.balance.PartitionPolicy}.
 */
package io.zoolander.client.balance;

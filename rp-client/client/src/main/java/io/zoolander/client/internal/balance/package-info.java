/**
 * The partition balancer's rules ({@link io.zoolander.client.internal.balance.PartitionPolicy}),
 * pure and clocked by a ticker. Internal: use {@link
 * io.zoolander.client.balance.PartitionBalancer}.
 */
package io.zoolander.client.internal.balance;

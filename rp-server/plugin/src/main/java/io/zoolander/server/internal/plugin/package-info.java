/**
 * Implementation of the Zoolander plugin ({@link io.zoolander.server.plugin}): the applier state
 * machine, the plugin's Netty server and its ZooKeeper session. Not a public API.
 *
 * <p>Threads: Netty's event loops run {@link io.zoolander.server.internal.plugin.ConnectionHandler}
 * and only hand messages over; one applier thread per plugin ({@link
 * io.zoolander.server.internal.plugin.Applier}) owns the rest, split by concern into classes it
 * alone calls (applying writes, gap tracking, read gating, epochs, recovery, state transfer), each
 * asserting that it runs there. ZooKeeper is reached through the plugin's own session only.
 *
 * <p>State transfer ({@link io.zoolander.server.internal.plugin.StateTransfer}): the healthy plugin
 * takes the snapshot on its applier thread, between two applied writes, because it is the only
 * writer of its tree: no write can come between the reads, so the snapshot is the state at its
 * applied seq without stopping anyone else; the rejoining plugin installs it, because only the
 * plugin's identity may write its data root. See {@code io.zoolander.server.repeater} (module
 * zoolander-repeater) for the whole protocol and its triggers.
 */
package io.zoolander.server.internal.plugin;

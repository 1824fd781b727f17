/**
 * Implementation of the Zoolander plugin ({@link io.zoolander.server.plugin}): the applier state
 * machine, the plugin's Netty server and its ZooKeeper session. Not a public API.
 *
 * <p>State transfer ({@link io.zoolander.server.internal.plugin.StateTransfer}): the healthy plugin
 * takes the snapshot on its applier thread, between two applied writes, because it is the only
 * writer of its tree: no write can come between the reads, so the snapshot is the state at its
 * applied seq without stopping anyone else; the rejoining plugin installs it, because only the
 * plugin's identity may write its data root. See {@link io.zoolander.server.repeater} for the whole
 * protocol and its triggers.
 */
package io.zoolander.server.internal.plugin;

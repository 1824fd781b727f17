/**
 * Implementation of the Zoolander plugin ({@link io.zoolander.server.plugin}): the applier state machine, the
 * plugin's Netty server and its ZooKeeper session. Not a public API.
 */
package io.zoolander.server.internal.plugin;

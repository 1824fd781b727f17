/**
 * Internal: not for users. How a sequenced write becomes one ZooKeeper {@code multi} (the plugin's
 * bookkeeping ops, then the write's ops under the data root), and the request-size rule the
 * repeater checks before it sequences a write, so that the two can never disagree about what fits
 * in {@code jute.maxbuffer}.
 */
package io.zoolander.server.internal.zk;

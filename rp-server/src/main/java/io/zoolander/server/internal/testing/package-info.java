/**
 * Implementation of {@link io.zoolander.server.testing.ZooKeeperEnsemble}: the child JVM's entry
 * point, port allocation and the four-letter-word probe. Not a public API.
 */
package io.zoolander.server.internal.testing;

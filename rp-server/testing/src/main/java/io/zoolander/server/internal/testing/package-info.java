/**
 * Implementation of {@link io.zoolander.server.testing.ZooKeeperEnsemble} and {@link
 * io.zoolander.server.testing.RepeaterProcess}: the child JVMs' entry points, port allocation and
 * the four-letter-word probe. Not a public API.
 */
package io.zoolander.server.internal.testing;

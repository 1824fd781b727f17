/**
 * The Zoolander client: {@link io.zoolander.client.ZoolanderClient} and what it takes and returns.
 *
 * <p>Nothing here is null unless marked {@link org.jspecify.annotations.Nullable @Nullable}.
 */
@NullMarked
package io.zoolander.client;

import org.jspecify.annotations.NullMarked;

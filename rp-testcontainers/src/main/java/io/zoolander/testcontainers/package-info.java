/**
 * Testcontainers support: Zoolander's server and repeater as containers, for users' tests.
 *
 * <ul>
 *   <li>{@link io.zoolander.testcontainers.ZoolanderContainerCluster}: a whole deployment
 *       (duplicates and a repeater) with a ready client builder, tree digests and kills;
 *   <li>{@link io.zoolander.testcontainers.ZoolanderContainerPartitions}: a partitioned deployment,
 *       one such cluster per partition, with clients that route across them;
 *   <li>{@link io.zoolander.testcontainers.ZoolanderServerContainer} and {@link
 *       io.zoolander.testcontainers.ZoolanderRepeaterContainer}: one server, one repeater;
 *   <li>{@link io.zoolander.testcontainers.ZoolanderImages}: the images they run, existing ones or
 *       built from a checkout's {@code docker/}.
 * </ul>
 *
 * <p>Every container runs in the host's network namespace and binds 127.0.0.1 on free ports.
 */
package io.zoolander.testcontainers;

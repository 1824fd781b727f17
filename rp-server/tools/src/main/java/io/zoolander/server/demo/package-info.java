/**
 * The {@code zoolander demo}: an embedded deployment, a measured latency distribution, an open-loop
 * workload for several duplicate counts, and the model's predictions beside what was observed.
 */
package io.zoolander.server.demo;

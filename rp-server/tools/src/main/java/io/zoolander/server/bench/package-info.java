/**
 * The end-to-end benchmark behind {@code zoolander bench}: plain ZooKeeper, replication for
 * throughput, client-side hedged reads and Zoolander RP with 1, 2, 4... duplicates, measured on the
 * same embedded ensembles with the same open-loop workload, without and with the anomaly injector;
 * results as JSON, Markdown and PNG charts. See {@code docs/benchmarks.md} for the method and the
 * numbers.
 */
package io.zoolander.server.bench;

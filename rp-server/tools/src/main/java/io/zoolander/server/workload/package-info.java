/**
 * Open-loop workload generation for the demo, the validation tests and the benchmarks: Poisson
 * arrivals at a stated rate, latency timed from each access's <em>intended</em> send time (so a
 * stalled server cannot hide its stall by slowing the generator down: no coordinated omission),
 * recorded in HdrHistograms, bounded in count and time.
 */
package io.zoolander.server.workload;

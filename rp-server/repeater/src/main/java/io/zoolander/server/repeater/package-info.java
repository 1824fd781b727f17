/**
 * The repeater: the server that receives every write, stamps it with {@code (epoch, seq)} and
 * streams it, in order, to every duplicate's plugin. Start one with {@link
 * io.zoolander.server.repeater.Repeater#builder()}; the protocol it speaks is the write-path
 * contract of {@code docs/architecture.md}.
 *
 * <h2>Back-pressure and fencing</h2>
 *
 * <p>A slow duplicate never stalls the others, and memory stays bounded:
 *
 * <ul>
 *   <li>Each plugin connection stops being written when its outbound queue reaches {@link
 *       io.zoolander.server.repeater.RepeaterSettings#PLUGIN_WRITE_HIGH_WATER_MARK_BYTES}; it
 *       resumes from the log, in order, when it drains.
 *   <li>The log holds at most {@code logCapacity} messages. It is trimmed at the lowest seq acked
 *       by the non-fenced duplicates (a disconnected one keeps holding it, with its last known
 *       applied seq).
 *   <li>When the log is full, the oldest entry is evicted if at least one non-fenced duplicate has
 *       acked it: the write path goes on, and a duplicate that still needs the evicted entry is
 *       fenced (at once if connected, when it reconnects otherwise). If no duplicate has acked it,
 *       the WRITE is refused with {@code OVERLOADED} (retry after {@link
 *       io.zoolander.server.repeater.RepeaterSettings#OVERLOADED_RETRY_AFTER_MILLIS}) rather than
 *       fencing every duplicate.
 *   <li>When even the most advanced non-fenced duplicate is {@link
 *       io.zoolander.server.repeater.RepeaterSettings#CLIENT_PAUSE_UNACKED_PERCENT}% of the log
 *       capacity behind, every duplicate is slow: the system is overloaded. The repeater then stops
 *       reading client connections (TCP pushes back on the clients) until one is back within {@link
 *       io.zoolander.server.repeater.RepeaterSettings#CLIENT_RESUME_UNACKED_PERCENT}%, so
 *       OVERLOADED refusals are a last resort for WRITEs already read.
 *   <li>A duplicate is also fenced when it (re)connects with an applied seq whose successor the log
 *       no longer holds (or never held: a duplicate that was behind when this repeater started),
 *       when it asks to retransmit such a range, and when it reports itself fenced. A fenced
 *       duplicate is sent {@code ERROR(FENCED)} and nothing more; it needs a state transfer.
 * </ul>
 *
 * <h2>State transfer</h2>
 *
 * A fenced duplicate (or one brought back empty or stale) rejoins by state transfer, {@link
 * io.zoolander.server.repeater.Repeater#rejoin}: a snapshot of a healthy duplicate's data root and
 * client records with the applied seq it is the state after, installed in place of its own, after
 * which the repeater streams to it from that seq out of the log. The repeater starts one by itself
 * ({@link io.zoolander.server.repeater.Repeater.Builder#autoRejoin}, on by default) for a duplicate
 * that comes back needing writes the log no longer holds, asks to retransmit such writes, or whose
 * plugin reports itself fenced (also after an interrupted install); not for a slow duplicate
 * evicted from the full log (a transfer would not make it faster), one fenced by {@link
 * io.zoolander.server.repeater.Repeater#fence}: those wait for an operator's rejoin. An automatic
 * rejoin that fails is tried again after 1 s, doubling up to 30 s, until one succeeds (not when the
 * snapshot is too large; a rejoin the operator asked for is not retried).
 *
 * <p>Mechanism, and why: the repeater asks the <em>most advanced streaming</em> duplicate's plugin
 * (TRANSFER_REQUEST on the connection it already has, so no new link, port or credential is needed)
 * and relays its TRANSFER_CHUNKs to the rejoining plugin on that plugin's connection. The snapshot
 * is taken by the healthy plugin because it is the only writer of its tree: its applier reads the
 * tree between two applies (one level of the tree at a time, all requests in flight on its own
 * session, which ZooKeeper answers in order), so the snapshot is exactly the state at its applied
 * seq, without pausing the repeater or the other duplicates; that duplicate only delays its own
 * next write by the read. The chunks (about 256 KiB each; at most 64 MiB per snapshot, else
 * TRANSFER_TOO_LARGE) are installed by the rejoining plugin, which alone may write its data root
 * (ACLs), in multis of at most 1,000 ops, reproducing data versions and child versions, under a
 * marker znode removed in the same multi as the new applied seq. Meanwhile the log is not trimmed
 * past the source's acked seq, so the writes after the snapshot are still there to stream; if the
 * full log evicts one of them the transfer fails at once: the log must hold the writes sequenced
 * during a transfer. From the first chunk until it has applied what was sequenced when the last
 * chunk was relayed, the duplicate answers reads with {@code ERROR(REJOINING)}, which clients take
 * as "ask another duplicate".
 */
package io.zoolander.server.repeater;

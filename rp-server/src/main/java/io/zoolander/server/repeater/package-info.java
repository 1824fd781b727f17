/**
 * The repeater: the server that receives every write, stamps it with {@code (epoch, seq)} and streams it, in order, to
 * every duplicate's plugin. Start one with {@link io.zoolander.server.repeater.Repeater#builder()}; the protocol it
 * speaks is the write-path contract of {@code docs/architecture.md}.
 *
 * <h2>Back-pressure and fencing</h2>
 *
 * <p>A slow duplicate never stalls the others, and memory stays bounded:
 *
 * <ul>
 *   <li>Each plugin connection stops being written when its outbound queue reaches {@link
 *       io.zoolander.server.repeater.RepeaterSettings#PLUGIN_WRITE_HIGH_WATER_MARK_BYTES}; it resumes from the log,
 *       in order, when it drains.
 *   <li>The log holds at most {@code logCapacity} messages. It is trimmed at the lowest seq acked by the non-fenced
 *       duplicates (a disconnected one keeps holding it, with its last known applied seq).
 *   <li>When the log is full, the oldest entry is evicted if at least one non-fenced duplicate has acked it: the write
 *       path goes on, and a duplicate that still needs the evicted entry is fenced (at once if connected, when it
 *       reconnects otherwise). If no duplicate has acked it, the WRITE is refused with {@code OVERLOADED} (retry after
 *       {@link io.zoolander.server.repeater.RepeaterSettings#OVERLOADED_RETRY_AFTER_MILLIS}) rather than fencing every
 *       duplicate.
 *   <li>When even the most advanced non-fenced duplicate is {@link
 *       io.zoolander.server.repeater.RepeaterSettings#CLIENT_PAUSE_UNACKED_PERCENT}% of the log capacity behind, every
 *       duplicate is slow: the system is overloaded. The repeater then stops reading client connections (TCP pushes
 *       back on the clients) until one is back within {@link
 *       io.zoolander.server.repeater.RepeaterSettings#CLIENT_RESUME_UNACKED_PERCENT}%, so OVERLOADED refusals are a
 *       last resort for WRITEs already read.
 *   <li>A duplicate is also fenced when it (re)connects with an applied seq whose successor the log no longer holds
 *       (or never held: a duplicate that was behind when this repeater started), when it asks to retransmit such a
 *       range, and when it reports itself fenced. A fenced duplicate is sent {@code ERROR(FENCED)} and nothing more;
 *       it needs a state transfer.
 * </ul>
 */
package io.zoolander.server.repeater;

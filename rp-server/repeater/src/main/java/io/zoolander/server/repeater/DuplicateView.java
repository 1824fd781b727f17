package io.zoolander.server.repeater;

import io.zoolander.wire.PluginEndpoint;
import java.util.Optional;

/**
 * A read-only snapshot of how the repeater sees one duplicate.
 *
 * @param id the duplicate id
 * @param connectString the ZooKeeper connect string of the duplicate's ensemble
 * @param endpoint the active plugin's endpoint as last published, empty while none is
 * @param linkState the state of the repeater's link (its connection) to that plugin
 * @param ackedSeq the highest seq the duplicate is known to have applied: its bookkeeping state at
 *     start, then its STATUS and ACKs
 * @param fenced whether the duplicate is fenced: the repeater sends it nothing more (it needs a
 *     state transfer)
 * @param fenceReason why it was fenced, empty when it is not
 */
public record DuplicateView(
    int id,
    String connectString,
    Optional<PluginEndpoint> endpoint,
    LinkState linkState,
    long ackedSeq,
    boolean fenced,
    Optional<String> fenceReason) {}

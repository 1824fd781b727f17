/**
 * The Zoolander wire protocol: length-prefixed binary frames over TCP, one {@link
 * io.zoolander.wire.Message} per frame. {@link io.zoolander.wire.WirePipeline#install} puts it on a
 * Netty pipeline.
 *
 * <h2>Frame</h2>
 *
 * <pre>
 * [int length][byte version][byte type][body]
 * </pre>
 *
 * <p>All integers are big-endian. {@code length} counts the bytes after itself and is read unsigned
 * (a "negative" prefix is a frame of 2 GiB or more); the whole frame, prefix included, is at most
 * the configured maximum ({@link io.zoolander.wire.WireSettings#DEFAULT_MAX_FRAME_BYTES} = 1 MiB +
 * 64 KiB). {@code version} is {@link io.zoolander.wire.WireSettings#PROTOCOL_VERSION}. In a body, a
 * <em>string</em> is {@code [int n][n bytes of UTF-8]}, <em>bytes</em> are {@code [int n][n
 * bytes]}, and a list is {@code [int count]} followed by its elements. A body must be read exactly:
 * missing or trailing bytes make the frame malformed.
 *
 * <h2>Messages</h2>
 *
 * <table>
 * <caption>Message types and bodies</caption>
 * <tr><th>type</th><th>message</th><th>body</th><th>sent by</th></tr>
 * <tr><td>1</td><td>HELLO</td><td>byte role, string id, int protocolVersion</td><td>everyone, first</td></tr>
 * <tr><td>2</td><td>WRITE</td><td>long clientId, long requestId, ops</td><td>client to repeater</td></tr>
 * <tr><td>3</td><td>SEQUENCED</td><td>long epoch, long seq, long clientId, long requestId, ops</td>
 *     <td>repeater to plugins</td></tr>
 * <tr><td>4</td><td>REPLY</td><td>long clientId, long requestId, long seq, int duplicateId, results</td>
 *     <td>plugin to client</td></tr>
 * <tr><td>5</td><td>ACK</td><td>int duplicateId, long epoch, long appliedSeq</td><td>plugin to repeater</td></tr>
 * <tr><td>6</td><td>RETRANSMIT</td><td>int duplicateId, long epoch, long fromSeq, long toSeq</td>
 *     <td>plugin to repeater</td></tr>
 * <tr><td>7</td><td>READ</td><td>long clientId, long requestId, byte kind, string path, long minSeq</td>
 *     <td>client to plugins</td></tr>
 * <tr><td>8</td><td>READ_REPLY</td><td>long clientId, long requestId, int duplicateId, long appliedSeq, int code,
 *     bytes data, int version, int childCount, childCount strings</td><td>plugin to client</td></tr>
 * <tr><td>9</td><td>STATUS</td><td>int duplicateId, long epoch, long appliedSeq, byte state</td><td>plugin</td></tr>
 * <tr><td>10</td><td>ERROR</td><td>int code, string message, long requestId, long retryAfterMillis</td>
 *     <td>anyone</td></tr>
 * <tr><td>11</td><td>CHALLENGE</td><td>bytes nonce (32)</td><td>an authenticating server, after HELLO</td></tr>
 * <tr><td>12</td><td>AUTH</td><td>string principal, bytes proof (32, or empty for a TLS certificate)</td>
 *     <td>a peer, in answer to CHALLENGE</td></tr>
 * <tr><td>15</td><td>TRANSFER_REQUEST</td><td>long transferId, int targetDuplicateId</td><td>the repeater, to a
 *     healthy plugin (state transfer)</td></tr>
 * <tr><td>16</td><td>TRANSFER_CHUNK</td><td>long transferId, int sourceDuplicateId, long epoch, long appliedSeq, long
 *     catchUpToSeq, int index, int chunkCount, int count, then per znode: string path, bytes data, int version, int
 *     cversion</td><td>the healthy plugin to the repeater, relayed to the plugin that rejoins</td></tr>
 * <tr><td>17</td><td>WATCH</td><td>long clientId, long watchId, byte kind, string path, long sinceSeq</td>
 *     <td>client to plugins</td></tr>
 * <tr><td>18</td><td>UNWATCH</td><td>long clientId, long watchId</td><td>client to plugins</td></tr>
 * <tr><td>19</td><td>WATCH_EVENT</td><td>long clientId, long watchId, int duplicateId, long seq, int count, then
 *     per change: byte type, string path</td><td>plugin to client</td></tr>
 * </table>
 *
 * <p>CHALLENGE and AUTH exist only when authentication is configured ({@link
 * io.zoolander.wire.AccessControl}): a server that authenticates a role answers a HELLO in that
 * role with CHALLENGE, waits for AUTH, and only then proceeds as after HELLO (a plugin answers
 * STATUS); anything else first, or a proof that does not verify, is answered with ERROR {@code
 * UNAUTHENTICATED} or {@code UNAUTHORIZED} and the connection is closed. The protocol version is
 * unchanged: without security nothing on the wire differs from before.
 *
 * <p>{@code ops} is {@code [int count]} (1 to {@link
 * io.zoolander.wire.WireSettings#MAX_OPS_PER_MESSAGE}; more than one is one atomic multi) then per
 * op {@code [byte opType][string path]} and:
 *
 * <ul>
 *   <li>1 CREATE: {@code byte mode} (ZooKeeper's {@code CreateMode} flag: 0 PERSISTENT or 2
 *       PERSISTENT_SEQUENTIAL), {@code bytes data}
 *   <li>2 SET_DATA: {@code bytes data, int version}
 *   <li>3 DELETE: {@code int version}
 *   <li>4 CHECK: {@code int version}
 * </ul>
 *
 * <p>Versions follow ZooKeeper: {@code -1} matches any version, otherwise the node's data version
 * must equal it. {@code results} is {@code [int count]} then per result {@code [byte resultType]}
 * and: 1 CREATED {@code string path}; 2 DATA_SET {@code int version}; 3 DELETED; 4 CHECKED; 5
 * FAILED {@code int code}. Every ZooKeeper result code ({@code code} in READ_REPLY and FAILED) is a
 * {@link org.apache.zookeeper.KeeperException.Code#intValue()}. Enumerations are written as their
 * stable codes: {@link io.zoolander.wire.Role}, {@link io.zoolander.wire.ReadKind}, {@link
 * io.zoolander.wire.DuplicateState}, {@link io.zoolander.wire.ErrorCode}, {@link
 * io.zoolander.wire.WatchKind}, {@link io.zoolander.wire.WatchEventType}.
 *
 * <h2>Watches</h2>
 *
 * <p>A client arms a watch with WATCH on each duplicate it watches through; the plugin sends one
 * WATCH_EVENT per write (seq) that changes what the watch watches, derived from the writes it
 * applies, in seq order: first the writes after {@code sinceSeq} it applied already, if it still
 * holds their events, else one RESYNC change at its applied seq; then a WATCH_EVENT without changes
 * at its applied seq (armed, and complete up to it); then each write as it applies it. Every
 * duplicate reports the same changes under the same seq, so the client keeps the first report of
 * each seq and drops the rest. A one-shot watch (DATA, CHILDREN) is removed after its first
 * WATCH_EVENT with changes; UNWATCH removes any; closing the connection removes all of its watches.
 * See {@link io.zoolander.wire.Message.Watch}.
 *
 * <h2>Errors</h2>
 *
 * <p>A receiver answers an oversized frame ({@code FRAME_TOO_LARGE}, detected from the length
 * prefix before the body is buffered), a truncated or otherwise unparsable one, including a
 * negative or lying length or count and an invalid field value in a message header or a server's
 * message ({@code MALFORMED_FRAME}), an unknown type ({@code UNKNOWN_MESSAGE_TYPE}) or a version it
 * does not speak ({@code UNSUPPORTED_VERSION}) with an ERROR frame, then closes the connection
 * (after half-closing it and draining input for at most {@link
 * io.zoolander.wire.WireSettings#ERROR_LINGER_MILLIS}, so the peer can read the ERROR even while it
 * is still sending; nothing sent after the bad frame is delivered). The ERROR body's prefix {@code
 * [int code][string message]} is frozen across protocol versions and decoded whatever the frame's
 * version byte, so a peer speaking another version still learns why it was dropped.
 *
 * <p>Application errors (codes 100 and up) refuse a request, name it and leave the connection open.
 * A client request (WRITE, READ, WATCH; a WATCH is named by its watch id) whose ids parse but whose
 * ops, read kind or path are invalid is refused that way by the pipeline itself, and the rest of
 * its frame skipped: an invalid ZooKeeper path ({@code INVALID_PATH}), an op type, read kind or
 * watch kind this version does not know ({@code UNKNOWN_OP}), a create mode that is not replicated,
 * a version below -1 or a WRITE without ops ({@code INVALID_OP}), data over {@link
 * io.zoolander.wire.WireSettings#MAX_DATA_BYTES} or more than {@link
 * io.zoolander.wire.WireSettings#MAX_OPS_PER_MESSAGE} ops ({@code TOO_LARGE}). {@link
 * io.zoolander.wire.ErrorCode} lists every code and who sends it.
 */
package io.zoolander.wire;

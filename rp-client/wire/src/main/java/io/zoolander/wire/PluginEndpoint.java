package io.zoolander.wire;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Where a duplicate's active plugin listens, as published in the ephemeral {@link
 * Znodes#endpoint()} znode.
 *
 * <p>Encoding: UTF-8 {@code duplicateId=1;serverId=2;address=127.0.0.1:40123}.
 *
 * @param duplicateId the duplicate the plugin serves
 * @param serverId the ZooKeeper server id of the leader running it
 * @param host host or IP address to connect to
 * @param port TCP port
 */
public record PluginEndpoint(int duplicateId, long serverId, String host, int port) {

  public PluginEndpoint {
    Objects.requireNonNull(host, "host must not be null");
    if (host.isEmpty() || host.contains(";")) {
      throw new IllegalArgumentException(
          "host must be a non-empty host name or address, was '" + host + "'");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535, was " + port);
    }
  }

  public byte[] encode() {
    return ("duplicateId="
            + duplicateId
            + ";serverId="
            + serverId
            + ";address="
            + host
            + ":"
            + port)
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @throws IllegalArgumentException if the bytes are not an endpoint record
   */
  public static PluginEndpoint decode(byte[] bytes) {
    if (bytes == null) {
      throw new IllegalArgumentException("endpoint record must not be null");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    Map<String, String> fields = new HashMap<>();
    for (String part : text.split(";", -1)) { // an empty part has no "=": skipped below
      int eq = part.indexOf('=');
      if (eq > 0) {
        fields.put(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    String address = fields.get("address");
    int colon = address == null ? -1 : address.lastIndexOf(':');
    if (!fields.containsKey("duplicateId") || !fields.containsKey("serverId") || colon <= 0) {
      throw new IllegalArgumentException("not a Zoolander endpoint record: '" + text + "'");
    }
    try {
      return new PluginEndpoint(
          Integer.parseInt(fields.get("duplicateId")),
          Long.parseLong(fields.get("serverId")),
          address.substring(0, colon),
          Integer.parseInt(address.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a Zoolander endpoint record: '" + text + "'", e);
    }
  }

  /** {@code host:port}. */
  public String address() {
    return host + ":" + port;
  }
}

package io.zoolander.wire;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The record of the active repeater in {@link Znodes#activeRepeater()}: its epoch, where clients
 * reach it and where standbys watch its heartbeat. Encoded as one line of UTF-8 text, {@code
 * <epoch> <clientHost>:<clientPort> <heartbeatHost>:<heartbeatPort>}, so an operator can read it
 * with {@code zkCli.sh get}.
 *
 * @param epoch the epoch it claimed ({@code >= 1})
 */
public record ActiveRepeater(
    long epoch, String clientHost, int clientPort, String heartbeatHost, int heartbeatPort) {

  public ActiveRepeater {
    if (epoch < 1) {
      throw new IllegalArgumentException("epoch must be >= 1, was " + epoch);
    }
    checkHost(clientHost, "clientHost");
    checkHost(heartbeatHost, "heartbeatHost");
    checkPort(clientPort, "clientPort");
    checkPort(heartbeatPort, "heartbeatPort");
  }

  public byte[] encode() {
    return (epoch + " " + clientHost + ":" + clientPort + " " + heartbeatHost + ":" + heartbeatPort)
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @throws IllegalArgumentException if {@code data} is not such a record
   */
  public static ActiveRepeater decode(byte[] data) {
    String text = new String(data, StandardCharsets.UTF_8);
    String[] parts = text.split(" ");
    if (parts.length != 3) {
      throw new IllegalArgumentException("not an active repeater record: '" + text + "'");
    }
    try {
      int client = parts[1].lastIndexOf(':');
      int heartbeat = parts[2].lastIndexOf(':');
      return new ActiveRepeater(
          Long.parseLong(parts[0]),
          parts[1].substring(0, Math.max(0, client)),
          Integer.parseInt(parts[1].substring(client + 1)),
          parts[2].substring(0, Math.max(0, heartbeat)),
          Integer.parseInt(parts[2].substring(heartbeat + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not an active repeater record: '" + text + "'", e);
    }
  }

  private static void checkHost(String host, String name) {
    Objects.requireNonNull(host, name + " must not be null");
    if (host.isEmpty() || host.contains(" ")) {
      throw new IllegalArgumentException(
          name + " must be a host name or address, was '" + host + "'");
    }
  }

  private static void checkPort(int port, String name) {
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException(name + " must be 1 to 65535, was " + port);
    }
  }
}

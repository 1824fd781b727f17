package io.zoolander.server.internal.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks free TCP ports on 127.0.0.1 for servers that are started later in another process.
 *
 * <p>Ports are drawn below the kernel's ephemeral range when it can be read ({@code
 * /proc/sys/net/ipv4/ip_local_port_range}), so the outgoing connections of any process cannot take
 * a port between the moment it is picked and the moment a child binds it, nor while a killed server
 * is down before its restart. Each candidate must be bindable now, and a port is never handed out
 * twice by this JVM.
 */
public final class Ports {

  private static final int LOWEST = 10_000;
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private Ports() {}

  /**
   * @return a port on 127.0.0.1 that is free now and not handed out before by this JVM
   * @throws IOException if no free port can be found
   */
  public static synchronized int next() throws IOException {
    int ephemeralLow = ephemeralRangeLow();
    for (int attempt = 0; attempt < 1_000; attempt++) {
      int port =
          ephemeralLow - LOWEST >= 1_000
              ? ThreadLocalRandom.current().nextInt(LOWEST, ephemeralLow)
              : anyFreePort();
      if (!HANDED_OUT.contains(port) && isFree(port)) {
        HANDED_OUT.add(port);
        return port;
      }
    }
    throw new IOException("No free port found on 127.0.0.1");
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int anyFreePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static int ephemeralRangeLow() {
    // Read it line by line: Files.readString trusts the size procfs reports and truncates.
    try (BufferedReader reader =
        Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      String range = reader.readLine();
      return Integer.parseInt(range.trim().split("\\s+", -1)[0]);
    } catch (IOException | RuntimeException e) {
      return 0; // unknown: fall back to ports the kernel hands out
    }
  }
}

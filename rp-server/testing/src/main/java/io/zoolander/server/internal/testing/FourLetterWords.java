package io.zoolander.server.internal.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** Sends ZooKeeper four-letter-word commands ({@code srvr}, {@code ruok}...) to a client port. */
public final class FourLetterWords {

  private FourLetterWords() {}

  /**
   * @param address the server's client address
   * @param command the four-letter word, which must be in the server's whitelist
   * @param timeoutMillis bound on connecting and on each read
   * @return the server's answer
   * @throws IOException if the server cannot be reached or does not answer in time
   */
  public static String send(InetSocketAddress address, String command, int timeoutMillis)
      throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(address, timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      OutputStream out = socket.getOutputStream();
      out.write(command.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      socket.shutdownOutput();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      in.transferTo(answer);
      return answer.toString(StandardCharsets.UTF_8);
    }
  }

  /**
   * The server's role, from the {@code Mode:} line of its {@code srvr} answer.
   *
   * @param srvrAnswer an answer to {@code srvr}
   * @return {@code leader}, {@code follower}, {@code observer}, {@code standalone}..., or empty if
   *     the server does not serve requests now
   */
  public static Optional<String> mode(String srvrAnswer) {
    return line(srvrAnswer, "Mode:");
  }

  /**
   * @param srvrAnswer an answer to {@code srvr}
   * @return the server's last zxid, if the answer has one
   */
  public static Optional<Long> zxid(String srvrAnswer) {
    return line(srvrAnswer, "Zxid:").map(v -> Long.decode(v));
  }

  private static Optional<String> line(String answer, String prefix) {
    for (String line : answer.split("\\R", -1)) { // an empty line starts with no prefix
      if (line.startsWith(prefix)) {
        return Optional.of(line.substring(prefix.length()).trim());
      }
    }
    return Optional.empty();
  }
}

package io.zoolander.it.example;

import io.zoolander.client.NodeData;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.wire.Op;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The example of {@code docs/client.md}: a client against an embedded deployment of three
 * duplicates. Run:
 *
 * <pre>
 * mvn -q -pl integration-tests -am test-compile exec:exec -Dexec.executable=java -Dexec.classpathScope=test \
 *     -Dexec.args="-cp %classpath io.zoolander.it.example.ClientExample"</pre>
 */
public final class ClientExample {
  private ClientExample() {}

  public static void main(String[] args) throws Exception {
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().duplicates(3).start();
        ZoolanderClient client =
            cluster
                .clientBuilder()
                .readPolicy(
                    ReadPolicy.adaptive()) // C moves between 1 and 3 with observed variation
                .slaTau(Duration.ofMillis(5))
                .build()) {
      // Writes: sequenced through the repeater, complete on the first duplicate's reply.
      WriteResult created = client.create("/users", bytes("")).join();
      WriteResult alice = client.createSequential("/users/u-", bytes("alice")).join();
      System.out.printf(
          "created %s at seq %d and %s at seq %d%n",
          "/users", created.seq(), alice.results().get(0), alice.seq());

      // An atomic multi: both ops or neither.
      WriteResult multi =
          client
              .write(
                  List.of(Op.check("/users", 0), Op.create("/config", bytes("{\"fanOut\": 50}"))))
              .join();
      System.out.println("multi: " + multi.code() + " at seq " + multi.seq());

      // Reads: first reply among C duplicates, never older than what this client has seen.
      NodeData config = client.getData("/config").join();
      System.out.printf(
          "read /config = %s (version %d, duplicate %d had applied seq %d)%n",
          new String(config.data(), StandardCharsets.UTF_8),
          config.version(),
          config.duplicateId(),
          config.appliedSeq());
      System.out.println("children of /users: " + client.getChildren("/users").join());

      // A write every duplicate has applied before it returns: any client's next read sees it.
      WriteResult everywhere =
          client.writeAll(List.of(Op.setData("/config", bytes("{\"fanOut\": 64}"), -1))).join();
      System.out.println("writeAll applied everywhere at seq " + everywhere.seq());

      // The synchronous twins throw ZoolanderException with a ZooKeeper result code.
      System.out.println("exists /nope: " + client.blocking().exists("/nope"));
      System.out.println(
          "a failed conditional write: "
              + client.blocking().setData("/config", bytes("x"), 99).code());
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

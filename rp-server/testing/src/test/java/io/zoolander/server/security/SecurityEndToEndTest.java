package io.zoolander.server.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderException;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.LinkState;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.testsupport.TestCertificates;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ClientIds;
import io.zoolander.wire.Credential;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.Znodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Everything secured at once, on real ZooKeeper (two one-server duplicates in child JVMs), a real
 * repeater and real clients: mutual TLS on every link, writers and the repeater authenticated, the
 * plugins' znodes protected by ACLs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SecurityEndToEndTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Znodes ZNODES = Znodes.defaults();
  private static final String WRITER_SECRET = "writer-1-secret-0123456789";
  private static final String REPEATER_SECRET = "repeater-secret-0123456789";

  private Path dir;
  private TestCertificates ca;
  private TestCertificates.Issued writerCert;
  private TestCertificates.Issued rogueCert;
  private TlsSettings clientTls;
  private Path writerSecretFile;
  private Path zkPassword;
  private final Map<Integer, ZooKeeperEnsemble> duplicates = new HashMap<>();
  private Repeater repeater;
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("zoolander-security-");
    ca = TestCertificates.newCa(dir, "zoolander");
    TestCertificates.Issued server = ca.issue("zoolander-server");
    writerCert = ca.issue("writer-cert");
    rogueCert = TestCertificates.newCa(dir, "rogue").issue("writer-cert"); // same CN, another CA
    Path pluginSecrets =
        TestCertificates.write(dir, "plugin-secrets", "repeater=" + REPEATER_SECRET + "\n");
    Path repeaterSecrets =
        TestCertificates.write(
            dir,
            "repeater-secrets",
            "# writers\nwriter-1=" + WRITER_SECRET + "\nreader-1=reader-1-secret-0123456789\n");
    Path repeaterSecret = TestCertificates.write(dir, "repeater-secret", REPEATER_SECRET + "\n");
    writerSecretFile = TestCertificates.write(dir, "writer-secret", WRITER_SECRET + "\n");
    zkPassword = TestCertificates.write(dir, "zk-password", "plugin-password\n");

    for (int id = 1; id <= 2; id++) {
      ZooKeeperEnsemble e =
          ZooKeeperEnsemble.builder()
              .servers(1)
              .baseDir(dir.resolve("duplicate-" + id))
              .zoolanderDuplicate(id, ZNODES.basePath())
              .property("zoolander.tls.enabled", "true")
              .property("zoolander.tls.certificate", server.certificate().toString())
              .property("zoolander.tls.privateKey", server.encryptedKey().toString())
              .property("zoolander.tls.privateKeyPassword", new String(TestCertificates.PASSWORD))
              .property("zoolander.tls.trustCertificates", ca.caPem().toString())
              .property("zoolander.tls.requireClientCertificate", "true")
              .property("zoolander.auth.secretsFile", pluginSecrets.toString())
              .property("zoolander.auth.allow.repeater", "repeater")
              .property(PluginSecurity.ZOOKEEPER_USER_KEY, "zoolander-plugin")
              .property(PluginSecurity.ZOOKEEPER_PASSWORD_FILE_KEY, zkPassword.toString())
              .jvmArgs("-XX:TieredStopAtLevel=1", "-Xshare:auto")
              .startTimeout(WAIT)
              .build();
      duplicates.put(id, e);
    }
    List<CompletableFuture<ZooKeeperEnsemble>> starts = new ArrayList<>();
    for (ZooKeeperEnsemble e : duplicates.values()) {
      starts.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return e.start();
                } catch (Exception failure) {
                  throw new CompletionException(failure);
                }
              }));
    }
    starts.forEach(CompletableFuture::join);
    TlsSettings serverTls =
        TlsSettings.builder()
            .keyStore(server.pkcs12(), TestCertificates.PASSWORD)
            .trustPem(ca.caPem())
            .requireClientCertificate(true)
            .build();
    clientTls =
        TlsSettings.builder()
            .keyCertChainPem(writerCert.certificate(), writerCert.key())
            .trustStore(ca.trustStore("JKS"), TestCertificates.PASSWORD)
            .build();
    Repeater.Builder builder =
        Repeater.builder()
            .tls(serverTls)
            .access(
                AccessControl.builder()
                    .secretsFile(repeaterSecrets)
                    .allow(Role.CLIENT, "writer-1", "writer-cert")
                    .build())
            .credential(Credential.secretFile("repeater", repeaterSecret))
            .meterRegistry(meters);
    duplicates.forEach((id, e) -> builder.duplicate(id, e.connectString()));
    // The repeater claims its epoch in every state znode: once the plugins protect them, only with
    // their identity.
    awaitStateProtected();
    repeater = builder.zooKeeperIdentity("zoolander-plugin", zkPassword).build().start();
    awaitStreaming();
  }

  @AfterAll
  void stop() {
    if (repeater != null) {
      repeater.close();
    }
    duplicates.values().forEach(ZooKeeperEnsemble::close);
  }

  @Test
  void authenticatedWritersWriteAndReadOverMutualTls() throws Exception {
    try (ZoolanderClient bySecret =
            client(clientTls, Credential.secretFile("writer-1", writerSecretFile));
        ZoolanderClient byCertificate = client(clientTls, Credential.certificate())) {
      long seq =
          bySecret
              .writeAll(List.of(Op.create("/tls-secret", "by secret".getBytes(UTF_8))))
              .join()
              .seq();
      assertThat(bySecret.getData("/tls-secret").join().data())
          .asString(UTF_8)
          .isEqualTo("by secret");
      long seq2 =
          byCertificate
              .writeAll(List.of(Op.create("/tls-cert", "by cert".getBytes(UTF_8))))
              .join()
              .seq();
      assertThat(seq2).isGreaterThan(seq);
      assertThat(byCertificate.getData("/tls-cert").join().data())
          .asString(UTF_8)
          .isEqualTo("by cert");
      // writeAll: every duplicate has applied both writes: they hold the same tree.
      assertThat(appliedSeqs().values()).containsOnly(seq2);
      assertThat(digest(1)).isEqualTo(digest(2));
    }
  }

  @Test
  void unauthenticatedWritesAreRefusedAndChangeNothing() throws Exception {
    try (ZoolanderClient writer =
        client(clientTls, Credential.secretFile("writer-1", writerSecretFile))) {
      writer
          .writeAll(List.of(Op.create("/before-attacks", new byte[0])))
          .join(); // something to compare
    }
    Map<Integer, Long> applied = appliedSeqs();
    TreeDigest before = digest(1);
    double authFailuresBefore = securityFailures("auth");

    // An SDK client with a trusted certificate but no credential: its write is refused.
    try (ZoolanderClient anonymous = client(clientTls, null)) {
      assertThatThrownBy(() -> anonymous.create("/anonymous", new byte[0]).join())
          .hasCauseInstanceOf(ZoolanderException.class)
          .satisfies(
              e ->
                  assertThat(((ZoolanderException) e.getCause()).errorCode())
                      .hasValue(ErrorCode.UNAUTHENTICATED));
    }
    // A wrong secret, an unknown principal, a known principal that may not write.
    assertRepeaterRefuses(new Message.Auth("writer-1", new byte[32]), ErrorCode.UNAUTHENTICATED);
    assertRepeaterRefuses(new Message.Auth("nobody", new byte[32]), ErrorCode.UNAUTHENTICATED);
    // The SDK client without a credential (it may try more than once) and the two wrong AUTHs.
    assertThat(securityFailures("auth") - authFailuresBefore).isGreaterThanOrEqualTo(3);
    try (ScriptedPeer peer = rawPeer("127.0.0.1", repeater.boundAddress().getPort(), clientTls)) {
      peer.post(Message.Hello.of(Role.CLIENT, "42"));
      Message.Challenge challenge = peer.next(Message.Challenge.class);
      peer.post(
          Credential.secret("reader-1", "reader-1-secret-0123456789".getBytes(UTF_8))
              .answer(Role.CLIENT, "42", challenge));
      peer.post(new Message.Write(42, 1, List.of(Op.create("/reader", new byte[0]))));
      assertThat(peer.next(Message.Error.class).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
      peer.expectClosed();
    }
    // Only the repeater may send SEQUENCED to a plugin: without AUTH, and authenticated as a
    // writer.
    PluginEndpoint endpoint = endpoint(1);
    long next = applied.get(1) + 1;
    Message.Sequenced forged =
        new Message.Sequenced(
            repeater.epoch() + 1, next, 42, 1, List.of(Op.create("/forged", new byte[0])));
    try (ScriptedPeer peer = rawPeer(endpoint.host(), endpoint.port(), clientTls)) {
      peer.post(Message.Hello.of(Role.REPEATER, "mallory"));
      peer.next(Message.Challenge.class);
      peer.post(forged);
      Message.Error error = peer.next(Message.Error.class);
      assertThat(error.code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
      assertThat(error.requestId()).isEqualTo(next);
      peer.expectClosed();
    }
    try (ScriptedPeer peer = rawPeer(endpoint.host(), endpoint.port(), clientTls)) {
      peer.post(Message.Hello.of(Role.REPEATER, "mallory"));
      Message.Challenge challenge = peer.next(Message.Challenge.class);
      peer.post(
          Credential.certificate().answer(Role.REPEATER, "mallory", challenge)); // CN writer-cert
      peer.post(forged);
      assertThat(peer.next(Message.Error.class).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
      peer.expectClosed();
    }
    assertThat(appliedSeqs()).isEqualTo(applied);
    assertThat(digest(1)).isEqualTo(before);
    assertThat(digest(2)).isEqualTo(before);
    assertThat(repeater.isDeposed()).as("a forged epoch reached no plugin").isFalse();
  }

  @Test
  void aClientIdBelongsToThePrincipalThatAuthenticated() throws Exception {
    long victim;
    try (ZoolanderClient writer =
            client(clientTls, Credential.secretFile("writer-1", writerSecretFile));
        ZoolanderClient byCertificate = client(clientTls, Credential.certificate())) {
      victim = writer.clientId();
      assertThat(ClientIds.belongsTo(victim, "writer-1")).isTrue();
      assertThat(ClientIds.belongsTo(byCertificate.clientId(), "writer-cert")).isTrue();
      writer.writeAll(List.of(Op.create("/victim", new byte[0]))).join();
    }
    Map<Integer, Long> applied = appliedSeqs();
    String victimId = Long.toString(victim);
    // writer-cert (this TLS certificate's CN) is allowed to write, but not as writer-1's client.
    try (ScriptedPeer peer = rawPeer("127.0.0.1", repeater.boundAddress().getPort(), clientTls)) {
      peer.post(Message.Hello.of(Role.CLIENT, victimId));
      Message.Challenge challenge = peer.next(Message.Challenge.class);
      peer.post(Credential.certificate().answer(Role.CLIENT, victimId, challenge));
      peer.post(new Message.Write(victim, 1L << 62, List.of(Op.create("/stolen", new byte[0]))));
      Message.Error error = peer.next(Message.Error.class);
      assertThat(error.code()).isEqualTo(ErrorCode.UNAUTHORIZED);
      assertThat(error.message()).contains("does not belong to principal 'writer-cert'");
      peer.expectClosed();
    }
    // With its own id, a WRITE naming another client id is refused and not sequenced.
    long own = ClientIds.random("writer-cert");
    try (ScriptedPeer peer = rawPeer("127.0.0.1", repeater.boundAddress().getPort(), clientTls)) {
      peer.post(Message.Hello.of(Role.CLIENT, Long.toString(own)));
      Message.Challenge challenge = peer.next(Message.Challenge.class);
      peer.post(Credential.certificate().answer(Role.CLIENT, Long.toString(own), challenge));
      peer.post(new Message.Write(victim, 1L << 62, List.of(Op.create("/stolen", new byte[0]))));
      Message.Error error = peer.next(Message.Error.class);
      assertThat(error.code()).isEqualTo(ErrorCode.UNEXPECTED_MESSAGE);
      assertThat(error.requestId()).isEqualTo(1L << 62);
    }
    assertThat(appliedSeqs()).isEqualTo(applied);
    // The victim's next write is applied, not refused as a duplicate.
    try (ZoolanderClient writer =
        ZoolanderClient.builder()
            .repeater("127.0.0.1", repeater.boundAddress().getPort())
            .duplicate(duplicates.get(1).connectString())
            .duplicate(duplicates.get(2).connectString())
            .tls(clientTls)
            .credential(Credential.secretFile("writer-1", writerSecretFile))
            .clientId(victim)
            .requestTimeout(Duration.ofSeconds(10))
            .build()) {
      assertThat(writer.create("/victim-again", new byte[0]).join().succeeded()).isTrue();
    }
    assertThatThrownBy(
            () ->
                ZoolanderClient.builder()
                    .repeater("127.0.0.1", repeater.boundAddress().getPort())
                    .duplicate(duplicates.get(1).connectString())
                    .tls(clientTls)
                    .credential(Credential.secretFile("writer-1", writerSecretFile))
                    .clientId(own)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is not a client id of principal 'writer-1'");
  }

  @Test
  void mutualTlsRejectsPeersWithoutATrustedCertificate() throws Exception {
    TlsSettings noCertificate = TlsSettings.builder().trustPem(ca.caPem()).build();
    TlsSettings otherCa =
        TlsSettings.builder()
            .keyCertChainPem(rogueCert.certificate(), rogueCert.key())
            .trustPem(ca.caPem())
            .build();
    PluginEndpoint endpoint = endpoint(2);
    double tlsFailuresBefore = securityFailures("tls");
    for (TlsSettings tls : List.of(noCertificate, otherCa)) {
      for (String[] target :
          List.of(
              new String[] {"127.0.0.1", "" + repeater.boundAddress().getPort()},
              new String[] {endpoint.host(), "" + endpoint.port()})) {
        try (ScriptedPeer peer = rawPeer(target[0], Integer.parseInt(target[1]), tls)) {
          peer.post(Message.Hello.of(Role.CLIENT, "7"));
          peer.expectClosed();
          assertThat(peer.received()).as("nothing answered at %s", target[1]).isEmpty();
        }
      }
    }
    assertThat(securityFailures("tls") - tlsFailuresBefore)
        .as("the two handshakes the repeater refused")
        .isEqualTo(2);
    // The SDK does not get connected either.
    assertThatThrownBy(
            () ->
                ZoolanderClient.builder()
                    .repeater("127.0.0.1", repeater.boundAddress().getPort())
                    .duplicate(duplicates.get(1).connectString())
                    .tls(otherCa)
                    .credential(Credential.secretFile("writer-1", writerSecretFile))
                    .connectTimeout(Duration.ofSeconds(3))
                    .build())
        .isInstanceOf(ZoolanderException.class);
  }

  @Test
  void plaintextToATlsPortFailsCleanly() throws Exception {
    PluginEndpoint endpoint = endpoint(1);
    for (int port : new int[] {repeater.boundAddress().getPort(), endpoint.port()}) {
      try (ScriptedPeer peer = rawPeer("127.0.0.1", port, null)) {
        peer.post(Message.Hello.of(Role.CLIENT, "7"));
        peer.expectClosed();
        assertThat(peer.received()).isEmpty();
      }
    }
    // The servers go on serving TLS peers.
    try (ZoolanderClient writer =
        client(clientTls, Credential.secretFile("writer-1", writerSecretFile))) {
      assertThat(writer.create("/after-plaintext", new byte[0]).join().succeeded()).isTrue();
    }
  }

  @Test
  void aPlainZooKeeperClientCannotWriteZoolanderZnodes() throws Exception {
    try (ZoolanderClient writer =
        client(clientTls, Credential.secretFile("writer-1", writerSecretFile))) {
      writer.writeAll(List.of(Op.create("/protected", "v1".getBytes(UTF_8)))).join();
    }
    Map<Integer, Long> applied = appliedSeqs();
    ZooKeeper zk = plainSession(duplicates.get(1).connectString());
    try {
      String node = ZNODES.toZnode("/protected");
      // Reads stay open.
      assertThat(new String(zk.getData(node, false, null), UTF_8)).isEqualTo("v1");
      assertThatThrownBy(
              () ->
                  zk.create(
                      ZNODES.toZnode("/bypass"),
                      new byte[0],
                      ZooDefs.Ids.OPEN_ACL_UNSAFE,
                      CreateMode.PERSISTENT))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(
              () ->
                  zk.create(
                      node + "/child",
                      new byte[0],
                      ZooDefs.Ids.OPEN_ACL_UNSAFE,
                      CreateMode.PERSISTENT))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> zk.setData(node, "split".getBytes(UTF_8), -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> zk.delete(node, -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(
              () -> zk.setData(ZNODES.state(), new BookkeepingState(99, 99).encode(), -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> zk.delete(ZNODES.endpoint(), -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> zk.setData(ZNODES.endpoint(), new byte[0], -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(
              () ->
                  zk.create(
                      ZNODES.basePath() + "/intruder",
                      new byte[0],
                      ZooDefs.Ids.OPEN_ACL_UNSAFE,
                      CreateMode.PERSISTENT))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> zk.setACL(node, ZooDefs.Ids.OPEN_ACL_UNSAFE, -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThat(appliedSeqs()).isEqualTo(applied);
      assertThat(digest(1)).isEqualTo(digest(2));
    } finally {
      zk.close(1_000);
    }
    // Zoolander's own writes still work, under and beside the protected node.
    try (ZoolanderClient writer =
        client(clientTls, Credential.secretFile("writer-1", writerSecretFile))) {
      assertThat(
              writer
                  .writeAll(
                      List.of(
                          Op.setData("/protected", "v2".getBytes(UTF_8), -1),
                          Op.create("/protected/child", new byte[0])))
                  .join()
                  .succeeded())
          .isTrue();
    }
  }

  // ------------------------------------------------------------------------------------------------ helpers

  private ZoolanderClient client(TlsSettings tls, Credential credential) {
    var b =
        ZoolanderClient.builder()
            .repeater("127.0.0.1", repeater.boundAddress().getPort())
            .tls(tls)
            .requestTimeout(Duration.ofSeconds(10));
    duplicates.values().forEach(e -> b.duplicate(e.connectString()));
    if (credential != null) {
      b.credential(credential);
    }
    return b.build();
  }

  @Test
  void aRepeaterWithoutThePluginsZooKeeperIdentityCannotClaimAnEpoch() throws Exception {
    Map<Integer, Long> applied = appliedSeqs();
    Map<Integer, Long> epochs = epochs();
    Repeater.Builder builder = Repeater.builder().startTimeout(Duration.ofSeconds(10));
    duplicates.forEach((id, e) -> builder.duplicate(id, e.connectString()));
    try (Repeater intruder = builder.build()) {
      assertThatThrownBy(intruder::start)
          .hasStackTraceContaining("may not claim its epoch")
          .hasStackTraceContaining("NoAuth");
    }
    // Nothing claimed: the running repeater is not deposed and still gets writes applied.
    assertThat(epochs()).isEqualTo(epochs);
    assertThat(appliedSeqs()).isEqualTo(applied);
    try (ZoolanderClient writer =
        client(clientTls, Credential.secretFile("writer-1", writerSecretFile))) {
      assertThat(
              writer
                  .writeAll(List.of(Op.create("/after-intruder", new byte[0])))
                  .join()
                  .succeeded())
          .isTrue();
    }
  }

  private double securityFailures(String kind) {
    return meters
        .get(MeterNames.REPEATER_SECURITY_FAILURES)
        .tag(MeterNames.TAG_KIND, kind)
        .counter()
        .count();
  }

  private void assertRepeaterRefuses(Message.Auth auth, ErrorCode expected)
      throws InterruptedException {
    try (ScriptedPeer peer = rawPeer("127.0.0.1", repeater.boundAddress().getPort(), clientTls)) {
      peer.post(Message.Hello.of(Role.CLIENT, "42"));
      peer.next(Message.Challenge.class);
      peer.post(auth);
      peer.post(new Message.Write(42, 1, List.of(Op.create("/refused", new byte[0]))));
      assertThat(peer.next(Message.Error.class).code()).isEqualTo(expected);
      peer.expectClosed();
    }
  }

  private void awaitStreaming() throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!repeater.duplicates().stream().allMatch(d -> d.linkState() == LinkState.STREAMING)) {
      if (System.nanoTime() > deadline) {
        StringBuilder logs = new StringBuilder();
        duplicates.forEach(
            (id, e) ->
                logs.append("\n--- duplicate ")
                    .append(id)
                    .append(":\n")
                    .append(e.logTail(e.serverIds().get(0), 40)));
        throw new AssertionError("not every duplicate streaming: " + repeater.duplicates() + logs);
      }
      Thread.sleep(20); // polling a condition, not waiting for time to pass
    }
    for (DuplicateView d : repeater.duplicates()) {
      assertThat(d.fenced()).isFalse();
    }
  }

  private PluginEndpoint endpoint(int id) throws Exception {
    ZooKeeper zk = plainSession(duplicates.get(id).connectString());
    try {
      return PluginEndpoint.decode(zk.getData(ZNODES.endpoint(), false, null));
    } finally {
      zk.close(1_000);
    }
  }

  private Map<Integer, Long> appliedSeqs() throws Exception {
    Map<Integer, Long> seqs = new HashMap<>();
    for (Map.Entry<Integer, ZooKeeperEnsemble> e : duplicates.entrySet()) {
      ZooKeeper zk = plainSession(e.getValue().connectString());
      try {
        seqs.put(
            e.getKey(),
            BookkeepingState.decode(zk.getData(ZNODES.state(), false, null)).appliedSeq());
      } finally {
        zk.close(1_000);
      }
    }
    return seqs;
  }

  private Map<Integer, Long> epochs() throws Exception {
    Map<Integer, Long> epochs = new HashMap<>();
    for (Map.Entry<Integer, ZooKeeperEnsemble> e : duplicates.entrySet()) {
      ZooKeeper zk = plainSession(e.getValue().connectString());
      try {
        epochs.put(
            e.getKey(), BookkeepingState.decode(zk.getData(ZNODES.state(), false, null)).epoch());
      } finally {
        zk.close(1_000);
      }
    }
    return epochs;
  }

  /** Until every duplicate's plugin has put its ACL on the state znode. */
  private void awaitStateProtected() throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    for (ZooKeeperEnsemble e : duplicates.values()) {
      ZooKeeper zk = plainSession(e.connectString());
      try {
        while (true) {
          List<ACL> seen = null;
          try {
            seen = zk.getACL(ZNODES.state(), new Stat());
            // ZooKeeper shows a digest's hash only to that identity: its user is enough to tell the
            // plugin's ACL.
            if (seen.size() == 2
                && seen.stream()
                    .anyMatch(
                        a ->
                            a.getId().getScheme().equals("digest")
                                && a.getId().getId().startsWith("zoolander-plugin:")
                                && a.getPerms() == ZooDefs.Perms.ALL)
                && seen.contains(new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE))) {
              break;
            }
          } catch (KeeperException.NoNodeException notYet) {
            // the plugin has not created it yet
          }
          assertThat(System.nanoTime())
              .as("the state znode protected in time (ACL %s)", seen)
              .isLessThan(deadline);
          Thread.sleep(20); // polling a condition, not waiting for time to pass
        }
      } finally {
        zk.close(1_000);
      }
    }
  }

  private TreeDigest digest(int id) throws Exception {
    return TreeDigest.of(duplicates.get(id).connectString(), ZNODES);
  }

  private static ZooKeeper plainSession(String connectString) throws Exception {
    ZooKeeper zk = ZooKeepers.connect(connectString, Duration.ofSeconds(10), WAIT);
    return zk;
  }

  /**
   * A hand-driven wire peer, plaintext or TLS ({@code tls} null for plaintext), waiting at most 15
   * s for each message or the close.
   */
  private static ScriptedPeer rawPeer(String host, int port, TlsSettings tls)
      throws InterruptedException {
    return ScriptedPeer.connect(host, port, tls).waitingAtMost(Duration.ofSeconds(15));
  }
}

package io.zoolander.server.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.testing.ServerMode;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.testsupport.TestCertificates;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.Credential;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.Znodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The plugin's {@code zoolander.plugin.security.failures} counter (issue 8), read with its exact
 * tags: real plugins on real in-process ZooKeeper servers (one duplicate with mutual TLS, one with
 * the repeater role authenticated over plaintext), driven by raw wire peers on 127.0.0.1. A refused
 * TLS handshake counts {@code kind=tls}, a refused authentication {@code kind=auth}, each on its
 * own duplicate only; an accepted peer counts nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PluginSecurityMetersTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Znodes ZNODES = Znodes.defaults();
  // Ids no other test uses: the plugins meter into the JVM-wide registry and register JMX MBeans by
  // duplicate id.
  private static final int TLS_DUPLICATE = 81;
  private static final int AUTH_DUPLICATE = 82;
  private static final String REPEATER_SECRET = "repeater-secret-0123456789";
  private static final String WRITER_SECRET = "writer-1-secret-0123456789";

  /** Added to Micrometer's global registry, where the plugins meter, before they start. */
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  private Path dir;
  private TestCertificates ca;
  private TestCertificates.Issued peerCert;
  private ZooKeeperEnsemble tlsDuplicate;
  private ZooKeeperEnsemble authDuplicate;
  private PluginEndpoint tlsEndpoint;
  private PluginEndpoint authEndpoint;

  @BeforeAll
  void start() throws Exception {
    Metrics.addRegistry(meters);
    dir = Files.createTempDirectory("zoolander-plugin-security-meters-");
    ca = TestCertificates.newCa(dir, "zoolander");
    TestCertificates.Issued server = ca.issue("zoolander-server");
    peerCert = ca.issue("repeater");
    tlsDuplicate =
        ZooKeeperEnsemble.builder()
            .servers(1)
            .serverMode(ServerMode.IN_PROCESS)
            .baseDir(dir.resolve("duplicate-" + TLS_DUPLICATE))
            .zoolanderDuplicate(TLS_DUPLICATE, ZNODES.basePath())
            .property("zoolander.tls.enabled", "true")
            .property("zoolander.tls.certificate", server.certificate().toString())
            .property("zoolander.tls.privateKey", server.key().toString())
            .property("zoolander.tls.trustCertificates", ca.caPem().toString())
            .property("zoolander.tls.requireClientCertificate", "true")
            .startTimeout(WAIT)
            .build();
    Path secrets =
        TestCertificates.write(
            dir,
            "plugin-secrets",
            "repeater=" + REPEATER_SECRET + "\nwriter-1=" + WRITER_SECRET + "\n");
    authDuplicate =
        ZooKeeperEnsemble.builder()
            .servers(1)
            .serverMode(ServerMode.IN_PROCESS)
            .baseDir(dir.resolve("duplicate-" + AUTH_DUPLICATE))
            .zoolanderDuplicate(AUTH_DUPLICATE, ZNODES.basePath())
            .property("zoolander.auth.secretsFile", secrets.toString())
            .property("zoolander.auth.allow.repeater", "repeater")
            .startTimeout(WAIT)
            .build();
    tlsDuplicate.start();
    authDuplicate.start();
    // The plugin registers its meters before it publishes its endpoint.
    tlsEndpoint = endpoint(tlsDuplicate);
    authEndpoint = endpoint(authDuplicate);
  }

  @AfterAll
  void stop() {
    try {
      if (tlsDuplicate != null) {
        tlsDuplicate.close();
      }
      if (authDuplicate != null) {
        authDuplicate.close();
      }
    } finally {
      Metrics.removeRegistry(meters);
    }
  }

  @Test
  void aRefusedTlsHandshakeCountsKindTlsOnItsDuplicate() throws Exception {
    assertThat(failures(tlsEndpoint, "tls")).isZero();
    // Plain wire bytes to the TLS port: not a TLS record.
    try (ScriptedPeer peer = rawPeer(tlsEndpoint.host(), tlsEndpoint.port(), null)) {
      peer.post(Message.Hello.of(Role.REPEATER, "plaintext"));
      peer.expectClosed();
      assertThat(peer.received()).as("refused before any answer").isEmpty();
    }
    awaitFailures(tlsEndpoint, "tls", 1);
    // A certificate from a CA the plugin does not trust (same CN as the trusted one), with mutual
    // TLS required.
    TestCertificates.Issued rogue = TestCertificates.newCa(dir, "rogue").issue("repeater");
    TlsSettings untrusted =
        TlsSettings.builder()
            .keyCertChainPem(rogue.certificate(), rogue.key())
            .trustPem(ca.caPem())
            .build();
    try (ScriptedPeer peer = rawPeer(tlsEndpoint.host(), tlsEndpoint.port(), untrusted)) {
      peer.post(Message.Hello.of(Role.REPEATER, "rogue"));
      peer.expectClosed();
      assertThat(peer.received()).as("refused before any answer").isEmpty();
    }
    awaitFailures(tlsEndpoint, "tls", 2);

    // A peer with a trusted certificate gets through, and counts nothing.
    TlsSettings trusted =
        TlsSettings.builder()
            .keyCertChainPem(peerCert.certificate(), peerCert.key())
            .trustPem(ca.caPem())
            .build();
    try (ScriptedPeer peer = rawPeer(tlsEndpoint.host(), tlsEndpoint.port(), trusted)) {
      peer.post(Message.Hello.of(Role.CLIENT, "7"));
      assertThat(peer.next(Message.Status.class).duplicateId()).isEqualTo(TLS_DUPLICATE);
    }
    assertThat(failures(tlsEndpoint, "tls")).as("one count per refused handshake").isEqualTo(2);
    assertThat(failures(tlsEndpoint, "auth")).isZero();
    assertThat(failures(authEndpoint, "tls")).as("the other duplicate's counter").isZero();
  }

  @Test
  void aRefusedAuthenticationCountsKindAuthOnItsDuplicate() throws Exception {
    assertThat(failures(authEndpoint, "auth")).isZero();
    // A wrong proof for the allowed principal.
    try (ScriptedPeer peer = rawPeer(authEndpoint.host(), authEndpoint.port(), null)) {
      peer.post(Message.Hello.of(Role.REPEATER, "wrong-proof"));
      peer.next(Message.Challenge.class);
      peer.post(new Message.Auth("repeater", new byte[32]));
      assertThat(peer.next(Message.Error.class).code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
      peer.expectClosed();
    }
    awaitFailures(authEndpoint, "auth", 1);
    // Something other than AUTH in answer to the CHALLENGE.
    try (ScriptedPeer peer = rawPeer(authEndpoint.host(), authEndpoint.port(), null)) {
      peer.post(Message.Hello.of(Role.REPEATER, "no-auth"));
      peer.next(Message.Challenge.class);
      peer.post(Message.Hello.of(Role.REPEATER, "no-auth"));
      assertThat(peer.next(Message.Error.class).code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
      peer.expectClosed();
    }
    awaitFailures(authEndpoint, "auth", 2);
    // A correct proof, but for a principal not allowed as the repeater.
    try (ScriptedPeer peer = rawPeer(authEndpoint.host(), authEndpoint.port(), null)) {
      peer.post(Message.Hello.of(Role.REPEATER, "writer"));
      Message.Challenge challenge = peer.next(Message.Challenge.class);
      peer.post(
          Credential.secret("writer-1", WRITER_SECRET.getBytes(UTF_8))
              .answer(Role.REPEATER, "writer", challenge));
      assertThat(peer.next(Message.Error.class).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
      peer.expectClosed();
    }
    awaitFailures(authEndpoint, "auth", 3);

    // The allowed principal with the right proof is accepted (STATUS), and counts nothing.
    try (ScriptedPeer peer = rawPeer(authEndpoint.host(), authEndpoint.port(), null)) {
      peer.post(Message.Hello.of(Role.REPEATER, "repeater"));
      Message.Challenge challenge = peer.next(Message.Challenge.class);
      peer.post(
          Credential.secret("repeater", REPEATER_SECRET.getBytes(UTF_8))
              .answer(Role.REPEATER, "repeater", challenge));
      assertThat(peer.next(Message.Status.class).duplicateId()).isEqualTo(AUTH_DUPLICATE);
    }
    assertThat(failures(authEndpoint, "auth"))
        .as("one count per refused authentication")
        .isEqualTo(3);
    assertThat(failures(authEndpoint, "tls")).isZero();
    assertThat(failures(tlsEndpoint, "auth")).as("the other duplicate's counter").isZero();
  }

  // ------------------------------------------------------------------------------------------------ helpers

  /**
   * The plugin's counter of {@code kind}, by its exact tags; fails if the plugin did not register
   * it.
   */
  private double failures(PluginEndpoint plugin, String kind) {
    Counter counter =
        meters
            .get(MeterNames.PLUGIN_SECURITY_FAILURES)
            .tag(MeterNames.TAG_DUPLICATE, Integer.toString(plugin.duplicateId()))
            .tag(MeterNames.TAG_SERVER, Long.toString(plugin.serverId()))
            .tag(MeterNames.TAG_KIND, kind)
            .counter();
    return counter.count();
  }

  /**
   * The server side may count a refusal after the peer has seen it (the answer and the close go out
   * first).
   */
  private void awaitFailures(PluginEndpoint plugin, String kind, double expected)
      throws InterruptedException {
    Await.await(
        WAIT,
        "duplicate " + plugin.duplicateId() + " counted " + expected + " " + kind + " failures",
        () -> failures(plugin, kind) == expected,
        () -> "counted " + failures(plugin, kind));
  }

  /** The endpoint the duplicate's plugin published, once it has. */
  private static PluginEndpoint endpoint(ZooKeeperEnsemble duplicate) throws Exception {
    ZooKeeper zk = ZooKeepers.connect(duplicate.connectString(), Duration.ofSeconds(10), WAIT);
    try {
      PluginEndpoint[] found = new PluginEndpoint[1];
      Await.await(
          WAIT,
          "the plugin's endpoint znode",
          () -> {
            try {
              found[0] = PluginEndpoint.decode(zk.getData(ZNODES.endpoint(), false, null));
              return true;
            } catch (Exception notYet) {
              return false;
            }
          },
          () -> duplicate.logTail(duplicate.serverIds().get(0), 40));
      return found[0];
    } finally {
      zk.close(1_000);
    }
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

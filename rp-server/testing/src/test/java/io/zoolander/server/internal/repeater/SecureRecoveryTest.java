package io.zoolander.server.internal.repeater;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.repeater.Repeater;
import io.zoolander.server.testing.ZooKeeperEnsemble;
import io.zoolander.testsupport.TestCertificates;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repeater taking over fetches recent writes from a plugin that runs TLS and authenticates
 * repeaters: the fetch connection is secured like the repeater's own plugin connections (TLS,
 * CHALLENGE answered with its credential).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SecureRecoveryTest {
  private static final String REPEATER_SECRET = "repeater-secret-0123456789";

  @TempDir Path dir;

  @Test
  void recentWritesAreFetchedOverTlsWithTheRepeatersCredentialOnly() throws Exception {
    TestCertificates ca = TestCertificates.newCa(dir, "zoolander");
    TestCertificates.Issued server = ca.issue("zoolander-server");
    Path pluginSecrets =
        TestCertificates.write(dir, "plugin-secrets", "repeater=" + REPEATER_SECRET + "\n");
    Path repeaterSecret = TestCertificates.write(dir, "repeater-secret", REPEATER_SECRET + "\n");
    Znodes znodes = Znodes.defaults();
    TlsSettings tls =
        TlsSettings.builder()
            .keyStore(server.pkcs12(), TestCertificates.PASSWORD)
            .trustPem(ca.caPem())
            .build();
    Credential credential = Credential.secretFile("repeater", repeaterSecret);
    try (ZooKeeperEnsemble ensemble =
        ZooKeeperEnsemble.builder()
            .servers(1)
            .baseDir(dir.resolve("duplicate-1"))
            .zoolanderDuplicate(1, znodes.basePath())
            .property("zoolander.tls.enabled", "true")
            .property("zoolander.tls.certificate", server.certificate().toString())
            .property("zoolander.tls.privateKey", server.key().toString())
            .property("zoolander.tls.trustCertificates", ca.caPem().toString())
            .property("zoolander.auth.secretsFile", pluginSecrets.toString())
            .property("zoolander.auth.allow.repeater", "repeater")
            .jvmArgs("-XX:TieredStopAtLevel=1", "-Xshare:auto")
            .startTimeout(Duration.ofSeconds(30))
            .build()) {
      ensemble.start();
      List<Long> seqs = new ArrayList<>();
      PluginEndpoint endpoint;
      long epoch;
      try (Repeater repeater =
          Repeater.builder()
              .duplicate(1, ensemble.connectString())
              .tls(tls)
              .credential(credential)
              .build()
              .start()) {
        epoch = repeater.takeover().epoch();
        try (ZoolanderClient client =
            ZoolanderClient.builder()
                .repeater("127.0.0.1", repeater.boundAddress().getPort())
                .duplicate(ensemble.connectString())
                .tls(TlsSettings.builder().trustPem(ca.caPem()).build())
                .requestTimeout(Duration.ofSeconds(20))
                .build()) {
          for (int i = 0; i < 3; i++) {
            seqs.add(
                client
                    .writeAll(List.of(Op.create("/recovered-" + i, "v".getBytes(UTF_8))))
                    .join()
                    .seq());
          }
        }
        endpoint = endpoint(ensemble.connectString(), znodes);
      }

      EventLoopGroup group = new NioEventLoopGroup(1);
      try {
        Bootstrap bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class);
        List<Message.Sequenced> fetched =
            Recovery.fetch(
                bootstrap,
                new LinkSecurity(tls, AccessControl.none(), credential),
                endpoint,
                epoch + 1,
                seqs.get(0),
                seqs.get(2),
                10_000);
        assertThat(fetched).extracting(Message.Sequenced::seq).containsExactlyElementsOf(seqs);
        assertThat(fetched)
            .extracting(w -> w.ops().get(0).path())
            .containsExactly("/recovered-0", "/recovered-1", "/recovered-2");

        // Without the credential the plugin serves nothing; without TLS the connection fails.
        assertThatThrownBy(
                () ->
                    Recovery.fetch(
                        bootstrap,
                        new LinkSecurity(tls, AccessControl.none(), null),
                        endpoint,
                        epoch + 1,
                        seqs.get(0),
                        seqs.get(2),
                        10_000))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("requires authentication");
        assertThatThrownBy(
                () ->
                    Recovery.fetch(
                        bootstrap,
                        LinkSecurity.NONE,
                        endpoint,
                        epoch + 1,
                        seqs.get(0),
                        seqs.get(2),
                        10_000))
            .isInstanceOfAny(IOException.class, TimeoutException.class);
      } finally {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
      }
    }
  }

  private static PluginEndpoint endpoint(String connectString, Znodes znodes) throws Exception {
    ZooKeeper zk =
        ZooKeepers.connect(connectString, Duration.ofSeconds(10), Duration.ofSeconds(30));
    try {
      return PluginEndpoint.decode(zk.getData(znodes.endpoint(), false, null));
    } finally {
      zk.close(1_000);
    }
  }
}

package io.zoolander.wire;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS for every Zoolander link (client to repeater, repeater to plugin, client to plugin), the same
 * type for all three roles. Uses the JDK's TLS provider through Netty's {@link SslHandler}.
 *
 * <pre>{@code
 * TlsSettings tls = TlsSettings.builder()
 *     .keyCertChainPem(Path.of("server.pem"), Path.of("server.key"))   // or .keyStore(Path.of("server.p12"), pw)
 *     .trustPem(Path.of("ca.pem"))                                      // or .trustStore(...)
 *     .requireClientCertificate(true)                                   // mutual TLS (servers)
 *     .build();
 * }</pre>
 *
 * <p>Trust material is required: it verifies servers and, with {@link
 * Builder#requireClientCertificate(boolean)}, clients; there is no "trust everything" mode. A key
 * and certificate are required by a server (the repeater's client listener, a plugin) and by a
 * client when the server requires client certificates. The repeater uses one settings object both
 * as a server (to clients) and as a client (to plugins), so its certificate should allow both uses.
 * Private keys in PEM are PKCS#8 ({@code BEGIN PRIVATE KEY}, or {@code BEGIN ENCRYPTED PRIVATE KEY}
 * with a password).
 *
 * <p>{@link Builder#build()} reads and checks every file at once (clear {@link
 * IllegalArgumentException}s for missing or unreadable files and wrong passwords) and prepares the
 * TLS contexts; the object is then immutable and thread-safe.
 */
public final class TlsSettings {
  /** Name of the TLS handler in a pipeline: the first handler, below the wire protocol. */
  public static final String HANDLER_NAME = "zoolander.tls";

  /** Default bound on a TLS handshake, in milliseconds. */
  public static final long DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

  private static final Pattern PEM_KEY =
      Pattern.compile(
          "-----BEGIN (ENCRYPTED )?PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END (ENCRYPTED )?PRIVATE KEY-----");

  private final SslContext server; // null without a key
  private final SslContext client;
  private final boolean hasKey;
  private final boolean requireClientCertificate;
  private final boolean verifyHostname;
  private final long handshakeTimeoutMs;
  private final String description;
  private final Optional<String> keyPrincipal;

  private TlsSettings(Builder b, SslContext server, SslContext client, String description) {
    this.keyPrincipal = Optional.ofNullable(b.keyCommonName);
    this.server = server;
    this.client = client;
    this.hasKey = server != null;
    this.requireClientCertificate = b.requireClientCertificate;
    this.verifyHostname = b.verifyHostname;
    this.handshakeTimeoutMs = b.handshakeTimeoutMs;
    this.description = description;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Whether a key and certificate are configured: needed to be a server, or a client under mutual
   * TLS.
   */
  public boolean hasKey() {
    return hasKey;
  }

  /**
   * The subject CN of this side's own certificate, if it has a key and its certificate a CN: the
   * principal a server takes for {@link Credential#certificate()}.
   */
  public Optional<String> keyPrincipal() {
    return keyPrincipal;
  }

  /** Whether, as a server, this requires and verifies client certificates (mutual TLS). */
  public boolean requireClientCertificate() {
    return requireClientCertificate;
  }

  /**
   * Whether, as a client, this checks that the server's certificate names the host it connected to.
   */
  public boolean verifyHostname() {
    return verifyHostname;
  }

  /** Bound on a TLS handshake, in milliseconds. */
  public long handshakeTimeoutMs() {
    return handshakeTimeoutMs;
  }

  /**
   * Puts a server-side TLS handler first in {@code pipeline} (before the wire protocol).
   *
   * @throws IllegalStateException if no key and certificate are configured
   */
  public void addServerHandler(ChannelPipeline pipeline) {
    if (server == null) {
      throw new IllegalStateException("tls: a server needs a key and certificate");
    }
    SslHandler handler = server.newHandler(pipeline.channel().alloc());
    handler.setHandshakeTimeoutMillis(handshakeTimeoutMs);
    pipeline.addFirst(HANDLER_NAME, handler);
  }

  /**
   * Puts a client-side TLS handler first in {@code pipeline} for a connection to {@code host:port};
   * the server's certificate must name {@code host} (a DNS or IP subject alternative name) unless
   * hostname verification is off.
   */
  public void addClientHandler(ChannelPipeline pipeline, String host, int port) {
    SslHandler handler = newClientHandler(pipeline.channel().alloc(), host, port);
    pipeline.addFirst(HANDLER_NAME, handler);
  }

  private SslHandler newClientHandler(ByteBufAllocator alloc, String host, int port) {
    SslHandler handler = client.newHandler(alloc, host, port);
    if (verifyHostname) {
      SSLEngine engine = handler.engine();
      SSLParameters parameters = engine.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      engine.setSSLParameters(parameters);
    }
    handler.setHandshakeTimeoutMillis(handshakeTimeoutMs);
    return handler;
  }

  /**
   * The subject CN of the verified TLS certificate of the peer on {@code channel}, if the channel
   * uses TLS, the handshake is done and the peer presented a certificate.
   */
  public static Optional<String> peerPrincipal(Channel channel) {
    SslHandler handler = channel.pipeline().get(SslHandler.class);
    if (handler == null || !handler.handshakeFuture().isSuccess()) {
      return Optional.empty();
    }
    try {
      Certificate[] chain = handler.engine().getSession().getPeerCertificates();
      if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
        return Optional.empty();
      }
      return commonName(leaf);
    } catch (SSLPeerUnverifiedException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether {@code cause} is a TLS failure: a failed handshake (an untrusted or missing
   * certificate), a plaintext peer on a TLS port. Expected from misconfigured or hostile peers, so
   * servers log it in one line, without a stack.
   */
  public static boolean isTlsFailure(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof javax.net.ssl.SSLException) {
        return true;
      }
    }
    return false;
  }

  /** The CN of a certificate's subject, if it has one. */
  public static Optional<String> commonName(X509Certificate certificate) {
    try {
      LdapName name = new LdapName(certificate.getSubjectX500Principal().getName());
      for (Rdn rdn : name.getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          return Optional.of(rdn.getValue().toString());
        }
      }
      return Optional.empty();
    } catch (InvalidNameException e) {
      return Optional.empty();
    }
  }

  @Override
  public String toString() {
    return description;
  }

  /**
   * Builds {@link TlsSettings}. Key material comes from PEM files or a key store, trust material
   * from a PEM file of CA certificates or a trust store; each setter validates its arguments
   * (NPE/IAE naming them), {@link #build()} reads the files.
   */
  public static final class Builder {
    private String keyCommonName; // set by build()
    private Path certificateChain;
    private Path privateKey;
    private char[] privateKeyPassword;
    private Path keyStore;
    private char[] keyStorePassword;
    private String keyStoreType;
    private Path trustPem;
    private Path trustStore;
    private char[] trustStorePassword;
    private String trustStoreType;
    private boolean requireClientCertificate;
    private boolean verifyHostname = true;
    private long handshakeTimeoutMs = DEFAULT_HANDSHAKE_TIMEOUT_MS;

    private Builder() {}

    /**
     * Key and certificate chain from PEM files: an unencrypted PKCS#8 key. Replaces a key store.
     */
    public Builder keyCertChainPem(Path certificateChain, Path privateKey) {
      return keyCertChainPem(certificateChain, privateKey, null);
    }

    /**
     * Key and certificate chain from PEM files: the leaf certificate first, then its intermediates;
     * a PKCS#8 key, encrypted if {@code keyPassword} is not null. Replaces a key store.
     */
    public Builder keyCertChainPem(Path certificateChain, Path privateKey, char[] keyPassword) {
      this.certificateChain =
          Objects.requireNonNull(certificateChain, "certificateChain must not be null");
      this.privateKey = Objects.requireNonNull(privateKey, "privateKey must not be null");
      this.privateKeyPassword = keyPassword == null ? null : keyPassword.clone();
      this.keyStore = null;
      return this;
    }

    /**
     * Key and certificate chain from a key store; its type from the file name ({@code .jks}: JKS,
     * else PKCS12).
     */
    public Builder keyStore(Path file, char[] password) {
      return keyStore(file, password, typeOf(file));
    }

    /**
     * Key and certificate chain from a key store holding one key entry, whose password is the
     * store's. Replaces PEM key material.
     *
     * @param type {@code PKCS12} or {@code JKS}
     */
    public Builder keyStore(Path file, char[] password, String type) {
      this.keyStore = Objects.requireNonNull(file, "keyStore must not be null");
      this.keyStorePassword =
          Objects.requireNonNull(password, "keyStorePassword must not be null").clone();
      this.keyStoreType = storeType(type, "keyStoreType");
      this.certificateChain = null;
      this.privateKey = null;
      return this;
    }

    /**
     * Trusted CA certificates from a PEM file (one or more certificates). Replaces a trust store.
     */
    public Builder trustPem(Path caCertificates) {
      this.trustPem = Objects.requireNonNull(caCertificates, "trustCertificates must not be null");
      this.trustStore = null;
      return this;
    }

    /**
     * Trusted CA certificates from a trust store; its type from the file name ({@code .jks}: JKS,
     * else PKCS12).
     */
    public Builder trustStore(Path file, char[] password) {
      return trustStore(file, password, typeOf(file));
    }

    /**
     * Trusted CA certificates from a trust store. Replaces a PEM trust file.
     *
     * @param type {@code PKCS12} or {@code JKS}
     */
    public Builder trustStore(Path file, char[] password, String type) {
      this.trustStore = Objects.requireNonNull(file, "trustStore must not be null");
      this.trustStorePassword =
          Objects.requireNonNull(password, "trustStorePassword must not be null").clone();
      this.trustStoreType = storeType(type, "trustStoreType");
      this.trustPem = null;
      return this;
    }

    /**
     * As a server, require a client certificate signed by a trusted CA (mutual TLS); off by
     * default.
     */
    public Builder requireClientCertificate(boolean require) {
      this.requireClientCertificate = require;
      return this;
    }

    /**
     * As a client, check that the server's certificate names the host connected to; on by default.
     */
    public Builder verifyHostname(boolean verify) {
      this.verifyHostname = verify;
      return this;
    }

    /**
     * Bound on a TLS handshake (default {@value TlsSettings#DEFAULT_HANDSHAKE_TIMEOUT_MS} ms), 1 ms
     * to 10 min.
     */
    public Builder handshakeTimeoutMs(long timeoutMs) {
      if (timeoutMs < 1 || timeoutMs > 600_000) {
        throw new IllegalArgumentException(
            "handshakeTimeoutMs must be in 1..600000, was " + timeoutMs);
      }
      this.handshakeTimeoutMs = timeoutMs;
      return this;
    }

    /**
     * Reads every file and prepares the TLS contexts.
     *
     * @throws IllegalStateException if no trust material is configured
     * @throws IllegalArgumentException if a file is missing, unreadable or invalid, or a password
     *     is wrong; the message names the setting and the file
     */
    public TlsSettings build() {
      if (trustPem == null && trustStore == null) {
        throw new IllegalStateException("tls: trust material is required (trustPem or trustStore)");
      }
      TrustManagerFactory trust = trustManager();
      KeyManagerFactory keys = keyManager();
      try {
        SslContext server = null;
        if (keys != null) {
          server =
              SslContextBuilder.forServer(keys)
                  .sslProvider(SslProvider.JDK)
                  .trustManager(trust)
                  .clientAuth(requireClientCertificate ? ClientAuth.REQUIRE : ClientAuth.NONE)
                  .build();
        } else if (requireClientCertificate) {
          throw new IllegalStateException(
              "tls: requireClientCertificate needs a key and certificate (a server)");
        }
        SslContextBuilder client =
            SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(trust);
        if (keys != null) {
          client.keyManager(keys);
        }
        String description =
            "TlsSettings[key="
                + (keyStore != null ? keyStore : certificateChain)
                + ", trust="
                + (trustStore != null ? trustStore : trustPem)
                + ", requireClientCertificate="
                + requireClientCertificate
                + ", verifyHostname="
                + verifyHostname
                + "]";
        return new TlsSettings(this, server, client.build(), description);
      } catch (javax.net.ssl.SSLException e) {
        throw new IllegalArgumentException("tls: cannot set up TLS: " + e.getMessage(), e);
      }
    }

    private TrustManagerFactory trustManager() {
      try {
        KeyStore store;
        if (trustStore != null) {
          store = loadStore(trustStore, trustStorePassword, trustStoreType, "trustStore");
        } else {
          store = KeyStore.getInstance(KeyStore.getDefaultType());
          store.load(null, null);
          int i = 0;
          for (X509Certificate c : readCertificates(trustPem, "trustCertificates")) {
            store.setCertificateEntry("ca-" + i++, c);
          }
        }
        TrustManagerFactory tmf =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        return tmf;
      } catch (GeneralSecurityException | IOException e) {
        throw new IllegalArgumentException(
            "tls: cannot use the trust material: " + e.getMessage(), e);
      }
    }

    private KeyManagerFactory keyManager() {
      if (keyStore == null && certificateChain == null) {
        return null;
      }
      try {
        KeyStore store;
        char[] password;
        if (keyStore != null) {
          store = loadStore(keyStore, keyStorePassword, keyStoreType, "keyStore");
          password = keyStorePassword;
          if (!hasKeyEntry(store)) {
            throw new IllegalArgumentException(
                "keyStore: " + keyStore + " holds no private key entry");
          }
        } else {
          List<X509Certificate> chain = readCertificates(certificateChain, "certificateChain");
          PrivateKey key = readPrivateKey(privateKey, privateKeyPassword);
          password = new char[0];
          store = KeyStore.getInstance("PKCS12");
          store.load(null, null);
          store.setKeyEntry("key", key, password, chain.toArray(new Certificate[0]));
        }
        keyCommonName = commonNameOfKey(store);
        KeyManagerFactory kmf =
            KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, password);
        return kmf;
      } catch (UnrecoverableKeyException e) {
        throw new IllegalArgumentException(
            "keyStorePassword: cannot recover the key in " + keyStore + " (wrong password?)", e);
      } catch (GeneralSecurityException | IOException e) {
        throw new IllegalArgumentException(
            "tls: cannot use the key material: " + e.getMessage(), e);
      }
    }

    private static String commonNameOfKey(KeyStore store) throws GeneralSecurityException {
      for (String alias : java.util.Collections.list(store.aliases())) {
        if (store.isKeyEntry(alias) && store.getCertificate(alias) instanceof X509Certificate c) {
          return commonName(c).orElse(null);
        }
      }
      return null;
    }

    private static boolean hasKeyEntry(KeyStore store) throws GeneralSecurityException {
      for (String alias : java.util.Collections.list(store.aliases())) {
        if (store.isKeyEntry(alias)) {
          return true;
        }
      }
      return false;
    }

    private static KeyStore loadStore(Path file, char[] password, String type, String name) {
      byte[] bytes = read(file, name);
      try {
        KeyStore store = KeyStore.getInstance(type);
        store.load(new ByteArrayInputStream(bytes), password);
        return store;
      } catch (IOException e) {
        if (e.getCause() instanceof UnrecoverableKeyException
            || String.valueOf(e.getMessage()).contains("password")) {
          throw new IllegalArgumentException(name + "Password: wrong password for " + file, e);
        }
        throw new IllegalArgumentException(
            name + ": " + file + " is not a readable " + type + " store: " + e.getMessage(), e);
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException(
            name + ": " + file + " is not a readable " + type + " store: " + e.getMessage(), e);
      }
    }

    private static List<X509Certificate> readCertificates(Path file, String name) {
      byte[] bytes = read(file, name);
      try (InputStream in = new ByteArrayInputStream(bytes)) {
        Collection<? extends Certificate> certificates =
            CertificateFactory.getInstance("X.509").generateCertificates(in);
        List<X509Certificate> list = new ArrayList<>();
        for (Certificate c : certificates) {
          list.add((X509Certificate) c);
        }
        if (list.isEmpty()) {
          throw new IllegalArgumentException(name + ": " + file + " holds no certificate");
        }
        return list;
      } catch (GeneralSecurityException | IOException e) {
        throw new IllegalArgumentException(
            name + ": " + file + " is not a PEM certificate file: " + e.getMessage(), e);
      }
    }

    private static PrivateKey readPrivateKey(Path file, char[] password) {
      String pem = new String(read(file, "privateKey"), StandardCharsets.US_ASCII);
      Matcher m = PEM_KEY.matcher(pem);
      if (!m.find()) {
        throw new IllegalArgumentException(
            "privateKey: "
                + file
                + " holds no PKCS#8 PEM key (BEGIN PRIVATE KEY or"
                + " BEGIN ENCRYPTED PRIVATE KEY)");
      }
      boolean encrypted = m.group(1) != null;
      byte[] der = Base64.getMimeDecoder().decode(m.group(2));
      PKCS8EncodedKeySpec spec;
      if (encrypted) {
        if (password == null) {
          throw new IllegalArgumentException(
              "privateKeyPassword: " + file + " is encrypted; a password is required");
        }
        try {
          EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
          SecretKeyFactory factory = SecretKeyFactory.getInstance(info.getAlgName());
          spec = info.getKeySpec(factory.generateSecret(new PBEKeySpec(password)));
        } catch (GeneralSecurityException | IOException e) {
          throw new IllegalArgumentException(
              "privateKeyPassword: cannot decrypt " + file + " (wrong password?)", e);
        }
      } else {
        spec = new PKCS8EncodedKeySpec(der);
      }
      for (String algorithm : new String[] {"RSA", "EC", "Ed25519", "Ed448"}) {
        try {
          return KeyFactory.getInstance(algorithm).generatePrivate(spec);
        } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
          // try the next algorithm
        }
      }
      throw new IllegalArgumentException("privateKey: " + file + " is not an RSA, EC or EdDSA key");
    }

    private static byte[] read(Path file, String name) {
      if (!Files.exists(file)) {
        throw new IllegalArgumentException(name + ": " + file + " does not exist");
      }
      if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
        throw new IllegalArgumentException(name + ": " + file + " is not a readable file");
      }
      try {
        return Files.readAllBytes(file);
      } catch (IOException e) {
        throw new IllegalArgumentException(
            name + ": cannot read " + file + ": " + e.getMessage(), e);
      }
    }

    private static String typeOf(Path file) {
      Objects.requireNonNull(file, "store file must not be null");
      return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jks")
          ? "JKS"
          : "PKCS12";
    }

    private static String storeType(String type, String name) {
      Objects.requireNonNull(type, name + " must not be null");
      String upper = type.strip().toUpperCase(Locale.ROOT);
      if (!upper.equals("PKCS12") && !upper.equals("JKS")) {
        throw new IllegalArgumentException(name + " must be PKCS12 or JKS, was '" + type + "'");
      }
      return upper;
    }
  }
}

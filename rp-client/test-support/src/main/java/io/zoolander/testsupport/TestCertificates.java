package io.zoolander.testsupport;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OutputEncryptor;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates made at test time: a CA, and certificates it signs (EC P-256, valid for a day),
 * written as PEM files (certificate chain, PKCS#8 key, encrypted PKCS#8 key) and key/trust stores
 * (PKCS12 and JKS).
 */
public final class TestCertificates {
  /** Password of every store and encrypted key written here. */
  public static final char[] PASSWORD = "test-password".toCharArray();

  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path dir;
  private final String name;
  private final KeyPair caKeys;
  private final X509Certificate ca;

  private TestCertificates(Path dir, String name, KeyPair caKeys, X509Certificate ca) {
    this.dir = dir;
    this.name = name;
    this.caKeys = caKeys;
    this.ca = ca;
  }

  /** A new CA named {@code name}, whose files go to {@code dir}; writes {@code <name>-ca.pem}. */
  public static TestCertificates newCa(Path dir, String name) throws Exception {
    KeyPair keys = ecKeys();
    X500Name subject = new X500Name("CN=" + name + " test CA");
    X509v3CertificateBuilder b = builder(subject, subject, keys);
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
    b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    X509Certificate ca = sign(b, keys.getPrivate());
    TestCertificates cas = new TestCertificates(dir, name, keys, ca);
    Files.writeString(cas.caPem(), pem(ca));
    return cas;
  }

  /** The PEM file of this CA's certificate (the trust file). */
  public Path caPem() {
    return dir.resolve(name + "-ca.pem");
  }

  /** A trust store (PKCS12 or JKS) holding this CA's certificate. */
  public Path trustStore(String type) throws Exception {
    KeyStore store = KeyStore.getInstance(type);
    store.load(null, null);
    store.setCertificateEntry("ca", ca);
    Path file = dir.resolve(name + "-trust." + (type.equals("JKS") ? "jks" : "p12"));
    try (OutputStream out = Files.newOutputStream(file)) {
      store.store(out, PASSWORD);
    }
    return file;
  }

  /**
   * Issues a certificate for {@code cn}, usable by servers and clients, naming 127.0.0.1 and
   * localhost.
   *
   * @return its files
   */
  public Issued issue(String cn) throws Exception {
    KeyPair keys = ecKeys();
    X509v3CertificateBuilder b =
        builder(
            new X500Name(ca.getSubjectX500Principal().getName()), new X500Name("CN=" + cn), keys);
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    b.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(
            new GeneralName[] {
              new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
              new GeneralName(GeneralName.dNSName, "localhost")
            }));
    X509Certificate cert = sign(b, caKeys.getPrivate());
    String base = name + "-" + cn;
    Path certificate = dir.resolve(base + ".pem");
    Files.writeString(certificate, pem(cert) + pem(ca));
    Path key = dir.resolve(base + ".key");
    Files.writeString(key, pkcs8(keys.getPrivate(), null));
    Path encryptedKey = dir.resolve(base + "-encrypted.key");
    OutputEncryptor encryptor =
        new JceOpenSSLPKCS8EncryptorBuilder(JcaPKCS8Generator.PBE_SHA1_3DES)
            .setRandom(RANDOM)
            .setPassword(PASSWORD)
            .build();
    Files.writeString(encryptedKey, pkcs8(keys.getPrivate(), encryptor));
    Path pkcs12 = keyStore(base, "PKCS12", keys.getPrivate(), cert);
    Path jks = keyStore(base, "JKS", keys.getPrivate(), cert);
    return new Issued(certificate, key, encryptedKey, pkcs12, jks);
  }

  /**
   * The files of an issued certificate: PEM chain, PEM PKCS#8 key (plain and encrypted), PKCS12 and
   * JKS stores.
   */
  public record Issued(Path certificate, Path key, Path encryptedKey, Path pkcs12, Path jks) {}

  private Path keyStore(String base, String type, PrivateKey key, X509Certificate cert)
      throws Exception {
    KeyStore store = KeyStore.getInstance(type);
    store.load(null, null);
    store.setKeyEntry("key", key, PASSWORD, new Certificate[] {cert, ca});
    Path file = dir.resolve(base + "." + (type.equals("JKS") ? "jks" : "p12"));
    try (OutputStream out = Files.newOutputStream(file)) {
      store.store(out, PASSWORD);
    }
    return file;
  }

  private static KeyPair ecKeys() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(SERIAL.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))),
        Date.from(now.plus(Duration.ofDays(1))),
        subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer)
      throws Exception {
    ContentSigner s = new JcaContentSignerBuilder("SHA256withECDSA").build(signer);
    return new JcaX509CertificateConverter().getCertificate(b.build(s));
  }

  private static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    }
    return out.toString();
  }

  private static String pkcs8(PrivateKey key, OutputEncryptor encryptor) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(new JcaPKCS8Generator(key, encryptor));
    }
    return out.toString();
  }

  /** Writes {@code text} to a new file in {@code dir}. */
  public static Path write(Path dir, String file, String text) throws IOException {
    return Files.writeString(dir.resolve(file), text, StandardCharsets.UTF_8);
  }
}

package io.zoolander.server.internal.security;

import io.zoolander.server.settings.Setting;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The security keys shared by the plugin's {@code zoo.cfg} entries (prefix {@code zoolander.}) and
 * the repeater's properties file (no prefix), as {@link Setting} descriptors, and their parsing
 * into a {@link LinkSecurity}. Internal.
 */
public final class SecurityKeys {
  private SecurityKeys() {}

  public static final String TLS_ENABLED = "tls.enabled";
  public static final String TLS_CERTIFICATE = "tls.certificate";
  public static final String TLS_PRIVATE_KEY = "tls.privateKey";
  public static final String TLS_PRIVATE_KEY_PASSWORD = "tls.privateKeyPassword";
  public static final String TLS_KEY_STORE = "tls.keyStore";
  public static final String TLS_KEY_STORE_PASSWORD = "tls.keyStorePassword";
  public static final String TLS_KEY_STORE_TYPE = "tls.keyStoreType";
  public static final String TLS_TRUST_CERTIFICATES = "tls.trustCertificates";
  public static final String TLS_TRUST_STORE = "tls.trustStore";
  public static final String TLS_TRUST_STORE_PASSWORD = "tls.trustStorePassword";
  public static final String TLS_TRUST_STORE_TYPE = "tls.trustStoreType";
  public static final String TLS_REQUIRE_CLIENT_CERTIFICATE = "tls.requireClientCertificate";
  public static final String TLS_VERIFY_HOSTNAME = "tls.verifyHostname";
  public static final String AUTH_SECRETS_FILE = "auth.secretsFile";
  public static final String AUTH_ALLOW_CLIENT = "auth.allow.client";
  public static final String AUTH_ALLOW_REPEATER = "auth.allow.repeater";
  public static final String AUTH_PRINCIPAL = "auth.principal";
  public static final String AUTH_SECRET_FILE = "auth.secretFile";
  public static final String AUTH_CERTIFICATE = "auth.certificate";

  /** A boolean security setting: {@code true} or {@code false}, in any case. */
  private static Setting<Boolean> flag(String key, boolean defaultValue, String doc) {
    return Setting.of(
            key,
            "boolean",
            text -> {
              if (text.strip().equalsIgnoreCase("true")) {
                return Boolean.TRUE;
              }
              if (text.strip().equalsIgnoreCase("false")) {
                return Boolean.FALSE;
              }
              throw new IllegalArgumentException("must be true or false, was '" + text + "'");
            })
        .defaultValue(defaultValue)
        .doc(doc)
        .build();
  }

  /** A security setting whose value is text (a file, a password, a list), without a default. */
  private static Setting<String> text(String key, String defaultText, String doc) {
    return Setting.text(key).defaultText(defaultText).doc(doc).build();
  }

  /** The TLS keys, for every role, without prefix. */
  public static final List<Setting<?>> TLS =
      List.of(
          flag(
              TLS_ENABLED,
              false,
              "TLS on every Zoolander connection this process accepts or makes (true/false)."),
          text(
              TLS_CERTIFICATE,
              "(none)",
              "PEM file with this process's certificate chain, leaf first (with "
                  + TLS_PRIVATE_KEY
                  + "; or use "
                  + TLS_KEY_STORE
                  + ")."),
          text(
              TLS_PRIVATE_KEY,
              "(none)",
              "PEM file with the PKCS#8 private key of " + TLS_CERTIFICATE + "."),
          text(
              TLS_PRIVATE_KEY_PASSWORD,
              "(none)",
              "Password of an encrypted PKCS#8 key (BEGIN ENCRYPTED PRIVATE KEY)."),
          text(
              TLS_KEY_STORE,
              "(none)",
              "PKCS12 or JKS key store with this process's key and certificate chain."),
          text(
              TLS_KEY_STORE_PASSWORD,
              "(required with a key store)",
              "Password of the key store and its key."),
          text(TLS_KEY_STORE_TYPE, "(from the file name: .jks JKS, else PKCS12)", "PKCS12 or JKS."),
          text(
              TLS_TRUST_CERTIFICATES,
              "(none)",
              "PEM file with the CA certificates trusted to sign peers' "
                  + "certificates (or use "
                  + TLS_TRUST_STORE
                  + "); one of the two is required with TLS."),
          text(
              TLS_TRUST_STORE,
              "(none)",
              "PKCS12 or JKS trust store with the trusted CA certificates."),
          text(
              TLS_TRUST_STORE_PASSWORD,
              "(required with a trust store)",
              "Password of the trust store."),
          text(
              TLS_TRUST_STORE_TYPE,
              "(from the file name: .jks JKS, else PKCS12)",
              "PKCS12 or JKS."),
          flag(
              TLS_REQUIRE_CLIENT_CERTIFICATE,
              false,
              "Mutual TLS: connecting peers must present a certificate "
                  + "signed by a trusted CA (true/false)."),
          flag(
              TLS_VERIFY_HOSTNAME,
              true,
              "When connecting, check that the server's certificate names the host "
                  + "connected to (DNS or IP subject alternative name)."));

  /** The authentication key of a server that challenges connecting peers, without prefix. */
  public static final Setting<String> SECRETS_FILE =
      text(
          AUTH_SECRETS_FILE,
          "(none)",
          "File of principal=secret lines: the "
              + "shared secrets of the principals that authenticate with one (16+ bytes each). Keep it readable by this "
              + "process only.");

  /**
   * An allow-list key ({@link #AUTH_ALLOW_CLIENT}, {@link #AUTH_ALLOW_REPEATER}): comma-separated
   * principals.
   */
  public static Setting<String> allowList(String key, String defaultText, String doc) {
    return text(key, defaultText, doc);
  }

  /** The credential keys of a process that connects to a server that challenges it. */
  public static final List<Setting<?>> CREDENTIAL =
      List.of(
          text(
              AUTH_PRINCIPAL,
              "(none)",
              "Principal this process authenticates as when challenged (with "
                  + AUTH_SECRET_FILE
                  + ")."),
          text(
              AUTH_SECRET_FILE,
              "(none)",
              "File holding the shared secret of "
                  + AUTH_PRINCIPAL
                  + " (16+ bytes; "
                  + "trailing line breaks ignored)."),
          flag(
              AUTH_CERTIFICATE,
              false,
              "true: authenticate with this process's TLS certificate (its subject CN is "
                  + "the principal) instead of a shared secret; needs TLS with a key."));

  /**
   * Reads the TLS settings, or null when TLS is off.
   *
   * @param prefix prepended to every key ({@code zoolander.} in zoo.cfg, empty in the repeater's
   *     file)
   * @param errors where every problem goes, naming the full key
   */
  public static TlsSettings tls(Map<String, String> values, String prefix, List<String> errors) {
    if (!bool(values, prefix, TLS_ENABLED, false, errors)) {
      for (Setting<?> k : TLS) {
        if (!k.key().equals(TLS_ENABLED) && value(values, prefix, k.key()) != null) {
          errors.add(prefix + k.key() + " is set but " + prefix + TLS_ENABLED + " is not true");
        }
      }
      return null;
    }
    try {
      TlsSettings.Builder b = TlsSettings.builder();
      String keyStore = value(values, prefix, TLS_KEY_STORE);
      String certificate = value(values, prefix, TLS_CERTIFICATE);
      if (keyStore != null && certificate != null) {
        errors.add(
            prefix
                + TLS_KEY_STORE
                + " and "
                + prefix
                + TLS_CERTIFICATE
                + " are both set: choose one");
        return null;
      }
      if (keyStore != null) {
        String type = value(values, prefix, TLS_KEY_STORE_TYPE);
        char[] password = required(values, prefix, TLS_KEY_STORE_PASSWORD, errors);
        if (password == null) {
          return null;
        }
        if (type == null) {
          b.keyStore(Path.of(keyStore), password);
        } else {
          b.keyStore(Path.of(keyStore), password, type);
        }
      } else if (certificate != null) {
        String key = value(values, prefix, TLS_PRIVATE_KEY);
        if (key == null) {
          errors.add(prefix + TLS_PRIVATE_KEY + " is required with " + prefix + TLS_CERTIFICATE);
          return null;
        }
        String password = value(values, prefix, TLS_PRIVATE_KEY_PASSWORD);
        b.keyCertChainPem(
            Path.of(certificate), Path.of(key), password == null ? null : password.toCharArray());
      }
      String trustStore = value(values, prefix, TLS_TRUST_STORE);
      String trustPem = value(values, prefix, TLS_TRUST_CERTIFICATES);
      if (trustStore != null && trustPem != null) {
        errors.add(
            prefix
                + TLS_TRUST_STORE
                + " and "
                + prefix
                + TLS_TRUST_CERTIFICATES
                + " are both set: choose one");
        return null;
      }
      if (trustStore != null) {
        String type = value(values, prefix, TLS_TRUST_STORE_TYPE);
        char[] password = required(values, prefix, TLS_TRUST_STORE_PASSWORD, errors);
        if (password == null) {
          return null;
        }
        if (type == null) {
          b.trustStore(Path.of(trustStore), password);
        } else {
          b.trustStore(Path.of(trustStore), password, type);
        }
      } else if (trustPem != null) {
        b.trustPem(Path.of(trustPem));
      } else {
        errors.add(
            prefix
                + TLS_TRUST_CERTIFICATES
                + " or "
                + prefix
                + TLS_TRUST_STORE
                + " is required with TLS");
        return null;
      }
      b.requireClientCertificate(
          bool(values, prefix, TLS_REQUIRE_CLIENT_CERTIFICATE, false, errors));
      b.verifyHostname(bool(values, prefix, TLS_VERIFY_HOSTNAME, true, errors));
      return b.build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      errors.add(prefix + "tls: " + e.getMessage());
      return null;
    }
  }

  /**
   * Reads who may connect in which role.
   *
   * @param roles the allow-list keys this process accepts, each with its role
   */
  public static AccessControl access(
      Map<String, String> values, String prefix, Map<String, Role> roles, List<String> errors) {
    AccessControl.Builder b = AccessControl.builder();
    try {
      String secrets = value(values, prefix, AUTH_SECRETS_FILE);
      if (secrets != null) {
        b.secretsFile(Path.of(secrets));
      }
      roles.forEach(
          (key, role) -> {
            String list = value(values, prefix, key);
            if (list != null) {
              List<String> principals = new ArrayList<>();
              for (String p : list.split(",", -1)) { // empty entries are skipped below
                if (!p.isBlank()) {
                  principals.add(p.strip());
                }
              }
              b.allow(role, principals.toArray(new String[0]));
            }
          });
    } catch (IllegalArgumentException e) {
      errors.add(prefix + "auth: " + e.getMessage());
    }
    return b.build();
  }

  /** Reads this process's own credential, or null if none is configured. */
  public static Credential credential(
      Map<String, String> values, String prefix, TlsSettings tls, List<String> errors) {
    String principal = value(values, prefix, AUTH_PRINCIPAL);
    String secretFile = value(values, prefix, AUTH_SECRET_FILE);
    boolean certificate = bool(values, prefix, AUTH_CERTIFICATE, false, errors);
    if (certificate) {
      if (principal != null || secretFile != null) {
        errors.add(
            prefix
                + AUTH_CERTIFICATE
                + "=true excludes "
                + prefix
                + AUTH_PRINCIPAL
                + " and "
                + prefix
                + AUTH_SECRET_FILE);
        return null;
      }
      if (tls == null || !tls.hasKey()) {
        errors.add(prefix + AUTH_CERTIFICATE + "=true needs TLS with a key and certificate");
        return null;
      }
      return Credential.certificate();
    }
    if (principal == null && secretFile == null) {
      return null;
    }
    if (principal == null || secretFile == null) {
      errors.add(prefix + AUTH_PRINCIPAL + " and " + prefix + AUTH_SECRET_FILE + " go together");
      return null;
    }
    try {
      return Credential.secretFile(principal, Path.of(secretFile));
    } catch (IllegalArgumentException e) {
      errors.add(prefix + "auth: " + e.getMessage());
      return null;
    }
  }

  /** The trimmed value of {@code prefix + key}, null if absent or blank. */
  public static String value(Map<String, String> values, String prefix, String key) {
    String v = values.get(prefix + key);
    return v == null || v.isBlank() ? null : v.strip();
  }

  private static char[] required(
      Map<String, String> values, String prefix, String key, List<String> errors) {
    String v = values.get(prefix + key);
    if (v == null) {
      errors.add(prefix + key + " is required");
      return null;
    }
    return v.toCharArray(); // a password may be blank or have spaces
  }

  private static boolean bool(
      Map<String, String> values,
      String prefix,
      String key,
      boolean defaultValue,
      List<String> errors) {
    String v = value(values, prefix, key);
    if (v == null) {
      return defaultValue;
    }
    if (v.equalsIgnoreCase("true")) {
      return true;
    }
    if (v.equalsIgnoreCase("false")) {
      return false;
    }
    errors.add(prefix + key + " must be true or false, was '" + v + "'");
    return defaultValue;
  }
}

package io.hamiobserve.edge;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Self-signed server identities made by the JDK's keytool, written as PEM files as operators have them. */
final class TestCertificates {
    static final char[] STORE_PASSWORD = "changeit".toCharArray();

    private TestCertificates() {
    }

    /**
     * A key pair and certificate for localhost and 127.0.0.1.
     *
     * @param store     the PKCS#12 store the identity is kept in (alias "server")
     * @param cert      the certificate, PEM
     * @param key       the private key, PEM (PKCS#8)
     */
    record Identity(KeyStore store, Path cert, Path key) {
        X509Certificate certificate() throws Exception {
            return (X509Certificate) store.getCertificate("server");
        }
    }

    /**
     * Makes an identity in {@code dir} as {@code name.crt} and {@code name.key}; {@code startDate} is
     * keytool's (e.g. "-10d" for ten days ago, or null for now) and {@code validityDays} counts from it.
     */
    static Identity make(Path dir, String name, String startDate, int validityDays) throws Exception {
        Path store = dir.resolve(name + ".p12");
        Files.deleteIfExists(store);
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
                "-validity", Integer.toString(validityDays), "-dname", "CN=localhost " + name,
                "-ext", "san=dns:localhost,ip:127.0.0.1", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", new String(STORE_PASSWORD)));
        if (startDate != null) {
            command.addAll(List.of("-startdate", startDate));
        }
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0, "keytool: " + output);
        KeyStore identity = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            identity.load(in, STORE_PASSWORD);
        }
        Path cert = dir.resolve(name + ".crt");
        Path key = dir.resolve(name + ".key");
        Files.writeString(cert, pem("CERTIFICATE", identity.getCertificate("server").getEncoded()));
        Files.writeString(key, pem("PRIVATE KEY", identity.getKey("server", STORE_PASSWORD).getEncoded()));
        return new Identity(identity, cert, key);
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}

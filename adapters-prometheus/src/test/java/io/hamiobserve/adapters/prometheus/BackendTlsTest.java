package io.hamiobserve.adapters.prometheus;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.hamiobserve.ports.SourceUnavailableException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code tls_config} against a real TLS server (the JDK's, with certificates made by keytool):
 * the CA file trusted, the certificate checked against {@code server_name} rather than the URL's
 * IP address, the client certificate and PKCS#8 key presented to a server that requires one, and
 * {@code insecure_skip_verify}.
 */
class BackendTlsTest {
    private static final char[] PASSWORD = "changeit".toCharArray();
    private static Path directory;
    private static HttpsServer server;
    private static URI url;
    private static final AtomicReference<String> clientSeen = new AtomicReference<>("");

    @BeforeAll
    static void serve() throws Exception {
        directory = Files.createTempDirectory("hami-observe-backend-tls");
        KeyStore serverKeys = keypair("server", "backend.test");
        KeyStore clientKeys = keypair("client", "console.test");
        pem(directory.resolve("ca.crt"), "CERTIFICATE", serverKeys.getCertificate("server").getEncoded());
        pem(directory.resolve("client.crt"), "CERTIFICATE", clientKeys.getCertificate("client").getEncoded());
        pem(directory.resolve("client.key"), "PRIVATE KEY", clientKeys.getKey("client", PASSWORD).getEncoded());

        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(serverKeys, PASSWORD);
        KeyStore clients = KeyStore.getInstance("PKCS12");
        clients.load(null, null);
        clients.setCertificateEntry("client", clientKeys.getCertificate("client"));
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(clients);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);

        server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(context) {
            @Override
            public void configure(HttpsParameters parameters) {
                SSLParameters ssl = context.getDefaultSSLParameters();
                ssl.setNeedClientAuth(true);
                parameters.setSSLParameters(ssl);
            }
        });
        server.createContext("/", exchange -> {
            SSLSession session = ((com.sun.net.httpserver.HttpsExchange) exchange).getSSLSession();
            clientSeen.set(((java.security.cert.X509Certificate) session.getPeerCertificates()[0])
                    .getSubjectX500Principal().getName());
            exchange.getRequestBody().readAllBytes();
            byte[] body = (exchange.getRequestURI().getPath().endsWith("/api/v1/query")
                    ? "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,\"1\"]}]}}"
                    : "{}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(exchange.getRequestURI().getPath().endsWith("/api/v1/query") ? 200 : 404,
                    body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        url = URI.create("https://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterAll
    static void stop() throws IOException {
        if (server != null) {
            server.stop(0);
        }
        try (var files = Files.walk(directory)) {
            for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** A key pair and a self-signed certificate for {@code name}, made by the JDK's keytool. */
    private static KeyStore keypair(String alias, String name) throws Exception {
        Path store = directory.resolve(alias + ".p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process run = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", alias, "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=" + name, "-ext", "SAN=dns:" + name, "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(run.waitFor(60, TimeUnit.SECONDS) && run.exitValue() == 0, output);
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD);
        }
        return keys;
    }

    private static void pem(Path file, String type, byte[] der) throws IOException {
        Files.writeString(file, "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(
                StandardCharsets.US_ASCII)).encodeToString(der) + "\n-----END " + type + "-----\n");
    }

    private static List<PrometheusApi.Sample> query(String tlsConfig) throws Exception {
        Path config = Files.writeString(directory.resolve("backend.yml"), tlsConfig);
        PrometheusApi api = new PrometheusApi(new QueryBackend(BackendConfig.read(url, config)), Duration.ofSeconds(5));
        return PrometheusApi.await(api.instant(new PromQl.Template("probe", "up").plain(), Instant.now()));
    }

    @Test
    void theCaFileServerNameAndClientCertificateAreUsed() throws Exception {
        List<PrometheusApi.Sample> answer = query("""
                tls_config:
                  ca_file: ca.crt
                  server_name: backend.test
                  cert_file: client.crt
                  key_file: client.key
                """);
        assertEquals(1, answer.size());
        assertEquals("CN=console.test", clientSeen.get(), "the client certificate reached the server");
    }

    @Test
    void aCertificateForAnotherNameIsRefused() {
        // Without server_name the certificate (for backend.test) is checked against 127.0.0.1.
        SourceUnavailableException refused = assertThrows(SourceUnavailableException.class, () -> query("""
                tls_config: {ca_file: ca.crt, cert_file: client.crt, key_file: client.key}
                """));
        assertTrue(refused.getMessage().contains("unreachable"), refused.getMessage());
        assertThrows(SourceUnavailableException.class, () -> query("""
                tls_config: {ca_file: ca.crt, server_name: other.test, cert_file: client.crt, key_file: client.key}
                """));
    }

    @Test
    void anUntrustedServerIsRefusedUnlessVerificationIsOff() throws Exception {
        assertThrows(SourceUnavailableException.class, () -> query("""
                tls_config: {cert_file: client.crt, key_file: client.key}
                """));
        assertEquals(1, query("""
                tls_config: {insecure_skip_verify: true, cert_file: client.crt, key_file: client.key}
                """).size());
    }

    @Test
    void aServerThatRequiresAClientCertificateRefusesNone() {
        assertThrows(SourceUnavailableException.class, () -> query("""
                tls_config: {ca_file: ca.crt, server_name: backend.test}
                """));
    }

    @Test
    void aKeyThatIsNotPkcs8IsRefusedWithHowToConvertIt() throws Exception {
        Files.writeString(directory.resolve("rsa.key"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> query("""
                tls_config: {ca_file: ca.crt, cert_file: client.crt, key_file: rsa.key}
                """));
        assertTrue(refused.getMessage().contains("openssl pkcs8 -topk8"), refused.getMessage());
    }
}

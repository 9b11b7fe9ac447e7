package io.hamiobserve.edge;

import io.hamiobserve.edge.testing.SampleSource;
import at.favre.lib.crypto.bcrypt.BCrypt;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.http.WebConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** TLS and basic auth from an exporter-toolkit web config file, on a certificate made by keytool. */
class TlsTest {
    private static final char[] STORE_PASSWORD = TestCertificates.STORE_PASSWORD;
    @TempDir
    static Path dir;
    private static KeyStore identity;
    private static String hash;
    private final List<Servers.Served> servers = new ArrayList<>();

    @BeforeAll
    static void certificate() throws Exception {
        TestCertificates.Identity server = TestCertificates.make(dir, "server", null, 2);
        identity = server.store();
        hash = BCrypt.withDefaults().hashToString(4, "s3cret".toCharArray());
    }

    @AfterEach
    void stop() {
        servers.forEach(Servers.Served::stop);
    }

    private Servers.Served serve(String webConfig) throws IOException {
        Path file = Files.createTempFile(dir, "web", ".yml");
        Files.writeString(file, webConfig);
        Servers.Served served = Servers.serve("127.0.0.1:0", new SampleSource(),
                EdgeConfig.defaults().withWeb(Optional.of(WebConfig.read(file))));
        servers.add(served);
        return served;
    }

    private static HttpClient client(boolean presentCertificate) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("server", identity.getCertificate("server"));
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(identity, STORE_PASSWORD);
        context.init(presentCertificate ? keyManagers.getKeyManagers() : null, trustManagers.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
    }

    private static HttpResponse<String> get(HttpClient client, String url, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void tlsWithBasicAuthOnMetricsAndOpenProbes() throws Exception {
        Servers.Served served = serve("""
                # exporter-toolkit web config
                tls_server_config:
                  cert_file: server.crt
                  key_file: "server.key"
                basic_auth_users:
                  prometheus: '%s'
                """.formatted(hash));
        String base = "https://localhost:" + served.port();
        HttpClient client = client(false);

        HttpResponse<String> anonymous = get(client, base + "/metrics");
        assertEquals(401, anonymous.statusCode());
        assertTrue(anonymous.headers().firstValue("www-authenticate").orElseThrow().startsWith("Basic realm="));
        assertEquals(401, get(client, base + "/metrics", "Authorization", basic("prometheus", "wrong")).statusCode());
        assertEquals(401, get(client, base + "/metrics", "Authorization", basic("nobody", "s3cret")).statusCode());
        assertEquals(401, get(client, base + "/metrics", "Authorization", "Basic %%%").statusCode());
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> allowed = get(client, base + "/metrics", "Authorization", basic("prometheus", "s3cret"));
            assertEquals(200, allowed.statusCode());
            assertTrue(allowed.body().contains("hami_gpu_memory_allocated_bytes{"), allowed.body());
        }
        assertEquals(200, get(client, base + "/healthz").statusCode(), "kubelet probes need no credentials");
        assertEquals(200, get(client, base + "/readyz").statusCode());

        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThrows(IOException.class, () -> get(plain, "http://localhost:" + served.port() + "/healthz"),
                "plain HTTP is not served on a TLS port");
    }

    @Test
    void requiredClientCertificates() throws Exception {
        Servers.Served served = serve("""
                tls_server_config:
                  cert_file: server.crt
                  key_file: server.key
                  client_auth_type: RequireAndVerifyClientCert
                  client_ca_file: server.crt
                """);
        String base = "https://localhost:" + served.port();
        assertEquals(200, get(client(true), base + "/metrics").statusCode());
        assertThrows(IOException.class, () -> get(client(false), base + "/metrics"),
                "a client without a certificate is refused in the handshake");
    }

    @Test
    void webConfigMistakesAreRefusedWithAMessage() throws IOException {
        for (String[] bad : new String[][] {
            {"tls_server_config:\n  cert_file: a.crt\n", "needs cert_file and key_file"},
            {"tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n", "unsupported"},
            {"basic_auth_users:\n  alice: plaintext\n", "not a bcrypt hash"},
            {"http_server_config:\n  http2: false\n", "unsupported section"},
            {"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Sometimes\n", "client_auth_type"},
        }) {
            Path file = Files.createTempFile(dir, "bad", ".yml");
            Files.writeString(file, bad[0]);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> WebConfig.read(file));
            assertTrue(refused.getMessage().contains(bad[1]), refused.getMessage());
        }
        Path missingFiles = Files.createTempFile(dir, "missing", ".yml");
        Files.writeString(missingFiles, "tls_server_config:\n  cert_file: none.crt\n  key_file: none.key\n");
        WebConfig config = WebConfig.read(missingFiles);
        assertThrows(IllegalArgumentException.class, () -> Servers.serve("127.0.0.1:0", new SampleSource(),
                EdgeConfig.defaults().withWeb(Optional.of(config))), "unreadable TLS files stop the start");
    }
}

package io.hamiobserve.edge.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The web config decoder: exporter-toolkit's YAML, refused keys, bounded reads, and a fixed-seed fuzz run. */
class WebConfigTest {
    private static final String HASH = "$2y$10$" + "a".repeat(53);
    @TempDir
    Path dir;

    private static WebConfig parse(String yaml) {
        return WebConfig.parse(yaml.getBytes(StandardCharsets.UTF_8), Path.of("/etc/web"), "web.yml");
    }

    private static String refusal(String yaml) {
        return assertThrows(IllegalArgumentException.class, () -> parse(yaml)).getMessage();
    }

    @Test
    void readsExporterToolkitsFormatInEveryYamlStyle() {
        for (String yaml : new String[] {
            """
            # comment
            tls_server_config:
              cert_file: server.crt   # trailing comment
              key_file: "keys/server.key"
              client_auth_type: 'RequireAndVerifyClientCert'
              client_ca_file: /etc/ca/ca.crt
            basic_auth_users:
              prometheus: %s
            """.formatted(HASH),
            "{tls_server_config: {cert_file: server.crt, key_file: keys/server.key, client_auth_type: "
                    + "RequireAndVerifyClientCert, client_ca_file: /etc/ca/ca.crt}, basic_auth_users: {prometheus: '"
                    + HASH + "'}}",
            "---\ntls_server_config:\n    cert_file: server.crt\n    key_file: keys/server.key\n"
                    + "    client_auth_type: RequireAndVerifyClientCert\n    client_ca_file: /etc/ca/ca.crt\n"
                    + "basic_auth_users: {prometheus: \"" + HASH + "\"}\n...\n",
        }) {
            WebConfig config = parse(yaml);
            WebConfig.Tls tls = config.tls().orElseThrow();
            assertEquals(Path.of("/etc/web/server.crt"), tls.certFile(), "relative to the file's directory");
            assertEquals(Path.of("/etc/web/keys/server.key"), tls.keyFile());
            assertEquals(Path.of("/etc/ca/ca.crt"), tls.clientCaFile().orElseThrow());
            assertEquals(WebConfig.ClientAuth.RequireAndVerifyClientCert, tls.clientAuth());
            assertEquals(Map.of("prometheus", HASH), config.users());
        }
        assertTrue(parse("").tls().isEmpty() && parse("").users().isEmpty(), "an empty file configures nothing");
        assertTrue(parse("tls_server_config:\nbasic_auth_users: {}\n").tls().isEmpty(), "empty sections too");
    }

    @Test
    void mistakesAreRefusedWithAOneLineMessage() {
        assertTrue(refusal("tls_server_config:\n  cert_file: a.crt\n").contains("needs cert_file and key_file"));
        String unknownKey = refusal("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n");
        assertTrue(unknownKey.contains("unsupported tls_server_config key min_version")
                && unknownKey.contains("cert_file"), unknownKey);
        assertTrue(refusal("http_server_config:\n  http2: false\n").contains("unsupported section http_server_config"));
        assertTrue(refusal("basic_auth_users:\n  alice: plaintext\n").contains("not a bcrypt hash"));
        assertTrue(refusal("basic_auth_users:\n  alice: $2y$31$" + "a".repeat(53) + "\n")
                .contains("the bcrypt cost 31 of user alice is outside 4-16"), "a check at cost 31 would take days");
        assertTrue(refusal("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Sometimes\n")
                .contains("unknown client_auth_type Sometimes"));
        assertTrue(refusal("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: "
                + "RequireAndVerifyClientCert\n").contains("needs client_ca_file"));
        assertTrue(refusal("tls_server_config:\n  cert_file: a\n  cert_file: b\n").contains("not valid YAML at line 3"));
        assertTrue(refusal("tls_server_config:\n  cert_file: [a, b]\n  key_file: k\n").contains("must be a non-empty string"));
        assertTrue(refusal("tls_server_config:\n  cert_file: 443\n  key_file: k\n").contains("must be a non-empty string"));
        assertTrue(refusal("- tls_server_config\n").contains("the document must be a mapping"));
        assertTrue(refusal("tls_server_config: [\n").contains("not valid YAML"));
        assertTrue(refusal("tls_server_config: {cert_file: &c a.crt, key_file: *c}\n")
                .contains("YAML aliases are not supported (at line 1)"), "Jackson would read *c as the string c");
        assertTrue(refusal("tls_server_config:\n  cert_file: " + "[".repeat(20000)).contains("nesting depth"));
        String control = refusal("basic_auth_users:\n  \"ev\\x1bil\\nuser\": plaintext\n");
        assertTrue(!control.contains("\n") && !control.contains("\u001b"), "user-supplied text is cleaned: " + control);
    }

    @Test
    void onlyASmallRegularFileIsRead() throws IOException {
        Path file = dir.resolve("web.yml");
        Files.writeString(file, "tls_server_config:\n  cert_file: c\n  key_file: k\n");
        assertEquals(dir.resolve("c"), WebConfig.read(file).tls().orElseThrow().certFile());

        String missing = assertThrows(IllegalArgumentException.class, () -> WebConfig.read(dir.resolve("none.yml")))
                .getMessage();
        assertTrue(missing.contains("does not exist"), missing);
        String directory = assertThrows(IllegalArgumentException.class, () -> WebConfig.read(dir)).getMessage();
        assertTrue(directory.contains("is not a regular file"), directory);
        String device = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertThrows(
                IllegalArgumentException.class, () -> WebConfig.read(Path.of("/dev/zero"))).getMessage());
        assertTrue(device.contains("is not a regular file"), device);

        Path huge = dir.resolve("huge.yml");
        Files.writeString(huge, "# " + "x".repeat(WebConfig.MAX_FILE_BYTES) + "\n");
        String large = assertThrows(IllegalArgumentException.class, () -> WebConfig.read(huge)).getMessage();
        assertTrue(large.contains("is larger than 65536 bytes"), large);
    }

    @Test
    void noInputEscapesTheDecoder() {
        Map<String, Long> outcomes = assertTimeoutPreemptively(Duration.ofSeconds(120),
                () -> WebConfigFuzz.run(20_251_130L, 20_000));
        assertTrue(outcomes.getOrDefault("config", 0L) + outcomes.getOrDefault("config with tls", 0L) > 1000,
                "valid configs survive some mutations: " + outcomes);
        for (String refusal : new String[] {"not valid YAML", "the document must be a mapping", "unsupported section",
            "unsupported tls_server_config key", "tls_server_config needs cert_file and key_file",
            "the password of user", "a value that is not a non-empty string"}) {
            assertTrue(outcomes.containsKey(refusal), "the fuzzer reaches '" + refusal + "': " + outcomes);
        }
    }
}

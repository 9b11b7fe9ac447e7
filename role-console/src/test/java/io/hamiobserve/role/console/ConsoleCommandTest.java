package io.hamiobserve.role.console;

import io.hamiobserve.console.RightsizeReport;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;

import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static io.hamiobserve.app.testing.CommandLines.assertRefused;
import static io.hamiobserve.app.testing.CommandLines.edge;
import static io.hamiobserve.app.testing.CommandLines.parsed;
import static io.hamiobserve.app.testing.CommandLines.run;
import static io.hamiobserve.app.testing.CommandLines.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** {@code hami-observe console} and {@code rightsize}, on this module's class path (its commands only). */
class ConsoleCommandTest {
    @Test
    void theConsolesFlags() {
        CommandSpec console = parsed("console", "--prometheus", "http://prometheus:9090", "--console.route-prefix=/gpu",
                "--web.max-requests", "4", "--console-bind-address", "127.0.0.1:0", "--prometheus-external-url",
                "https://prom.example.com", "--prometheus-timeout", "3s");
        assertEquals(URI.create("http://prometheus:9090"), value(console, "--prometheus"));
        assertEquals(URI.create("https://prom.example.com"), value(console, "--prometheus-external-url"));
        assertEquals("/gpu", value(console, "--console.route-prefix"));
        assertEquals("127.0.0.1:0", value(console, "--console-bind-address"));
        assertEquals(Duration.ofSeconds(3), value(console, "--prometheus-timeout"));
        assertEquals(4, edge(console).maxConcurrentScrapes());
        CommandSpec defaults = parsed("console");
        assertEquals(Duration.ofSeconds(10), value(defaults, "--prometheus-timeout"));
        assertEquals(":9397", value(defaults, "--console-bind-address"));
        assertRefused(run("console"), "console needs --prometheus URL");
        assertRefused(run("console", "--prometheus", "file:///etc/passwd"), "http:// or https://");
        assertEquals("cluster", value(defaults, "--cluster-label"));
        assertEquals("k8s_cluster", value(parsed("rightsize", "--cluster-label", "k8s_cluster"), "--cluster-label"));
        assertRefused(run("console", "--prometheus", "http://p:9090", "--cluster-label", "a-b"), "not a label name");
        assertEquals(java.util.List.of(Duration.ofDays(7), Duration.ofDays(30)),
                value(parsed("console", "--console.keep-windows", "7d,30d"), "--console.keep-windows"));
        assertEquals(java.util.List.of(), value(defaults, "--console.keep-windows"));
        assertRefused(run("console", "--prometheus", "http://p:9090", "--console.keep-windows", "7d,5d"),
                "--console.keep-windows", "5d is not one the console offers: 24h, 7d, 14d, 30d");
        assertEquals(Duration.ofHours(24), value(defaults, "--console.keep-visited"));
        assertEquals(Duration.ZERO, value(parsed("console", "--console.keep-visited", "0"), "--console.keep-visited"));
        assertEquals(Duration.ofHours(6), value(parsed("console", "--console.keep-visited", "6h"),
                "--console.keep-visited"));
        assertRefused(run("console", "--prometheus", "http://p:9090", "--console.keep-visited", "-1h"),
                "--console.keep-visited", "not a duration");
        assertEquals(Duration.ofHours(6), value(defaults, "--console.other-windows-refresh-interval"));
        assertEquals(Duration.ZERO, value(parsed("console", "--console.other-windows-refresh-interval", "0s"),
                "--console.other-windows-refresh-interval"));
        assertRefused(run("console", "--prometheus", "http://p:9090", "--console.other-windows-refresh-interval",
                "6 hours"), "--console.other-windows-refresh-interval", "not a duration");
    }

    @Test
    void theBackendConfigFileIsReadAndAnUnusableOneIsRefusedWithoutItsSecrets(@TempDir Path directory)
            throws Exception {
        Path good = Files.writeString(directory.resolve("thanos.yml"), "authorization: {credentials_file: token}\n"
                + "params: {max_source_resolution: [auto]}\n");
        CommandSpec console = parsed("console", "--prometheus", "http://thanos:9090/", "--prometheus.config.file",
                good.toString());
        assertEquals(good, value(console, "--prometheus.config.file"));
        Path secret = Files.writeString(directory.resolve("secret.yml"), "basic_auth: {username: u, password: "
                + "[hunter2-secret]}\n");
        for (String command : new String[] {"console", "rightsize"}) {
            var refused = run(command, "--prometheus", "http://thanos:9090", "--prometheus.config.file",
                    secret.toString());
            assertRefused(refused, "--prometheus.config.file", secret.toString(), "basic_auth password");
            assertFalse(refused.err().contains("hunter2"), refused.err());
        }
        Path tls = Files.writeString(directory.resolve("tls.yml"), "tls_config: {ca_file: nosuch.crt}\n");
        assertRefused(run("rightsize", "--prometheus", "https://thanos:9090", "--prometheus.config.file",
                tls.toString()), "tls_config cannot be used");
    }

    @Test
    void rightsizeTakesAWindowAndAFormat() {
        CommandSpec rightsize = parsed("rightsize", "--window", "7d", "--format", "csv");
        assertEquals(Duration.ofDays(7), value(rightsize, "--window"));
        assertEquals(RightsizeReport.Format.CSV, value(rightsize, "--format"));
        assertEquals(Duration.ofHours(24), value(parsed("rightsize", "--window", "24h"), "--window"));
        assertEquals(Duration.ofMinutes(90), value(parsed("rightsize", "--window", "90m"), "--window"));
        CommandSpec defaults = parsed("rightsize");
        assertEquals(Duration.ofDays(14), value(defaults, "--window"));
        assertEquals(RightsizeReport.Format.TABLE, value(defaults, "--format"));
        assertRefused(run("rightsize", "--window", "2w"), "14d, 24h or 90m");
        assertRefused(run("rightsize", "--window", "91d"), "between 1m and 90d");
        assertRefused(run("rightsize", "--format", "xml"), "--format");
        CommandSpec patches = parsed("rightsize", "--format", "patch", "--namespace", "ml", "--owner-kind",
                "Deployment", "--by-pod");
        assertEquals(RightsizeReport.Format.PATCH, value(patches, "--format"));
        assertEquals("ml", value(patches, "--namespace"));
        assertEquals("Deployment", value(patches, "--owner-kind"));
        assertEquals(true, value(patches, "--by-pod"));
        assertEquals(RightsizeReport.Format.YAML, value(parsed("rightsize", "--format", "yaml"), "--format"));
        assertEquals(RightsizeReport.Format.HTML, value(parsed("rightsize", "--format", "html"), "--format"));
        assertRefused(run("rightsize"), "rightsize needs --prometheus URL");
        assertRefused(run("rightsize", "--web.max-requests", "4"), "--web.max-requests does not apply to rightsize; it is a flag of console");
    }
}

package io.hamiobserve.app;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConsoleOptionsTest {
    @Test
    void theConsolesFlagsAreTakenOutAndTheRestLeftForTheOtherOptions() {
        ConsoleOptions.Split split = ConsoleOptions.extract(new String[] {"console", "--prometheus",
                "http://prometheus:9090", "--console.route-prefix=/gpu", "--web.max-requests", "4",
                "--console-bind-address", "127.0.0.1:0", "--prometheus-external-url", "https://prom.example.com",
                "--prometheus-timeout", "3s"});
        ConsoleOptions options = split.options();
        assertEquals(URI.create("http://prometheus:9090"), options.prometheus().orElseThrow());
        assertEquals(URI.create("https://prom.example.com"), options.prometheusExternal().orElseThrow());
        assertEquals("/gpu", options.routePrefix());
        assertEquals("127.0.0.1:0", options.bind());
        assertEquals(Duration.ofSeconds(3), options.prometheusTimeout());
        assertEquals(List.of("console", "--web.max-requests", "4"), List.of(split.rest()));
        Options rest = Options.parse(split.rest(), Map.of());
        assertEquals("console", rest.command());
        assertEquals(4, rest.edge().maxConcurrentScrapes());
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        ConsoleOptions options = ConsoleOptions.extract(new String[] {"demo"}).options();
        assertEquals(":9397", options.bind());
        assertEquals(Duration.ofDays(14), options.window());
        assertEquals("table", options.format());
        assertTrue(options.demoPrometheus());
        assertTrue(options.prometheus().isEmpty());
        assertFalse(ConsoleOptions.extract(new String[] {"--demo.prometheus", "off"}).options().demoPrometheus());
    }

    @Test
    void rightsizeTakesAWindowAndAFormat() {
        ConsoleOptions options = ConsoleOptions.extract(new String[] {"rightsize", "--window", "7d", "--format",
                "csv"}).options();
        assertEquals(Duration.ofDays(7), options.window());
        assertEquals("csv", options.format());
        assertEquals(Duration.ofHours(24), ConsoleOptions.window("24h"));
        assertEquals(Duration.ofMinutes(90), ConsoleOptions.window("90m"));
    }

    @Test
    void badValuesAreRefusedWithAMessage() {
        assertThrows(IllegalArgumentException.class, () -> ConsoleOptions.extract(new String[] {"--prometheus",
                "file:///etc/passwd"}));
        assertThrows(IllegalArgumentException.class, () -> ConsoleOptions.extract(new String[] {"--prometheus"}));
        assertThrows(IllegalArgumentException.class, () -> ConsoleOptions.extract(new String[] {"--window", "2w"}));
        assertThrows(IllegalArgumentException.class, () -> ConsoleOptions.extract(new String[] {"--window", "91d"}));
        assertThrows(IllegalArgumentException.class, () -> ConsoleOptions.extract(new String[] {"--format", "yaml"}));
        assertThrows(IllegalArgumentException.class, () -> ConsoleOptions.extract(new String[] {"--demo.prometheus",
                "maybe"}));
        assertThrows(IllegalArgumentException.class, () -> ConsoleOptions.extract(new String[] {
                "--console-bind-address", "nowhere"}));
        assertTrue(Options.parse(new String[] {"rightsize"}, Map.of()).command().equals("rightsize"));
    }
}

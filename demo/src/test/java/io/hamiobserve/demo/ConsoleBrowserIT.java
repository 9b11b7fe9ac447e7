package io.hamiobserve.demo;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.testkit.ScratchDirectory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The console as a person uses it: the demo launched as users launch it ({@code bin/hami-observe}
 * on the module path), with its real Prometheus filled with the simulation's history, browsed in
 * Debian's Chromium through chromedriver. Every page loads without a console error (a violation of
 * the Content-Security-Policy is one), tables have rows, sorting and filtering work, the drill-down
 * goes overview → node → card → workload and back, charts draw, and the brief's pod gets its
 * recommendation. A second Prometheus holds a fleet whose labels carry HTML, read by the
 * {@code console} role under a route prefix: the HTML stays text. Screenshots of every page go to
 * {@code app/target/console-screenshots/}.
 *
 * <p>Needs {@code chromium}, {@code chromium-driver} and {@code prometheus} (Debian packages), which
 * {@code bin/test} installs.
 */
class ConsoleBrowserIT {
    private static final Path ROOT = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    private static final Path SHOTS = ROOT.resolve("app/target/console-screenshots");
    private static final Pattern CONSOLE = Pattern.compile("web console: +http://localhost:(\\d+)/");
    private static final Pattern PROMETHEUS = Pattern.compile("local Prometheus: +(http://127\\.0\\.0\\.1:\\d+)");
    private static final String HOSTILE_TYPE = "<img src=x onerror=\"window.__xss=1\">";
    private static final String HOSTILE_NAMESPACE = "<script>window.__xss=2</script>";
    private static final String HOSTILE_POD = "p\"><svg onload=window.__xss=3>";

    private static final List<Process> processes = new ArrayList<>();
    private static final List<String> demoOutput = Collections.synchronizedList(new ArrayList<>());
    private static Process demo;
    private static final List<AutoCloseable> closeables = new ArrayList<>();
    private static String console;
    private static String prometheus;
    private static ChromeDriver browser;

    @BeforeAll
    static void startTheDemoAndABrowser() throws Exception {
        for (String binary : List.of("/usr/bin/chromium", "/usr/bin/chromedriver")) {
            if (!Files.isExecutable(Path.of(binary))) {
                fail(binary + " is missing: install Debian's chromium and chromium-driver (bin/test does)");
            }
        }
        Files.createDirectories(SHOTS);
        List<String> output = demoOutput;
        demo = launch(output, "demo", "--allocation-bind-address", "127.0.0.1:0", "--usage-bind-address",
                "127.0.0.1:0", "--demo-second-node-bind-address", "127.0.0.1:0", "--console-bind-address",
                "127.0.0.1:0");
        String consoleLine = awaitLine(demo, output, CONSOLE, Duration.ofSeconds(120));
        Matcher consolePort = CONSOLE.matcher(consoleLine);
        assertTrue(consolePort.find());
        console = "http://127.0.0.1:" + consolePort.group(1);
        String prometheusLine = output.stream().filter(line -> PROMETHEUS.matcher(line).find()).findFirst()
                .orElseThrow(() -> new AssertionError("the demo did not start its Prometheus: " + output));
        Matcher prometheusUrl = PROMETHEUS.matcher(prometheusLine);
        assertTrue(prometheusUrl.find());
        prometheus = prometheusUrl.group(1);

        Path profile = Files.createTempDirectory("hami-observe-chromium");
        closeables.add(() -> ScratchDirectory.deleteTree(profile));
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        // Without the networking switches Chromium reaches for Google's services, which this
        // machine's closed network refuses; a fresh profile keeps every run alike.
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + profile, "--window-size=1400,2400");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopEverything() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        for (Process process : processes) {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    private static Process launch(List<String> output, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ROOT.resolve("bin/hami-observe").toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile());
        builder.environment().put("HAMI_OBSERVE_NO_BUILD", "1");
        Path log = Files.createTempFile("hami-observe-console", ".log");
        Process process = builder.redirectError(log.toFile()).start();
        processes.add(process);
        Thread.ofVirtual().start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    output.add(line);
                }
            } catch (IOException ended) {
                // The process is gone.
            }
        });
        closeables.add(() -> Files.deleteIfExists(log));
        output.add("(stderr in " + log + ")");
        return process;
    }

    private static String awaitLine(Process process, List<String> output, Pattern pattern, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            synchronized (output) {
                for (String line : output) {
                    if (pattern.matcher(line).find()) {
                        return line;
                    }
                }
            }
            if (!process.isAlive()) {
                fail("exited with " + process.exitValue() + ": " + output);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no line matching " + pattern + " within " + timeout + ": " + output);
    }

    /** Opens a page, checks the browser logged no error, and keeps a screenshot of it. */
    private static void open(String url, String screenshot) throws IOException {
        browser.get(url);
        assertNoConsoleErrors(url);
        Path file = browser.getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(file, SHOTS.resolve(screenshot + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    private static void assertNoConsoleErrors(String url) {
        List<LogEntry> errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.WARNING.intValue()).toList();
        assertEquals(List.of(), errors.stream().map(LogEntry::getMessage).toList(), "browser console on " + url);
    }

    private static List<String> column(String table, int index) {
        return browser.findElements(By.cssSelector("#" + table + " tbody tr")).stream()
                .map(row -> row.findElements(By.tagName("td")).get(index).getText()).toList();
    }

    private static int rows(String table) {
        return browser.findElements(By.cssSelector("#" + table + " tbody tr")).size();
    }

    @Test
    void everyPageLoadsWithoutConsoleErrorsAndItsTablesHaveRows() throws Exception {
        Map<String, String> pages = new TreeMap<>(Map.of(
                "overview", "/", "nodes", "/nodes", "cards", "/cards", "workloads", "/workloads",
                "namespaces", "/namespaces", "rightsizing", "/rightsizing", "capacity", "/capacity",
                "node", "/node?name=gpu-node-a",
                "card", "/card?uuid=GPU-002cd5f0-0000-4000-a000-000016f179d0",
                "workload", "/workload?namespace=ml-team&pod=llm-inference-7d9f8c6b5-x2k4q&container=server"));
        Map<String, String> tables = Map.of("overview", "nodes", "nodes", "nodes", "cards", "cards",
                "workloads", "workloads", "namespaces", "namespaces", "rightsizing", "rightsizing",
                "capacity", "capacity", "node", "cards", "card", "shares", "workload", "cards");
        for (Map.Entry<String, String> page : pages.entrySet()) {
            open(console + page.getValue(), page.getKey());
            assertTrue(rows(tables.get(page.getKey())) > 0, page.getKey() + " has rows in #" + tables.get(page.getKey()));
            assertFalse(browser.getPageSource().contains("Figures unavailable"), page.getKey());
        }
    }

    /**
     * The Stuck page renders its four lists (ghosts, zombies, idle shares, pods waiting) with their
     * headline figures, and the Capacity page shows pending demand under what still fits, without
     * console errors; both are reached from the navigation.
     */
    @Test
    void theStuckPageAndTheCapacityPagesPendingDemandRender() throws Exception {
        open(console + "/", "stuck-nav");
        browser.findElement(By.linkText("Stuck")).click();
        assertNoConsoleErrors(browser.getCurrentUrl());
        assertTrue(browser.getCurrentUrl().endsWith("/stuck"), browser.getCurrentUrl());
        open(console + "/stuck", "stuck");
        String stuck = browser.findElement(By.tagName("main")).getText();
        for (String part : List.of("Ghost allocations", "Zombie processes", "Idle shares", "Pods waiting for a GPU",
                "card-hours held")) {
            assertTrue(stuck.contains(part), part + " in " + stuck);
        }
        assertFalse(browser.getPageSource().contains("Figures unavailable"));
        open(console + "/capacity", "capacity-pending");
        String capacity = browser.findElement(By.tagName("main")).getText();
        assertTrue(capacity.contains("Pods waiting for a GPU"), capacity);
        assertTrue(rows("capacity") > 0, "what still fits is still there");
        assertTrue(capacity.contains("Pods that fit after right-sizing") && capacity.contains("After right-sizing"),
                "what would fit after right-sizing, as a tile and per model: " + capacity);
    }

    /**
     * The Showback page in a browser: a line per namespace and the fleet's four lines after them,
     * the funnel with the fleet first, and the identity's total named.
     */
    @Test
    void theShowbackPageRendersItsLinesAndTheFunnel() throws Exception {
        open(console + "/showback", "showback");
        assertTrue(rows("showback") >= 5, "at least one namespace and the fleet's four lines");
        assertTrue(browser.findElement(By.id("showback")).getText().contains("total: every card seen"));
        assertTrue(rows("funnel") >= 2, "the fleet and a namespace");
        assertFalse(browser.getPageSource().contains("Figures unavailable"));
        open(console + "/showback?by=model&funnel=model&window=24h", "showback-model");
        assertTrue(rows("showback") >= 5, "a card model and the fleet's lines");
    }

    @Test
    void theOverviewDrawsTheFunnelItsTrendAndWhereItLoses() throws Exception {
        open(console + "/?range=24h", "overview-funnel");
        assertEquals("4", browser.findElement(By.id("cluster-funnel")).getAttribute("data-drawn"),
                "total, allocated, active and effective");
        Number painted = (Number) ((JavascriptExecutor) browser).executeScript("""
                const canvas = document.querySelector('#cluster-funnel canvas');
                const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
                let painted = 0;
                for (let i = 3; i < data.length; i += 4) { if (data[i] > 0) painted++; }
                return painted;""");
        assertTrue(painted.longValue() > 2000, "the funnel's trend has painted pixels: " + painted);
        assertTrue(rows("funnel") >= 2, "the fleet and a namespace");
        assertTrue(rows("losses") >= 1, "the ghost allocation is never active");
        assertTrue(browser.findElement(By.id("losses")).getText().contains("embed-api"), "the ghost's workload");
        browser.findElement(By.cssSelector("#losses tbody a[href*='workloads.q=']")).click();
        assertTrue(browser.getCurrentUrl().contains("/workloads"), browser.getCurrentUrl());
        open(console + "/?funnel=model", "overview-funnel-model");
        assertTrue(browser.findElement(By.id("funnel")).getText().contains("A100"), "a card model's funnel");
    }

    /**
     * Every link the console renders leads to a page that answers: starting from the navigation,
     * each page is opened in the browser and every link on it (resolved by the browser, same
     * origin) is followed; the pages those links reach are opened in turn, one per distinct kind
     * of page (its path and the names of its parameters, every table's sort order counted as one:
     * a node's page stands for every node's),
     * and every link on any opened page is asked for. None may answer 4xx or 5xx (the card page
     * of a card gone from the metrics answered 404).
     */
    @Test
    void everyLinkOfEveryPageLeadsToAPageThatAnswers() throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.util.Deque<String> toOpen = new java.util.ArrayDeque<>();
        for (String page : List.of("/", "/nodes", "/cards", "/workloads", "/namespaces", "/rightsizing",
                "/capacity", "/stuck")) {
            toOpen.add(console + page);
        }
        java.util.Set<String> kinds = new java.util.HashSet<>();
        java.util.Set<String> opened = new java.util.LinkedHashSet<>();
        Map<String, String> linked = new java.util.LinkedHashMap<>();
        while (!toOpen.isEmpty()) {
            String url = toOpen.poll();
            if (!opened.add(url)) {
                continue;
            }
            browser.get(url);
            Number status = (Number) ((JavascriptExecutor) browser).executeScript(
                    "return performance.getEntriesByType('navigation')[0].responseStatus");
            assertTrue(status.intValue() > 0 && status.intValue() < 400, url + " answered " + status);
            @SuppressWarnings("unchecked")
            List<String> hrefs = (List<String>) ((JavascriptExecutor) browser).executeScript(
                    "return Array.from(document.querySelectorAll('a[href]'), "
                            // An SVG link's href is not a string: resolve its attribute as the browser would.
                            + "a => new URL(a.getAttribute('href'), document.baseURI).href)");
            for (String href : hrefs) {
                if (!href.startsWith(console + "/")) {
                    continue; // "open in Prometheus" and other sites are not the console's
                }
                String link = href.replaceFirst("#.*$", "");
                linked.putIfAbsent(link, url);
                URI parsed = URI.create(link);
                String kind = parsed.getPath() + "?" + (parsed.getRawQuery() == null ? ""
                        : java.util.Arrays.stream(parsed.getRawQuery().split("&")).map(p -> p.split("=")[0])
                        // Every table's sort order is one kind: each sort link keeps the other
                        // tables' orders, and the overview's seven tables would make 2^7 kinds.
                        .map(name -> name.endsWith(".sort") || name.endsWith(".dir") ? "sort" : name)
                        .distinct().sorted().collect(java.util.stream.Collectors.joining("&")));
                if (!link.contains("export=") && kinds.add(kind)) {
                    toOpen.add(link);
                }
            }
        }
        List<String> broken = new ArrayList<>();
        for (Map.Entry<String, String> link : linked.entrySet()) {
            // A link whose answer never ends fails here, named, instead of holding the build (a
            // request's timeout covers only the headers).
            int status = http.sendAsync(java.net.http.HttpRequest.newBuilder(URI.create(link.getKey())).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding())
                    .orTimeout(30, java.util.concurrent.TimeUnit.SECONDS)
                    .exceptionally(failed -> {
                        throw new AssertionError(link.getKey() + " (on " + link.getValue() + ") did not answer whole "
                                + "within 30 s", failed);
                    }).join().statusCode();
            if (status >= 400) {
                broken.add(link.getKey() + " (on " + link.getValue() + ") answered " + status);
            }
        }
        assertEquals(List.of(), broken);
        assertTrue(opened.size() >= 10 && linked.size() >= 50, opened.size() + " pages opened, " + linked.size()
                + " links followed");
        System.out.println("crawl: " + opened.size() + " pages opened in the browser, " + linked.size()
                + " links followed, none answered 4xx or 5xx");
    }

    @Test
    void aSortClickReordersAndAFilterNarrows() throws Exception {
        open(console + "/cards", "cards-sorted-by-node");
        List<String> before = column("cards", 2);
        WebElement memoryHeader = browser.findElement(By.xpath("//section[@id='cards']//th/a[starts-with(normalize-space(.),'Memory')]"));
        memoryHeader.click();
        assertNoConsoleErrors(browser.getCurrentUrl());
        assertTrue(browser.getCurrentUrl().contains("cards.sort=memory_total"), browser.getCurrentUrl());
        List<String> after = column("cards", 2);
        assertNotEquals(before, after, "sorting by memory reorders the cards");
        List<Double> memory = column("cards", 8).stream().map(ConsoleBrowserIT::gib).toList();
        List<Double> sorted = new ArrayList<>(memory);
        sorted.sort(Comparator.naturalOrder());
        assertEquals(sorted, memory, "ascending by memory");
        Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), SHOTS.resolve("cards-sorted-by-memory.png"),
                StandardCopyOption.REPLACE_EXISTING);

        open(console + "/workloads", "workloads-unfiltered");
        int all = rows("workloads");
        WebElement filter = browser.findElement(By.cssSelector("#workloads input[type=search]"));
        filter.sendKeys("ml-team");
        filter.submit();
        assertNoConsoleErrors(browser.getCurrentUrl());
        assertTrue(browser.getCurrentUrl().contains("workloads.q=ml-team"), "the filter is in the URL");
        int kept = rows("workloads");
        assertTrue(kept > 0 && kept < all, kept + " of " + all);
        assertTrue(column("workloads", 0).stream().allMatch("ml-team"::equals), column("workloads", 0).toString());
        Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), SHOTS.resolve("workloads-filtered.png"),
                StandardCopyOption.REPLACE_EXISTING);
    }

    private static double gib(String text) {
        String[] parts = text.split(" ");
        double value = Double.parseDouble(parts[0].replace(",", ""));
        return parts[1].equals("GiB") ? value : parts[1].equals("TiB") ? value * 1024 : value / 1024;
    }

    @Test
    void drillDownFromTheOverviewToAWorkloadAndBack() throws Exception {
        open(console + "/", "drill-1-overview");
        browser.findElement(By.linkText("gpu-node-a")).click();
        assertTrue(browser.getCurrentUrl().endsWith("/node?name=gpu-node-a"), browser.getCurrentUrl());
        assertEquals("Node gpu-node-a", browser.findElement(By.tagName("h1")).getText());
        assertNoConsoleErrors(browser.getCurrentUrl());
        browser.findElement(By.linkText("GPU-002cd5f0-0000-4000-a000-000016f179d0")).click();
        assertEquals("Card 0 of gpu-node-a", browser.findElement(By.tagName("h1")).getText());
        assertNoConsoleErrors(browser.getCurrentUrl());
        assertTrue(browser.findElements(By.cssSelector("svg.stack rect.seg-used")).size() >= 3,
                "the stacked bar shows each container's use");
        browser.findElement(By.cssSelector("#shares a[href*='llm-inference-7d9f8c6b5-x2k4q']")).click();
        assertEquals("Workload llm-inference-7d9f8c6b5-x2k4q", browser.findElement(By.tagName("h1")).getText());
        assertNoConsoleErrors(browser.getCurrentUrl());
        browser.navigate().back();
        assertEquals("Card 0 of gpu-node-a", browser.findElement(By.tagName("h1")).getText());
        browser.navigate().back();
        assertEquals("Node gpu-node-a", browser.findElement(By.tagName("h1")).getText());
        // And up again by the breadcrumb.
        browser.findElement(By.cssSelector("nav.crumbs a")).click();
        assertEquals("Overview", browser.findElement(By.tagName("h1")).getText());
    }

    @Test
    void chartsDrawTheirLines() throws Exception {
        open(console + "/?range=24h", "overview-24h");
        Map<String, String> lines = Map.of("cluster-memory", "3", "cluster-compute", "2");
        for (String chart : List.of("cluster-memory", "cluster-compute")) {
            assertEquals(lines.get(chart), browser.findElement(By.id(chart)).getAttribute("data-drawn"),
                    chart + ": total, allocated and used memory; allocated and used compute");
            Number painted = (Number) ((JavascriptExecutor) browser).executeScript("""
                    const canvas = document.querySelector('#' + arguments[0] + ' canvas');
                    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
                    let painted = 0;
                    for (let i = 3; i < data.length; i += 4) { if (data[i] > 0) painted++; }
                    return painted;""", chart);
            assertTrue(painted.longValue() > 2000, chart + " has painted pixels: " + painted);
        }
    }

    @Test
    void theBriefsPodIsToldToAskForTwoAndAHalfGib() throws Exception {
        open(console + "/workload?namespace=ml-team&pod=llm-inference-7d9f8c6b5-x2k4q&container=server", "briefs-pod");
        String text = browser.findElement(By.tagName("main")).getText();
        assertTrue(text.contains("8 GiB (8,192 MiB) → 2.50 GiB (2,560 MiB)"), text);
        assertTrue(browser.findElement(By.id("snippet")).getText().contains("nvidia.com/gpumem: 2560"));
        assertEquals("4", browser.findElement(By.id("chart-memory")).getAttribute("data-drawn"),
                "used, allocated, peak and recommended");
        open(console + "/rightsizing", "rightsizing");
        WebElement first = browser.findElements(By.cssSelector("#rightsizing tbody tr")).getFirst();
        // One of the brief's Deployment's two replicas, which ask and use alike.
        assertTrue(first.getText().startsWith("critical ml-team llm-inference-7d9f8c6b5-"), first.getText());
    }

    @Test
    void theRestOfTheWeeksHistoryIsHandedToPrometheus() throws Exception {
        String line = awaitLine(demo, demoOutput, Pattern.compile("history: the other [0-9,]+ samples of 7 days"),
                Duration.ofSeconds(150));
        assertTrue(line.contains("handed to Prometheus"), line);
    }

    @Test
    void rightsizeOnTheCommandLineAgrees() throws Exception {
        ProcessBuilder builder = new ProcessBuilder(ROOT.resolve("bin/hami-observe").toString(), "rightsize",
                "--prometheus", prometheus, "--format", "json").directory(ROOT.toFile()).redirectErrorStream(true);
        builder.environment().put("HAMI_OBSERVE_NO_BUILD", "1");
        Process rightsize = builder.start();
        String json = new String(rightsize.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(rightsize.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, rightsize.exitValue(), json);
        // One row for the Deployment and its container across its rollout: its four pods, the brief's 2.5 GiB.
        Matcher llm = Pattern.compile("\"owner_kind\" : \"Deployment\",\\s*\"owner_name\" : \"llm-inference\",\\s*"
                + "\"container\" : \"server\",\\s*\"pods\" : (\\d+),[^}]*\"memory_recommended\" : (\\d+)").matcher(json);
        assertTrue(llm.find(), json);
        assertEquals("4", llm.group(1), "the pods of both ReplicaSets");
        assertEquals("2560", llm.group(2));
    }

    @Test
    void htmlInLabelValuesStaysTextInTheBrowser() throws Exception {
        LocalPrometheus hostile = hostilePrometheus();
        closeables.addFirst(hostile);
        List<String> output = Collections.synchronizedList(new ArrayList<>());
        Pattern served = Pattern.compile("console on :(\\d+)/gpu/");
        Process role = launch(output, "console", "--prometheus", hostile.url().toString(), "--console-bind-address",
                "127.0.0.1:0", "--console.route-prefix", "/gpu");
        Matcher port = served.matcher(awaitLine(role, output, served, Duration.ofSeconds(60)));
        assertTrue(port.find());
        String base = "http://127.0.0.1:" + port.group(1) + "/gpu";
        for (String page : List.of("/cards", "/workloads", "/namespaces", "/", "/card?uuid=GPU-X0")) {
            open(base + page, "hostile" + page.replaceAll("[^a-z]", "-"));
            try {
                browser.switchTo().alert();
                fail("an alert opened on " + page);
            } catch (NoAlertPresentException expected) {
                // Nothing ran.
            }
            Object ran = ((JavascriptExecutor) browser).executeScript("return window.__xss === undefined");
            assertEquals(Boolean.TRUE, ran, "no injected code ran on " + page);
            assertEquals(0L, ((JavascriptExecutor) browser).executeScript(
                    "return document.querySelectorAll('main img, main svg[onload], main script').length"),
                    "no injected element on " + page);
        }
        open(base + "/cards", "hostile-cards-text");
        assertTrue(browser.findElement(By.id("cards")).getText().contains(HOSTILE_TYPE), "shown as text");
        open(base + "/workloads", "hostile-workloads-text");
        String workloads = browser.findElement(By.id("workloads")).getText();
        assertTrue(workloads.contains(HOSTILE_NAMESPACE) && workloads.contains(HOSTILE_POD), workloads);
    }

    /**
     * A card's physical side in a real browser: over the demo's Prometheus, which scrapes the
     * simulated dcgm-exporters, the card page shows DCGM's counters with the source of its
     * temperature and power named, and the V100's Xid; over a Prometheus that holds no DCGM series,
     * the page says "No DCGM exporter scraped" once and shows no figure as 0.
     */
    @Test
    void aCardPageShowsDcgmsCountersAndWithoutDcgmSaysSoOnce() throws Exception {
        open(console + "/card?uuid=" + DemoCluster.uuid("a100", 0), "card-with-dcgm");
        String page = browser.findElement(By.tagName("main")).getText();
        assertTrue(page.contains("Physical counters (DCGM exporter on gpu-node-a)"), page);
        assertTrue(Pattern.compile("Temperature\\s+\\d+ °C \\(DCGM exporter\\)").matcher(page).find(), page);
        assertTrue(Pattern.compile("Power\\s+\\d+ W \\(DCGM exporter\\)").matcher(page).find(), page);
        assertTrue(page.contains("SM clock") && page.contains("MHz"), page);
        assertTrue(page.contains("(hami-observe node) vs"), "both memory sources side by side: " + page);
        assertFalse(page.contains("No DCGM exporter scraped"), page);
        open(console + "/card?uuid=" + DemoCluster.uuid("v100", 0), "card-with-xid");
        assertTrue(browser.findElement(By.tagName("main")).getText().contains("Xid 31"), "the V100's Xid");

        LocalPrometheus withoutDcgm = hostilePrometheus();
        closeables.addFirst(withoutDcgm);
        List<String> output = Collections.synchronizedList(new ArrayList<>());
        Pattern served = Pattern.compile("console on :(\\d+)/");
        Process role = launch(output, "console", "--prometheus", withoutDcgm.url().toString(),
                "--console-bind-address", "127.0.0.1:0");
        Matcher port = served.matcher(awaitLine(role, output, served, Duration.ofSeconds(60)));
        assertTrue(port.find());
        open("http://127.0.0.1:" + port.group(1) + "/card?uuid=GPU-X0", "card-without-dcgm");
        String bare = browser.findElement(By.tagName("main")).getText();
        assertEquals(1, bare.split("No DCGM exporter scraped", -1).length - 1, bare);
        assertFalse(bare.contains("Physical counters"), bare);
        // No temperature from either source: the reason, never 0 °C.
        assertTrue(Pattern.compile("Temperature\\s+no data").matcher(bare).find(), bare);
        assertFalse(bare.contains("0 °C"), bare);
    }

    /**
     * A vendor's card in a real browser: over a Prometheus holding an Ascend card registered with
     * HAMi whose use only npu-exporter reports (scraped without honour_labels), and an Ascend card
     * no exporter reports, the card page names the exporter beside its figures and says the
     * container's figure is the whole card's, and the silent card shows no figure as 0.
     */
    @Test
    void aVendorCardPageSaysWhereItsUseComesFromAndWhatItMeans() throws Exception {
        LocalPrometheus vendor = vendorPrometheus();
        closeables.addFirst(vendor);
        List<String> output = Collections.synchronizedList(new ArrayList<>());
        Pattern served = Pattern.compile("console on :(\\d+)/");
        Process role = launch(output, "console", "--prometheus", vendor.url().toString(),
                "--console-bind-address", "127.0.0.1:0");
        Matcher port = served.matcher(awaitLine(role, output, served, Duration.ofSeconds(60)));
        assertTrue(port.find());
        String base = "http://127.0.0.1:" + port.group(1);
        open(base + "/card?uuid=npu-vdie-1", "card-from-npu-exporter");
        assertNoConsoleErrors(base + "/card?uuid=npu-vdie-1");
        String page = browser.findElement(By.tagName("main")).getText();
        assertTrue(Pattern.compile("Used \\(npu-exporter\\)\\s+20\\.0 GiB").matcher(page).find(), page);
        assertTrue(page.contains("55 % (npu-exporter)"), page);
        String shares = browser.findElement(By.id("shares")).getText();
        assertTrue(shares.contains("npu-exporter — the whole card's figure, not the container's"), shares);
        open(base + "/card?uuid=npu-vdie-2", "card-without-exporter");
        String silent = browser.findElement(By.tagName("main")).getText();
        assertTrue(Pattern.compile("Used \\(driver\\)\\s+no data").matcher(silent).find(), silent);
        // Its container's use: no data, never 0 B (the "outside HAMi-Core" cell's 0 B is a count of nothing, as before).
        assertTrue(silent.contains("train-2 main 16.0 GiB no data"), silent);
        assertFalse(silent.contains("npu-exporter"), silent);
    }

    /** Four hours of two Ascend cards, one container on each, the first card's use from npu-exporter only. */
    private static LocalPrometheus vendorPrometheus() throws Exception {
        Path file = Files.createTempFile("hami-observe-vendor", ".om");
        long end = Instant.now().getEpochSecond() - 30;
        try (Writer out = Files.newBufferedWriter(file)) {
            Map<String, Double> series = new java.util.LinkedHashMap<>();
            for (int card = 1; card <= 2; card++) {
                String uuid = "npu-vdie-" + card;
                String registered = "{device_index=\"" + card + "\",device_type=\"Ascend910B3\",device_uuid=\"" + uuid
                        + "\",node=\"npu-node\"}";
                series.put("hami_gpu_memory_limit_bytes" + registered, 6.8719476736E10);
                series.put("hami_gpu_memory_allocated_bytes" + registered, 1.7179869184E10);
                series.put("hami_observe_vgpu_container_memory_allocated_bytes{container_index=\"0\",device_uuid=\""
                        + uuid + "\",namespace=\"ai\",node=\"npu-node\",pod=\"train-" + card + "\"}", 1.7179869184E10);
                series.put("hami_observe_container_info{container=\"main\",container_index=\"0\",init=\"false\","
                        + "namespace=\"ai\",pod=\"train-" + card + "\"}", 1.0);
            }
            String chip = "id=\"1\",vdie_id=\"npu-vdie-1\"";
            series.put("npu_chip_info_hbm_used_memory{" + chip + "}", 20480.0);
            series.put("npu_chip_info_utilization{" + chip + "}", 55.0);
            String use = "{container_name=\"main\",exported_namespace=\"ai\"," + chip
                    + ",namespace=\"npu-system\",pod_name=\"train-1\"}";
            series.put("container_npu_used_memory" + use, 20480.0);
            series.put("container_npu_utilization" + use, 55.0);
            for (long t = end - 4 * 3600; t <= end; t += 60) {
                for (Map.Entry<String, Double> each : series.entrySet()) {
                    out.write(each.getKey() + " " + each.getValue() + " " + t + "\n");
                }
            }
            out.write("# EOF\n");
        }
        try {
            return LocalPrometheus.start(List.of(), Duration.ofSeconds(60), List.of(file), Duration.ofSeconds(60));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** A Prometheus holding four hours of one card and one pod whose labels carry HTML and script. */
    private static LocalPrometheus hostilePrometheus() throws Exception {
        Path file = Files.createTempFile("hami-observe-hostile", ".om");
        long end = Instant.now().getEpochSecond() - 30;
        try (Writer out = Files.newBufferedWriter(file)) {
            String card = "{device_index=\"0\",device_type=\"" + escape(HOSTILE_TYPE)
                    + "\",device_uuid=\"GPU-X0\",node=\"node-x\",zone=\"vGPU\"}";
            String share = "{container_index=\"0\",device_uuid=\"GPU-X0\",namespace=\"" + escape(HOSTILE_NAMESPACE)
                    + "\",node=\"node-x\",pod=\"" + escape(HOSTILE_POD) + "\",zone=\"vGPU\"}";
            String info = "{container=\"main\",container_index=\"0\",init=\"false\",namespace=\""
                    + escape(HOSTILE_NAMESPACE) + "\",node=\"node-x\",pod=\"" + escape(HOSTILE_POD) + "\"}";
            String use = "{container=\"main\",device_uuid=\"GPU-X0\",namespace=\"" + escape(HOSTILE_NAMESPACE)
                    + "\",node=\"node-x\",pod=\"" + escape(HOSTILE_POD) + "\",vdevice_index=\"0\",zone=\"vGPU\"}";
            Map<String, Double> series = Map.of("hami_gpu_memory_limit_bytes" + card, 4.294967296E10,
                    "hami_gpu_memory_allocated_bytes" + card, 8.589934592E9, "hami_gpu_core_limit_ratio" + card, 100.0,
                    "hami_gpu_core_allocated_ratio" + card, 30.0, "hami_vgpu_memory_allocated_bytes" + share,
                    8.589934592E9, "hami_vgpu_core_allocated_ratio" + share, 30.0, "hami_observe_container_info" + info,
                    1.0, "hami_vgpu_memory_used_bytes" + use, 2.2e9, "hami_host_gpu_memory_used_bytes" + card, 2.6e9);
            for (long t = end - 4 * 3600; t <= end; t += 60) {
                for (Map.Entry<String, Double> each : series.entrySet()) {
                    out.write(each.getKey() + " " + each.getValue() + " " + t + "\n");
                }
            }
            out.write("# EOF\n");
        }
        try {
            return LocalPrometheus.start(List.of(), Duration.ofSeconds(60), List.of(file), Duration.ofSeconds(60));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}

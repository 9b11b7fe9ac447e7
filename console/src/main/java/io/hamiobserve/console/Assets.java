package io.hamiobserve.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The console's static files, a fixed list read once at start: uPlot's script and stylesheet from
 * its WebJar (the version found in the WebJar's own pom.properties, so upgrading the dependency
 * needs no code change), and the console's own script and stylesheet. Nothing else is served, so
 * no request path ever reaches the file system or the class path.
 */
final class Assets {
    private static final String UPLOT = "META-INF/maven/org.webjars.npm/uplot/pom.properties";

    /** A file: its bytes, its type, and a strong validator of its content. */
    record Asset(byte[] bytes, String contentType, String etag) {
    }

    private final Map<String, Asset> files = new LinkedHashMap<>();

    Assets() {
        String uplot = "META-INF/resources/webjars/uplot/" + webJarVersion() + "/dist/";
        add("uPlot.iife.min.js", systemResource(uplot + "uPlot.iife.min.js"), "text/javascript; charset=utf-8");
        add("uPlot.min.css", systemResource(uplot + "uPlot.min.css"), "text/css; charset=utf-8");
        add("console.js", ownResource("console.js"), "text/javascript; charset=utf-8");
        add("console.css", ownResource("console.css"), "text/css; charset=utf-8");
        add("favicon.svg", ownResource("favicon.svg"), "image/svg+xml");
    }

    Optional<Asset> get(String name) {
        return Optional.ofNullable(files.get(name));
    }

    private void add(String name, byte[] bytes, String contentType) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            files.put(name, new Asset(bytes, contentType, "\"" + HexFormat.of().formatHex(digest, 0, 12) + "\""));
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static String webJarVersion() {
        Properties properties = new Properties();
        try (InputStream in = loader().getResourceAsStream(UPLOT)) {
            if (in == null) {
                throw new IllegalStateException("uPlot's WebJar (org.webjars.npm:uplot) is not on the module or class path");
            }
            properties.load(in);
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
        return properties.getProperty("version");
    }

    private static byte[] systemResource(String path) {
        try (InputStream in = loader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing from the WebJar: " + path);
            }
            return in.readAllBytes();
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }

    private static byte[] ownResource(String name) {
        try (InputStream in = Assets.class.getResourceAsStream("assets/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing console asset " + name);
            }
            return in.readAllBytes();
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }

    private static ClassLoader loader() {
        ClassLoader loader = Assets.class.getClassLoader();
        return loader != null ? loader : ClassLoader.getSystemClassLoader();
    }
}

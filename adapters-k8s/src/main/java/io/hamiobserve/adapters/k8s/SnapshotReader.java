package io.hamiobserve.adapters.k8s;

import io.hamiobserve.adapters.k8s.Skips.Kind;

import io.hamiobserve.adapters.k8s.Skips.Reason;

import org.snakeyaml.engine.v2.api.LoadSettings;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Consumer;

/**
 * Streams the Kubernetes objects of a dump file, as {@code kubectl get nodes,pods,resourcequotas,replicasets,jobs
 * -A -o yaml} (or {@code -o json}) prints it: a {@code v1 List}, multi-document YAML, a JSON array,
 * or single objects. The file is parsed token by token and each object is built and handed on
 * alone, so a dump of hundreds of megabytes is read in memory proportional to its largest object,
 * never to the file.
 *
 * <p>Bounds, each far above what kubectl prints for a real cluster and each refusing a file crafted
 * to exhaust the process: {@link #MAX_BYTES} for the file (the parser's document length and
 * SnakeYAML's code-point limit are set to it, where SnakeYAML's default of 3 MiB refused real
 * dumps of a few hundred pods), {@link #MAX_STRING_CHARS} for one string, Jackson's default nesting
 * depth (500) and SnakeYAML's default alias limit (50 per collection); and
 * {@link #MAX_OBJECT_BYTES} for one object (an item of a {@code List}, or a document): the API
 * server stores at most about 1.5 MiB per object (etcd's request limit), and the tree of one object
 * is what the reader holds in memory, so a file with one huge object (two million annotation keys,
 * a 20 MiB scalar) is refused as not a dump — one line, exit 2 with {@code --once} — after reading
 * that much of it, instead of exhausting the heap or SnakeYAML's time on it.
 *
 * <p>A file that is not a dump (not a regular file, unreadable, empty, a scalar, a map without
 * {@code items} or {@code kind}, or text that does not parse before any object was found) throws
 * {@link NotADumpException}. A document that breaks after objects were read ends the reading and
 * is reported ({@code bad_document}): a truncated dump still serves what it holds.
 */
final class SnapshotReader {
    /** The largest dump read: 1 GiB, five times a 200 MB dump of a large cluster. */
    static final long MAX_BYTES = 1L << 30;
    /** The longest string in a dump: 16 Mi characters (an API server stores at most 256 KiB of annotations). */
    static final int MAX_STRING_CHARS = 16 << 20;
    /**
     * The largest object: 4 MiB of the file, room for the API server's 1.5 MiB object printed as
     * indented YAML or JSON inside a {@code List} (kubectl's output is two to three times the stored
     * size), and a bounded tree (tens of MiB at most) however the object is built.
     */
    static final int MAX_OBJECT_BYTES = 4 << 20;

    private static final StreamReadConstraints CONSTRAINTS = StreamReadConstraints.builder()
            .maxDocumentLength(MAX_BYTES)
            .maxStringLength(MAX_STRING_CHARS)
            .build();
    private static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
            .streamReadConstraints(CONSTRAINTS).build()).build();
    private static final ObjectMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
            .streamReadConstraints(CONSTRAINTS)
            // SnakeYAML copies what it holds of a token at each refill of its buffer: with its default
            // of 1 Ki characters a 4 MiB scalar cost seconds; with 256 Ki, milliseconds.
            .loadSettings(LoadSettings.builder().setCodePointLimit((int) MAX_BYTES).setBufferSize(256 << 10).build())
            .build()).build();

    private SnapshotReader() {
    }

    /** The file is not a dump or cannot be read at all; the message says why in one line. */
    static final class NotADumpException extends Exception {
        private static final long serialVersionUID = 1L;

        NotADumpException(String message) {
            super(message);
        }
    }

    /** What a read found: objects handed on, bytes read, and the format. */
    record Summary(long objects, long bytes, String format) {
    }

    /**
     * Hands every object of the dump at {@code file} to {@code objects}, in file order, with
     * {@code List}s flattened. Problems inside the file go to {@code skips}.
     */
    static Summary read(Path file, Consumer<JsonNode> objects, Skips skips) throws NotADumpException {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new NotADumpException("no such file");
        } catch (IOException e) {
            throw new NotADumpException("cannot read: " + e.getMessage());
        }
        // Checked before opening: opening a FIFO would wait for a writer, and a device never ends.
        if (!attributes.isRegularFile()) {
            throw new NotADumpException("not a regular file (" + (attributes.isDirectory() ? "a directory"
                    : "a device, FIFO or socket") + "): expected a kubectl -o yaml or -o json dump");
        }
        if (attributes.size() > MAX_BYTES) {
            throw new NotADumpException(attributes.size() + " bytes, more than the " + MAX_BYTES
                    + " bytes a dump may have");
        }
        try (InputStream input = Files.newInputStream(file)) {
            return read(input, objects, skips);
        } catch (AccessDeniedException e) {
            throw new NotADumpException("cannot read: permission denied");
        } catch (IOException e) {
            throw new NotADumpException("cannot read: " + e.getMessage());
        }
    }

    /** As {@link #read(Path, Consumer, Skips)}, from a stream already open (the fuzzer's bytes). */
    static Summary read(InputStream stream, Consumer<JsonNode> objects, Skips skips)
            throws NotADumpException, IOException {
        CountingInput counted = new CountingInput(stream);
        BufferedInputStream input = new BufferedInputStream(counted, 1 << 16);
        boolean json = startsLikeJson(input);
        Reading reading = new Reading(objects, skips, counted);
        try (JsonParser parser = (json ? JSON : YAML).createParser(input)) {
            reading.documents(parser);
        } catch (RuntimeException broken) {
            if (counted.tooLarge) {
                throw new NotADumpException("object " + (reading.objects + 1) + " (in document " + reading.documents
                        + ") is larger than " + (MAX_OBJECT_BYTES >> 20) + " MiB, the most one object may be (an API "
                        + "server stores at most about 1.5 MiB per object): refused without reading it further");
            }
            // Jackson's exceptions, and SnakeYAML's should one pass Jackson unwrapped: whatever the
            // parser throws ends the read (objects are applied by a handler that throws nothing).
            String why = oneLine(broken instanceof JacksonException e ? e.getOriginalMessage() : broken.toString());
            String where = broken instanceof JacksonException e && e.getLocation() != null
                    ? " at line " + e.getLocation().getLineNr() : "";
            if (!reading.recognised) {
                throw new NotADumpException("not a Kubernetes dump: " + (json ? "JSON" : "YAML")
                        + " parse error" + where + ": " + why);
            }
            skips.skip(Kind.SNAPSHOT, "document " + reading.documents + where, Reason.BAD_DOCUMENT, why);
        }
        if (!reading.recognised) {
            throw new NotADumpException("not a Kubernetes dump: " + reading.notADump);
        }
        return new Summary(reading.objects, counted.count, json ? "json" : "yaml");
    }

    /** SnakeYAML's messages quote the document over several lines; an error here is one line, and short. */
    static String oneLine(String message) {
        String line = String.valueOf(message).strip().replaceAll("\\s*\\R\\s*", " ");
        return line.length() <= 300 ? line : line.substring(0, 300) + " ...";
    }

    /** JSON may be indented with tabs, which YAML forbids, so text starting with '{' or '[' goes to a JSON parser. */
    private static boolean startsLikeJson(BufferedInputStream input) throws IOException {
        input.mark(1 << 16);
        try {
            for (int i = 0; i < 1 << 16; i++) {
                int b = input.read();
                if (b == '{' || b == '[') {
                    return true;
                }
                boolean byteOrderMark = b == 0xEF || b == 0xBB || b == 0xBF;
                if (b < 0 || !(Character.isWhitespace(b) || byteOrderMark)) {
                    return false;
                }
            }
            return false;
        } finally {
            input.reset();
        }
    }

    /** The state of one read: whether the file is known to be a dump yet, and what it held. */
    private static final class Reading {
        private final Consumer<JsonNode> handler;
        private final Skips skips;
        boolean recognised;
        String notADump = "it holds no document";
        int documents;
        long objects;

        private final CountingInput input;

        Reading(Consumer<JsonNode> handler, Skips skips, CountingInput input) {
            this.handler = handler;
            this.skips = skips;
            this.input = input;
        }

        void documents(JsonParser parser) {
            JsonToken token;
            while ((token = parser.nextToken()) != null) {
                if (token == JsonToken.VALUE_NULL) {
                    continue; // an empty YAML document between two '---'
                }
                documents++;
                input.objectStarts();
                String problem = switch (token) {
                    case START_ARRAY -> {
                        elements(parser);
                        recognised = true;
                        yield null;
                    }
                    case START_OBJECT -> object(parser);
                    default -> "document " + documents + " is a scalar";
                };
                if (problem != null) {
                    parser.skipChildren();
                    if (!recognised) {
                        notADump = problem;
                        return;
                    }
                    skips.skip(Kind.SNAPSHOT, "document " + documents, Reason.BAD_DOCUMENT, problem);
                }
            }
        }

        /**
         * A document that is an object: a {@code List} whose items are streamed one by one, or a
         * single Kubernetes object. Returns why it is neither, or null.
         */
        private String object(JsonParser parser) {
            ObjectNode fields = JsonNodeFactory.instance.objectNode();
            boolean list = false;
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if (!list && name.equals("items") && value == JsonToken.START_ARRAY) {
                    list = true;
                    elements(parser);
                } else {
                    fields.set(name, parser.readValueAsTree());
                }
            }
            if (list) {
                recognised = true;
                return null;
            }
            if (fields.path("kind").isString()) {
                hand(fields);
                return null;
            }
            return "document " + documents + " is a map without 'items' or 'kind'";
        }

        /** The elements of an array the parser stands at the start of, each built alone. */
        private void elements(JsonParser parser) {
            input.objectStarts();
            while (parser.nextToken() != JsonToken.END_ARRAY) {
                flatten(parser.readValueAsTree());
                input.objectStarts();
            }
        }

        private void flatten(JsonNode node) {
            if (node.isArray()) {
                node.forEach(this::flatten);
            } else if (node.isObject() && node.path("items").isArray()) {
                node.path("items").forEach(this::flatten);
            } else if (node.isObject()) {
                hand(node);
            } else {
                skips.skip(Kind.SNAPSHOT, "document " + documents, Reason.BAD_OBJECT, "an item is not an object: "
                        + node.getNodeType());
            }
        }

        /** An object found: from now on the file is a dump, and a break in it costs only what follows. */
        private void hand(JsonNode object) {
            recognised = true;
            objects++;
            handler.accept(object);
        }
    }

    /**
     * Counts the bytes read, and refuses to read past {@link #MAX_BYTES} should the file grow
     * meanwhile, or more than {@link #MAX_OBJECT_BYTES} since the current object started (give or
     * take the parsers' read-ahead, some tens of KiB).
     */
    private static final class CountingInput extends FilterInputStream {
        long count;
        private long objectStart;
        volatile boolean tooLarge;

        CountingInput(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                counted(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                counted(n);
            }
            return n;
        }

        /** An object (or a document) starts: the next {@link #MAX_OBJECT_BYTES} are its own. */
        void objectStarts() {
            objectStart = count;
        }

        private void counted(int n) throws IOException {
            count += n;
            if (count > MAX_BYTES) {
                throw new IOException("the file grew past " + MAX_BYTES + " bytes while it was read");
            }
            if (count - objectStart > MAX_OBJECT_BYTES) {
                tooLarge = true;
                throw new IOException("an object larger than " + MAX_OBJECT_BYTES + " bytes");
            }
        }
    }
}

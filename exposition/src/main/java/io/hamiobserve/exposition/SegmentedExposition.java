package io.hamiobserve.exposition;

import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * An exposition assembled from segments ({@link Segments}), so that a scrape after a change renders
 * only what changed.
 *
 * <p>Each segment is rendered on its own, as the prometheus-metrics writer writes a snapshot of its
 * points in each of the section's families (by the project's {@link TextWriter}, which writes the
 * same bytes straight from the rows, for the library's text writers), and its sample lines are
 * kept in a {@link RenderCache}, per format, for as long as the next exposition still has a
 * segment with an equal key. Writing emits the families in the order of their names, as the
 * library does, each as its HELP/TYPE lines (as the writer wrote them) followed by every
 * segment's sample lines for it, in segment order. This class only cuts the writer's output at
 * line boundaries and joins the pieces.
 *
 * <p>The result differs from one writer call over all points in one respect: within a family,
 * samples come segment by segment (in domain order) and sorted by label values only within a
 * segment, or within a part of a segment of parts (a node's pods: see {@code PartsRendering}) —
 * the formats require no order. The sections must make sure that two segments never
 * produce the same series: a segment is deduplicated by its own snapshot, segments are not checked
 * against each other (the allocation view makes one segment per node, and every series carries
 * the node).
 *
 * <p>Compressed ({@link #writeGzip}), each segment's sample lines of each family are one piece of
 * the body's deflate stream ({@link GzipPieces}), compressed when the segment is first written compressed and kept with its lines: a
 * scrape after a change compresses only the segments rendered anew (and the few bytes between
 * them: HELP/TYPE lines, the series collected for this scrape), and copies the rest.
 *
 * <p>Families that the {@link FamilySelection} leaves out are not written (their points may still
 * be added by a catalogue, which need not know the selection).
 */
public final class SegmentedExposition implements Segments, Exposition {
    /**
     * Below this many segments to render, rendering in parallel costs more than it saves. At
     * 100,000 containers on 2 busy cores, 16 made the scrape after 100 pod events (some 95 nodes
     * rendered) slower than on one thread; from about a fifth of 1,250 nodes (1,000 events touch
     * more than half) both cores pay off.
     */
    static final int PARALLEL_THRESHOLD = 256;
    /**
     * Below this many segments, gzip is one stream compressed whole rather than kept pieces: pieces
     * pay off where a scrape after one event would otherwise compress megabytes (2,500 segments at
     * 100,000 containers), and cost compression where each piece holds a few lines.
     */
    static final int PIECES_THRESHOLD = 64;

    private final RenderCache cache;
    private final FamilyDecorator decorator;
    private final FamilySelection selection;
    private final List<CachedSection> sections = new ArrayList<>();
    private final List<Families> tail = new ArrayList<>();
    /** Collections of kinds the catalogue's families do not write (a histogram), by the library's writer. */
    private final List<MetricSnapshots> snapshotTail = new ArrayList<>();

    /**
     * @param cache     what the role keeps between scrapes
     * @param decorator applied to every segment rendered
     */
    public SegmentedExposition(RenderCache cache, FamilyDecorator decorator) {
        this(cache, decorator, FamilySelection.ALL);
    }

    /**
     * @param cache     what the role keeps between scrapes (for one selection: a role's is fixed)
     * @param decorator applied to every segment rendered
     * @param selection the families written
     */
    public SegmentedExposition(RenderCache cache, FamilyDecorator decorator, FamilySelection selection) {
        this.cache = cache;
        this.decorator = decorator;
        this.selection = selection;
    }

    @Override
    public Section section(String name, Consumer<Families> layout) {
        CachedSection section = new CachedSection(name, layout);
        sections.add(section);
        return section;
    }

    /**
     * Adds a collection complete as it is, among the sections' families: series collected once
     * for this exposition (the exporter's own), never cached. It is sealed here: nothing may be
     * added to it afterwards, and its families are in no section and no other appended collection.
     */
    public void append(Families families) {
        List<MetricFamily.Points> sealed = new ArrayList<>();
        for (MetricFamily.Points family : families.nonEmpty()) {
            family.seal(sealed);
            sealed.add(family);
        }
        tail.add(families);
    }

    /**
     * Adds series the catalogue's families cannot state (the catalogue writes gauges and counters;
     * a histogram is written here), complete as they are, never cached, by the library's writer.
     * Their names are in no section and no other appended collection.
     */
    public void append(MetricSnapshots snapshots) {
        snapshotTail.add(snapshots);
    }

    /** A section and its segments; a segment's producer runs only when no equal key was rendered before. */
    private static final class CachedSection implements Section {
        private final String name;
        private final Consumer<Families> layout;
        private final List<Segment> segments = new ArrayList<>();

        private CachedSection(String name, Consumer<Families> layout) {
            this.name = name;
            this.layout = layout;
        }

        @Override
        public void segment(Object key, Consumer<Families> producer) {
            segments.add(new Segment(key, producer, null, null));
        }

        @Override
        public void segment(Object key, Object lineage, Consumer<Parts> producer) {
            segments.add(new Segment(key, null, lineage, producer));
        }
    }

    /** A segment: of points ({@code producer}), or of parts ({@code parts}, with its {@code lineage}). */
    private record Segment(Object key, Consumer<Families> producer, Object lineage, Consumer<Parts> parts) {
    }

    @Override
    public void write(OutputStream out, ExpositionFormat format) throws IOException {
        RenderCache.ForFormat formatCache = cache.forFormat(format);
        for (FamilyOutput output : outputs(format, formatCache, false)) {
            output.writeTo(out);
        }
        out.write(formatCache.trailer());
    }

    /**
     * As {@link #write}, as one gzip member of deflate pieces ({@link GzipPieces}): each segment's
     * lines of each family are the piece kept with the segment (compressed now where the segment
     * has none yet, in parallel where many have none); the bytes between them are compressed
     * together, one piece per run. A segment of a
     * section of many segments is compressed as soon as it is rendered, by the thread that
     * rendered it, and its text never kept: after 1,000 pod events at 100,000 containers some
     * 60 MB of text would otherwise live until every segment was rendered, long enough for the
     * serial collector to promote it and then run a full collection per scrape.
     */
    @Override
    public void writeGzip(OutputStream out, ExpositionFormat format) throws IOException {
        RenderCache.ForFormat formatCache = cache.forFormat(format);
        List<FamilyOutput> outputs = outputs(format, formatCache, true);
        Set<RenderedSegment> segments = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        outputs.forEach(output -> segments.addAll(output.pieces()));
        if (segments.size() < PIECES_THRESHOLD) {
            // A small exposition (a node's, a small cluster's): one stream compresses it far better
            // than a piece per segment and family, and compressing it whole each time is cheap.
            Exposition.super.writeGzip(out, format);
            return;
        }
        Set<RenderedSegment> uncompressed = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (FamilyOutput output : outputs) {
            for (RenderedSegment piece : output.pieces()) {
                if (!piece.compressed()) {
                    uncompressed.add(piece);
                }
            }
        }
        var compressing = uncompressed.stream();
        if (uncompressed.size() >= PARALLEL_THRESHOLD) {
            compressing = compressing.parallel();
        }
        compressing.forEach(RenderedSegment::compress);
        GzipPieces.Writer body = new GzipPieces.Writer(out);
        for (FamilyOutput output : outputs) {
            body.write(output.header());
            for (RenderedSegment piece : output.pieces()) {
                body.piece(piece.deflated(output.name()));
            }
        }
        body.write(formatCache.trailer());
        body.finish();
    }

    /**
     * Every family's output, sections and tail, rendering what is not kept; the segments of a
     * section of many compressed as they are rendered where {@code gzip}.
     */
    private List<FamilyOutput> outputs(ExpositionFormat format, RenderCache.ForFormat formatCache, boolean gzip) {
        List<FamilyOutput> outputs = new ArrayList<>();
        for (CachedSection section : sections) {
            outputs.addAll(renderSection(section, format, formatCache, gzip));
        }
        outputs.addAll(renderTail(format, formatCache));
        // As the library's MetricSnapshots does: families in the order of their names.
        outputs.sort(Comparator.comparing(FamilyOutput::name));
        return outputs;
    }

    /** One family's lines in the exposition: its HELP/TYPE lines, then its samples piece by piece. */
    private record FamilyOutput(String name, byte[] header, List<RenderedSegment> pieces) {
        void writeTo(OutputStream out) throws IOException {
            out.write(header);
            for (RenderedSegment piece : pieces) {
                piece.writeTo(out, name);
            }
        }
    }

    private List<FamilyOutput> renderTail(ExpositionFormat format, RenderCache.ForFormat formatCache) {
        List<FamilyOutput> outputs = new ArrayList<>();
        List<Written> writtenTail = new ArrayList<>();
        // The tail is small and written once per exposition: arrays of its own, not the scratch.
        tail.forEach(families -> writtenTail.add(written(format, families, new Scratch())));
        snapshotTail.forEach(snapshots -> writtenTail.add(written(format, selected(snapshots), new Scratch())));
        for (Written written : writtenTail) {
            RenderedSegment rendered = cut(format, written, formatCache, false);
            for (String name : rendered.names()) {
                outputs.add(new FamilyOutput(name, formatCache.header(name), List.of(rendered)));
            }
        }
        return outputs;
    }

    private List<FamilyOutput> renderSection(CachedSection section, ExpositionFormat format,
                                             RenderCache.ForFormat formatCache, boolean gzip) {
        Families layout = layout(section);
        // Renderings kept for another layout (say, without legacy twins) are of no use here.
        List<MetricFamily> families = layout.started();
        Map<Object, RenderedSegment> previous = formatCache.segments(section.name, families);
        Map<Object, RenderedSegment> previousLineages = formatCache.lineages(section.name, families);
        List<Segment> segments = section.segments;
        // Pieces pay off only in an exposition of many segments (PIECES_THRESHOLD); a section of
        // so many makes one. Should the exposition still be written as one stream, the pieces
        // are inflated (correct, only slower).
        boolean compress = gzip && segments.size() >= PIECES_THRESHOLD;
        RenderedSegment[] rendered = new RenderedSegment[segments.size()];
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < rendered.length; i++) {
            Object key = segments.get(i).key();
            rendered[i] = key == null ? null : previous.get(key);
            if (rendered[i] == null) {
                missing.add(i);
            }
        }
        IntStream indexes = missing.stream().mapToInt(Integer::intValue);
        if (missing.size() >= PARALLEL_THRESHOLD) {
            indexes = indexes.parallel();
        }
        indexes.forEach(i -> rendered[i] = render(section, segments.get(i), previousLineages, format, formatCache,
                compress));
        for (int i : missing) {
            Object key = segments.get(i).key();
            if (key != null) {
                rendered[i] = cache.sharedWithOtherFormats(formatCache, section.name, key, rendered[i]);
            }
        }

        Map<Object, RenderedSegment> kept = new HashMap<>(Math.max(16, rendered.length * 4 / 3 + 1));
        Map<Object, RenderedSegment> lineages = new HashMap<>();
        for (int i = 0; i < rendered.length; i++) {
            Segment segment = segments.get(i);
            if (segment.key() != null) {
                kept.put(segment.key(), rendered[i]);
            }
            if (segment.lineage() != null && rendered[i].parts != null) {
                lineages.put(segment.lineage(), rendered[i]);
            }
        }
        formatCache.keep(section.name, families, kept, lineages);

        // Per family of the section, the segments that have samples for it, in segment order.
        Map<String, List<RenderedSegment>> piecesByFamily = new LinkedHashMap<>();
        for (RenderedSegment segment : rendered) {
            for (String name : segment.names()) {
                piecesByFamily.computeIfAbsent(name, family -> new ArrayList<>()).add(segment);
            }
        }
        List<FamilyOutput> outputs = new ArrayList<>();
        piecesByFamily.forEach((name, pieces) -> outputs.add(new FamilyOutput(name, formatCache.header(name),
                pieces)));
        return outputs;
    }

    /** The section's families, the decorator's beside them. */
    private Families layout(CachedSection section) {
        Families families = new Families();
        section.layout.accept(families);
        decorator.layout(families);
        return families;
    }

    /**
     * Renders one segment: runs its producer and the decorator, writes the families into a reused
     * array, cuts the output by family (compressing each family's lines where {@code compress}).
     */
    private RenderedSegment render(CachedSection section, Segment segment,
                                   Map<Object, RenderedSegment> previousLineages, ExpositionFormat format,
                                   RenderCache.ForFormat formatCache, boolean compress) {
        if (segment.parts() != null) {
            PartsRendering parts = new PartsRendering(section, previousLineages.get(segment.lineage()), format,
                    formatCache);
            segment.parts().accept(parts);
            decorator.decorate(parts.own);
            return parts.assemble(lines(format, parts.own, formatCache, false), compress);
        }
        Families families = layout(section);
        segment.producer().accept(families);
        decorator.decorate(families);
        return lines(format, families, formatCache, compress);
    }

    /** The decorated {@code families}' sample lines, cut by family (compressed where {@code compress}). */
    private RenderedSegment lines(ExpositionFormat format, Families families, RenderCache.ForFormat formatCache,
                                  boolean compress) {
        Scratch scratch = Scratch.take();
        try {
            return cut(format, written(format, families, scratch), formatCache, compress);
        } finally {
            scratch.give();
        }
    }

    /**
     * Where a segment of parts has each part's lines, kept with it: each part's source, detail and
     * fingerprint, and {@code starts[f][p]}, where part {@code p}'s lines begin in the segment's
     * lines of its family {@code f} ({@code starts[f][parts]}: where the segment's own lines
     * begin). The lines themselves are the segment's, as text or pieces: a segment rendered again
     * inflates the pieces of the families whose lines it keeps (a ninth of compressing them) rather
     * than every node keeping its text (some 60 MB more heap at 100,000 containers).
     */
    private record PartIndex(Object[] sources, Object[] details, double[] fingerprints, int[][] starts) {
    }

    /**
     * A segment of parts being rendered: each part's lines taken from the lineage's last rendering
     * where it had the part (the same source, an equal detail), else written now; then joined
     * family by family, part after part, the segment's own lines last. After 1,000 pod events at
     * 100,000 containers some 700 nodes hold a changed pod, one or two of their 80: the other pods'
     * lines are copied, not collected, sorted and written again.
     */
    private final class PartsRendering implements Parts {
        private static final int[] NEAR = {0, -1, 1};

        private final CachedSection section;
        private final RenderedSegment previous;
        private final ExpositionFormat format;
        private final RenderCache.ForFormat formatCache;
        private final Families own;
        private final Fingerprint partsFingerprint = new Fingerprint();
        private final List<Object> sources = new ArrayList<>();
        private final List<Object> details = new ArrayList<>();
        private double[] fingerprints = new double[16];
        /** Per part: its lines written now, or null where kept from {@link #previous}. */
        private final List<RenderedSegment> written = new ArrayList<>();
        /** Per part: its index in {@link #previous}, where kept. */
        private int[] keptFrom = new int[16];
        private Map<Object, Integer> previousBySource;
        /** Where the last part found was in the previous rendering, less where it is now. */
        private int shift;
        /** Whether the last part looked for was not where expected. */
        private boolean missed;

        PartsRendering(CachedSection section, RenderedSegment previous, ExpositionFormat format,
                       RenderCache.ForFormat formatCache) {
            this.section = section;
            this.previous = previous != null && previous.parts != null ? previous : null;
            this.format = format;
            this.formatCache = formatCache;
            this.own = layout(section);
        }

        @Override
        public void part(Object source, Object detail, BiConsumer<Families, Fingerprint> producer) {
            int index = sources.size();
            if (index == fingerprints.length) {
                fingerprints = Arrays.copyOf(fingerprints, 2 * index);
                keptFrom = Arrays.copyOf(keptFrom, 2 * index);
            }
            sources.add(source);
            details.add(detail);
            int at = source == null || previous == null ? -1 : previousIndex(source, index);
            if (at >= 0 && java.util.Objects.equals(previous.parts.details()[at], detail)) {
                fingerprints[index] = previous.parts.fingerprints()[at];
                keptFrom[index] = at;
                written.add(null);
            } else {
                Families families = layout(section);
                Fingerprint fingerprint = new Fingerprint();
                producer.accept(families, fingerprint);
                decorator.decorate(families);
                fingerprints[index] = fingerprint.value();
                written.add(lines(format, families, formatCache, false));
            }
            partsFingerprint.add(fingerprints[index]);
        }

        @Override
        public Families families() {
            return own;
        }

        @Override
        public double partsFingerprint() {
            return partsFingerprint.value();
        }

        /**
         * The previous rendering's part of this source (the same object), or -1: first where the
         * last part found puts it (a node's pods keep their order, shifted by those added or
         * removed before them), else looked up.
         */
        private int previousIndex(Object source, int index) {
            Object[] previousSources = previous.parts.sources();
            int expected = index + shift;
            // Where it was, else one place either way: a part added or removed just before it.
            for (int away : NEAR) {
                int at = expected + away;
                if (at >= 0 && at < previousSources.length && previousSources[at] == source) {
                    shift = at - index;
                    missed = false;
                    return at;
                }
            }
            // A changed pod is another object, found nowhere: looked up only after two misses in a row.
            if (!missed) {
                missed = true;
                return -1;
            }
            if (previousBySource == null) {
                previousBySource = new IdentityHashMap<>();
                for (int p = 0; p < previousSources.length; p++) {
                    if (previousSources[p] != null) {
                        previousBySource.put(previousSources[p], p);
                    }
                }
            }
            Integer at = previousBySource.get(source);
            if (at == null) {
                return -1;
            }
            shift = at - index;
            missed = false;
            return at;
        }

        /**
         * The segment: its families (in the order of their names) where any part or its own lines
         * have lines, each family's lines part after part, then its own; compressed where
         * {@code compress}, each family a piece, as a segment of points is.
         */
        RenderedSegment assemble(RenderedSegment ownLines, boolean compress) {
            int count = sources.size();
            java.util.TreeSet<String> candidates = new java.util.TreeSet<>(ownLines.names());
            boolean keeps = false;
            Set<List<String>> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
            for (RenderedSegment part : written) {
                if (part == null) {
                    keeps = true;
                } else if (seen.add(part.names())) {
                    candidates.addAll(part.names());
                }
            }
            if (keeps) {
                candidates.addAll(previous.names);
            }
            List<String> names = new ArrayList<>(candidates.size());
            List<int[]> starts = new ArrayList<>(candidates.size());
            int[] offsets = new int[candidates.size() + 1];
            Scratch text = Scratch.take();
            Scratch previousText = keeps ? Scratch.take() : null;
            try {
                for (String name : candidates) {
                    int familyFrom = text.size;
                    int[] partStarts = new int[count + 1];
                    int inPrevious = keeps ? previous.names.indexOf(name) : -1;
                    int[] previousStarts = inPrevious >= 0 ? previous.parts.starts()[inPrevious] : null;
                    boolean inflated = false;
                    for (int p = 0; p < count; p++) {
                        partStarts[p] = text.size - familyFrom;
                        RenderedSegment part = written.get(p);
                        if (part != null) {
                            part.copyLines(name, text);
                        } else if (previousStarts != null) {
                            int from = previousStarts[keptFrom[p]];
                            int length = previousStarts[keptFrom[p] + 1] - from;
                            if (length > 0 && !inflated) {
                                previousText.size = 0;
                                try {
                                    previous.writeTo(previousText, name);
                                } catch (IOException impossible) {
                                    throw new UncheckedIOException(impossible);
                                }
                                inflated = true;
                            }
                            text.write(previousText.bytes, from, length);
                        }
                    }
                    partStarts[count] = text.size - familyFrom;
                    ownLines.copyLines(name, text);
                    if (text.size > familyFrom) {
                        offsets[names.size()] = familyFrom;
                        names.add(name);
                        starts.add(partStarts);
                    }
                }
                offsets[names.size()] = text.size;
                int[] familyOffsets = Arrays.copyOf(offsets, names.size() + 1);
                PartIndex index = new PartIndex(sources.toArray(), details.toArray(),
                        Arrays.copyOf(fingerprints, count), starts.toArray(new int[0][]));
                if (compress) {
                    byte[][] pieces = new byte[names.size()][];
                    for (int f = 0; f < names.size(); f++) {
                        pieces[f] = GzipPieces.piece(text.bytes, familyOffsets[f], familyOffsets[f + 1] - familyOffsets[f]);
                    }
                    return RenderedSegment.compressed(familyOffsets, List.copyOf(names), pieces, index);
                }
                return new RenderedSegment(Arrays.copyOf(text.bytes, text.size), familyOffsets, List.copyOf(names),
                        index);
            } finally {
                text.give();
                if (previousText != null) {
                    previousText.give();
                }
            }
        }
    }

    /**
     * A writer's output ({@code length} bytes of {@code output}) and the families it wrote, in the
     * order written; where the project's writer wrote it, where each family's lines are
     * ({@link TextWriter#write(OutputStream, List, ExpositionFormat, int[])}), else null.
     */
    private record Written(byte[] output, int length, List<String> names, int[] bounds) {
    }

    /**
     * The array a segment is written into before it is cut, reused segment after segment (one per
     * thread rendering at a time): the cut copies out what it keeps, so the writer's output needs
     * no array of its own, grown and trimmed per segment.
     */
    private static final class Scratch extends OutputStream {
        private static final int INITIAL = 64 * 1024;
        /** An array grown past this (a segment of megabytes, rare) goes with its segment. */
        private static final int KEPT = 1 << 20;
        private static final Queue<Scratch> IDLE = new ConcurrentLinkedQueue<>();

        private byte[] bytes = new byte[INITIAL];
        private int size;

        static Scratch take() {
            Scratch scratch = IDLE.poll();
            return scratch != null ? scratch : new Scratch();
        }

        void give() {
            size = 0;
            if (bytes.length > KEPT) {
                bytes = new byte[INITIAL];
            }
            IDLE.offer(this);
        }

        Written written(List<String> names, int[] bounds) {
            return new Written(bytes, size, names, bounds);
        }

        @Override
        public void write(int b) {
            room(1);
            bytes[size++] = (byte) b;
        }

        @Override
        public void write(byte[] from, int offset, int length) {
            room(length);
            System.arraycopy(from, offset, bytes, size, length);
            size += length;
        }

        private void room(int more) {
            if (bytes.length - size < more) {
                bytes = Arrays.copyOf(bytes, Math.max(2 * bytes.length, size + more));
            }
        }
    }

    /**
     * A segment's families in {@code format}, as the library's writer of the format writes their
     * snapshots: by the project's {@link TextWriter} straight from the rows (plain families), else
     * by the library's writer itself. At 100,000 containers the
     * library's writer, a character at a time through a synchronized {@code Writer}, was most of a
     * rendering made before the JIT had compiled it (the first one after a start). Families the
     * selection leaves out are not written.
     */
    private Written written(ExpositionFormat format, Families families, Scratch scratch) {
        List<MetricFamily.Points> points = new ArrayList<>();
        for (MetricFamily.Points family : families.nonEmpty()) {
            // A family left out is neither sorted nor checked: an opt-in family a catalogue fills
            // anyway (hami_observe_pod_owner, a row per pod) costs its rows' adding only.
            if (selection.writes(family.family().name())) {
                family.seal(points);
                points.add(family);
            }
        }
        // As the library's MetricSnapshots does: families in the order of their names.
        points.sort(Comparator.comparing(family -> family.family().name()));
        try {
            if (TextWriter.Plain.families(points)) {
                int[] bounds = new int[2 * points.size() + 1];
                TextWriter.write(scratch, points, format, bounds);
                return scratch.written(points.stream().map(family -> family.family().name()).toList(), bounds);
            }
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
        return written(format, selected(families.snapshots()), scratch);
    }

    /** The snapshots of the families the selection writes. */
    private MetricSnapshots selected(MetricSnapshots snapshots) {
        List<MetricSnapshot> kept = new ArrayList<>(snapshots.size());
        for (MetricSnapshot snapshot : snapshots) {
            if (selection.writes(snapshot.getMetadata().getName())) {
                kept.add(snapshot);
            }
        }
        return kept.size() == snapshots.size() ? snapshots : new MetricSnapshots(kept);
    }

    /** Snapshots as the library's writer of {@code format} writes them. */
    private static Written written(ExpositionFormat format, MetricSnapshots snapshots, Scratch scratch) {
        List<String> names = new ArrayList<>();
        for (MetricSnapshot snapshot : snapshots) {
            if (!snapshot.getDataPoints().isEmpty()) {
                names.add(snapshot.getMetadata().getName());
            }
        }
        try {
            format.writer().write(scratch, snapshots);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
        return scratch.written(names, null);
    }

    /**
     * Keeps each family's sample lines of a writer's output apart. The writer emits each family
     * that has points, in the order of {@code written.names}, as comment lines (HELP, TYPE)
     * followed by sample lines, which never start with '#'; comment lines after the last samples
     * are the format's trailer, written once per exposition instead. Where {@code compress}, each
     * family's lines become its piece straight from the writer's output, and no text is kept.
     */
    private static RenderedSegment cut(ExpositionFormat format, Written written,
                                       RenderCache.ForFormat formatCache, boolean compress) {
        List<String> names = written.names();
        byte[] output = written.output();
        int end = written.length();
        int[] from = new int[names.size()];
        int[] to = new int[names.size()];
        int[] bounds = written.bounds();
        int family = 0;
        int position = 0;
        while (position < end) {
            int commentsFrom = position;
            int samplesFrom;
            if (bounds != null) {
                // The project's writer said where the lines are: the same cut, without reading the bytes.
                if (family == names.size()) {
                    break;
                }
                commentsFrom = bounds[2 * family];
                samplesFrom = bounds[2 * family + 1];
                position = bounds[2 * family + 2];
            } else {
                while (position < end && output[position] == '#') {
                    position = lineEnd(output, position, end);
                }
                samplesFrom = position;
                while (position < end && output[position] != '#') {
                    position = lineEnd(output, position, end);
                }
            }
            if (samplesFrom == position) {
                break;
            }
            if (family == names.size()) {
                throw new IllegalStateException("the " + format.contentType()
                        + " writer wrote more families than " + names);
            }
            String name = names.get(family);
            // A header equal to the one kept for the family passed this check when it was kept.
            if (!formatCache.hasHeader(name, output, commentsFrom, samplesFrom)) {
                String header = new String(output, commentsFrom, samplesFrom - commentsFrom, StandardCharsets.UTF_8);
                if (!typesFamily(header, name)) {
                    throw new IllegalStateException("the " + format.contentType() + " writer wrote " + header
                            + " where " + name + " was expected");
                }
                formatCache.rememberHeader(name, output, commentsFrom, samplesFrom);
            }
            from[family] = samplesFrom;
            to[family] = position;
            family++;
        }
        if (family != names.size()) {
            throw new IllegalStateException("the " + format.contentType() + " writer wrote " + family
                    + " families of " + names);
        }
        int[] offsets = new int[names.size() + 1];
        for (int f = 0; f < names.size(); f++) {
            offsets[f + 1] = offsets[f] + to[f] - from[f];
        }
        List<String> kept = List.copyOf(names);
        if (compress) {
            byte[][] pieces = new byte[names.size()][];
            for (int f = 0; f < names.size(); f++) {
                pieces[f] = GzipPieces.piece(output, from[f], to[f] - from[f]);
            }
            return RenderedSegment.compressed(offsets, kept, pieces);
        }
        byte[] samples = new byte[offsets[names.size()]];
        for (int f = 0; f < names.size(); f++) {
            System.arraycopy(output, from[f], samples, offsets[f], to[f] - from[f]);
        }
        return new RenderedSegment(samples, offsets, kept);
    }

    /** Whether comment lines declare the type of {@code family} (counters may carry {@code _total}). */
    private static boolean typesFamily(String comments, String family) {
        for (String line : comments.split("\n")) {
            String[] words = line.split(" ");
            if (words.length >= 3 && words[0].equals("#") && words[1].equals("TYPE")) {
                return words[2].equals(family) || words[2].equals(family + "_total");
            }
        }
        return false;
    }

    private static int lineEnd(byte[] bytes, int from, int end) {
        for (int i = from; i < end; i++) {
            if (bytes[i] == '\n') {
                return i + 1;
            }
        }
        return end;
    }

    /**
     * A segment's sample lines for the families it has points in ({@code names}, in the writer's
     * order), one after the other: family {@code f} is {@code [offsets[f], offsets[f+1])} of the
     * text; once written compressed, each family's lines as a deflate piece instead, and the text
     * dropped: at 100,000 containers the pieces are a twelfth of the text's heap. A segment
     * without its text writes uncompressed by inflating its pieces (a scrape without gzip, rare:
     * Prometheus and VictoriaMetrics ask for gzip). Two scrapes compressing at once store equal
     * pieces; a writer reads the text once and inflates when it is gone.
     */
    static final class RenderedSegment {
        private final AtomicReference<byte[]> samples;
        private final int[] offsets;
        private final List<String> names;
        private final AtomicReferenceArray<byte[]> deflated;
        /** Where a segment of parts has each part's lines; null for a segment of points. */
        private final PartIndex parts;

        RenderedSegment(byte[] samples, int[] offsets, List<String> names) {
            this(samples, offsets, names, null);
        }

        RenderedSegment(byte[] samples, int[] offsets, List<String> names, PartIndex parts) {
            this.samples = new AtomicReference<>(samples);
            this.offsets = offsets;
            this.names = names;
            this.deflated = new AtomicReferenceArray<>(names.size());
            this.parts = parts;
        }

        /** Lines compressed as they were cut: each family's piece, no text. */
        static RenderedSegment compressed(int[] offsets, List<String> names, byte[][] pieces) {
            return compressed(offsets, names, pieces, null);
        }

        static RenderedSegment compressed(int[] offsets, List<String> names, byte[][] pieces, PartIndex parts) {
            RenderedSegment segment = new RenderedSegment(null, offsets, names, parts);
            for (int f = 0; f < pieces.length; f++) {
                segment.deflated.set(f, pieces[f]);
            }
            return segment;
        }

        List<String> names() {
            return names;
        }

        /** Each family's piece, null where not compressed yet. */
        AtomicReferenceArray<byte[]> deflated() {
            return deflated;
        }

        boolean compressed() {
            return names.isEmpty() || deflated.get(names.size() - 1) != null;
        }

        /** Compresses every family's lines that has no piece yet, then lets the text go. */
        void compress() {
            byte[] text = samples.get();
            for (int f = 0; f < names.size(); f++) {
                if (deflated.get(f) == null) {
                    deflated.set(f, GzipPieces.piece(text, offsets[f], offsets[f + 1] - offsets[f]));
                }
            }
            samples.set(null);
        }

        /** Appends the family's lines of a segment written now (with its text); nothing where it has none. */
        void copyLines(String name, Scratch to) {
            int index = names.indexOf(name);
            if (index >= 0) {
                to.write(samples.get(), offsets[index], offsets[index + 1] - offsets[index]);
            }
        }

        byte[] deflated(String name) {
            if (!compressed()) {
                compress();
            }
            return deflated.get(names.indexOf(name));
        }

        /** The same lines: compared as text while both have it, else as pieces (deflate is a function of its input). */
        boolean sameAs(RenderedSegment other) {
            if (!Arrays.equals(offsets, other.offsets) || !names.equals(other.names)) {
                return false;
            }
            byte[] mine = samples.get();
            byte[] theirs = other.samples.get();
            if (mine != null && theirs != null) {
                return Arrays.equals(mine, theirs);
            }
            for (int f = 0; f < names.size(); f++) {
                boolean same = mine == null && theirs == null ? Arrays.equals(deflated.get(f), other.deflated.get(f))
                        : GzipPieces.holds(mine == null ? deflated.get(f) : other.deflated.get(f),
                        mine == null ? theirs : mine, offsets[f], offsets[f + 1] - offsets[f]);
                if (!same) {
                    return false;
                }
            }
            return true;
        }

        void writeTo(OutputStream out, String name) throws IOException {
            int index = names.indexOf(name);
            byte[] text = samples.get();
            if (text != null) {
                out.write(text, offsets[index], offsets[index + 1] - offsets[index]);
            } else {
                GzipPieces.inflate(deflated.get(index), out);
            }
        }
    }
}

package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import io.hamiobserve.adapters.cachefile.Skips.Reason;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Decodes one cache file. Reads only the header, the fields after the slot array and the slots in
 * use, never the whole file (a v1 file is 2 MB, nearly all of it empty slots). Never writes. Three
 * jobs, three parts: guarding a file that changes while it is read ({@link ChangingFile}),
 * decoding the header ({@link HeaderDecoder}), reading the slots under their seqlock protocol
 * ({@link SlotReader}).
 *
 * <p>Not thread-safe: one caller at a time, reused across files and scrapes so that its
 * buffers are allocated once. Its memory is bounded by the largest file layout's slot array
 * (three copies, for the seqlock protocol), whatever the files say. A {@link #keeping() keeping}
 * reader also keeps its files' channels open between reads ({@link KeptChannels}); it is
 * {@link #close() closed} when no longer used.
 */
final class CacheFileReader implements AutoCloseable {
    private final HeaderDecoder headers = new HeaderDecoder();
    private final SlotReader slots = new SlotReader();
    /** Null for a reader that opens and closes each file it reads. */
    private final KeptChannels keptChannels;
    /** Null for a reader that lists each directory it looks at. */
    private final KeptListings keptListings;

    /** A reader that opens and closes each file it reads. */
    CacheFileReader() {
        this(null, null);
    }

    private CacheFileReader(KeptChannels keptChannels, KeptListings keptListings) {
        this.keptChannels = keptChannels;
        this.keptListings = keptListings;
    }

    /**
     * A reader that keeps the channels of the files it reads open, and the listings of directories
     * that did not change, until {@link #sweep()} finds them unread.
     */
    static CacheFileReader keeping() {
        return new CacheFileReader(new KeptChannels(), new KeptListings());
    }

    /** Ends a pass over the files: closes the kept channels of files not read since the last sweep. */
    void sweep() {
        if (keptChannels != null) {
            keptChannels.sweep();
            keptListings.sweep();
        }
    }

    /** The listings kept from earlier passes; null for a reader that keeps none. */
    KeptListings keptListings() {
        return keptListings;
    }

    /** Channels kept open now. */
    int keptChannels() {
        return keptChannels == null ? 0 : keptChannels.size();
    }

    @Override
    public void close() {
        if (keptChannels != null) {
            keptChannels.close();
        }
    }

    /**
     * Reads the file at {@code path}: a regular file, not followed through a symlink, checked not
     * to have been replaced or shrunk while it was read.
     */
    ReadResult read(Path path) {
        return ChangingFile.read(path, this::read, keptChannels);
    }

    /** Decodes whatever bytes {@code source} holds. Never throws for bad bytes. */
    ReadResult read(ByteSource source) throws IOException {
        HeaderDecoder.Decoded decoded = headers.decode(source);
        if (decoded.rejected() != null) {
            return decoded.rejected();
        }
        HeaderDecoder.Header header = decoded.header();
        CacheLayout layout = header.layout();
        List<CacheFileContent.Slot> read;
        try {
            read = header.seqlocked()
                    ? slots.readUnderSeqlock(source, layout, header.procCount(), header.deviceCount(), header.problems())
                    : slots.readPlain(source, layout, header.procCount(), header.deviceCount(), header.problems());
        } catch (EOFException e) {
            return ReadResult.rejected(Reason.TRUNCATED, e.getMessage());
        }
        if (layout == CacheLayout.V1 && !header.seqlocked()) {
            for (CacheFileContent.Slot slot : read) {
                if (slot.live() && slots.reservedInUse(layout, slot.index())) {
                    // Some 1.1-labelled builds moved the seqlock: their slots do not match this table.
                    return ReadResult.rejected(Reason.UNKNOWN_LAYOUT, "version 1." + header.minor() + " but slot "
                            + slot.index() + " has data in the seqlock/reserved words, which 1.0/1.1 leave at 0;"
                            + " a build with a relocated seqlock?");
                }
            }
        }
        return ReadResult.of(new CacheFileContent(layout, header.major(), header.minor(), header.size(),
                header.ownerPid(), header.deviceNumRaw(), header.devices(), header.procNumRaw(), read,
                header.utilizationSwitch(), header.recentKernel(), header.priority(), header.lastKernelTime(),
                header.problems()));
    }
}

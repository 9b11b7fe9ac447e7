package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.ports.ContainerUsageSource;
import io.hamiobserve.adapters.cachefile.Skips.Kind;
import io.hamiobserve.adapters.cachefile.Skips.Reason;
import io.hamiobserve.ports.SkipReporter;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The container-usage port over {@code $HOOK_PATH/containers}: one directory per container, named
 * {@code <podUID>_<containerName>}, holding HAMi-Core's {@code *.cache} file(s). Keeps nothing it
 * read between scrapes; safe to call from several threads. Its reader (whose buffers hold a
 * scrape's slot arrays, about 5 MB read per 200 containers) is kept for the next call rather than
 * allocated afresh: a call takes it, or makes its own when another call holds it, and gives it back
 * (a second reader given back is closed). The reader keeps the channels of the files it read open
 * for the next call while each path still names the same file ({@link KeptChannels}), so that a
 * file read at every scrape is not opened, stat'ed and closed at every scrape.
 */
final class CacheFileSource implements ContainerUsageSource {
    /** Entries looked at in one container directory; a tenant can fill its directory with files. */
    static final int MAX_ENTRIES = 4096;
    /** Cache files merged for one container. */
    static final int MAX_CACHE_FILES = 16;
    static final String SUFFIX = ".cache";

    private final Path root;
    /** The reader between calls; null while a call holds it. */
    private final AtomicReference<CacheFileReader> idleReader;
    private final boolean keepsChannels;

    /**
     * @param keepsChannels whether files' channels stay open between calls (the exporter's source);
     *                      a one-off reading (the inspector) leaves nothing open
     */
    CacheFileSource(Path root, boolean keepsChannels) {
        this.root = root;
        this.keepsChannels = keepsChannels;
        this.idleReader = new AtomicReference<>(newReader());
    }

    private CacheFileReader newReader() {
        return keepsChannels ? CacheFileReader.keeping() : new CacheFileReader();
    }

    /** Sees every cache file the source reads, with what it read: the inspector's view of a read. */
    interface FileSeen {
        FileSeen NONE = (file, result) -> { };

        void seen(Path file, ReadResult result);
    }

    @Override
    public List<ContainerUsage> read(SkipReporter skips) {
        return read(skips, FileSeen.NONE);
    }

    /** Reads as {@link #read(SkipReporter)} does, showing {@code seen} each file it reads. */
    List<ContainerUsage> read(SkipReporter skips, FileSeen seen) {
        CacheFileReader held = idleReader.getAndSet(null);
        CacheFileReader reader = held != null ? held : newReader();
        try {
            return read(reader, skips, seen);
        } finally {
            reader.sweep();
            if (!idleReader.compareAndSet(null, reader)) {
                reader.close();
            }
        }
    }

    private List<ContainerUsage> read(CacheFileReader reader, SkipReporter skips, FileSeen seen) {
        List<ContainerUsage> usages = new ArrayList<>();
        List<Path> directories = containerDirectories(reader.keptListings(), skips);
        if (directories == null) {
            return usages;
        }
        for (Path directory : directories) {
            try {
                ContainerUsage usage = readContainer(directory, reader, skips, seen);
                if (usage != null) {
                    usages.add(usage);
                }
            } catch (RuntimeException e) {
                // Defence in depth: one container's surprise must not cost the others their series.
                skips.skipped(Kind.DIRECTORY.because(Reason.INTERNAL_ERROR), directory + ": " + e);
            }
        }
        return usages;
    }

    /** Listings served from those kept by the idle reader (none while a call holds it). */
    long listingsReused() {
        CacheFileReader idle = idleReader.get();
        return idle == null || idle.keptListings() == null ? 0 : idle.keptListings().reused();
    }

    /** The containers' directories, sorted by name; null when the root cannot be listed (reported). */
    private List<Path> containerDirectories(KeptListings listings, SkipReporter skips) {
        DirectoryStamp stamp = null;
        if (listings != null) {
            try {
                stamp = DirectoryStamp.of(root);
            } catch (IOException | RuntimeException e) {
                // Listed below, which reports why it cannot be.
            }
            List<Path> kept = stamp == null ? null : listings.entries(root, stamp);
            if (kept != null) {
                return kept;
            }
        }
        long listedAt = System.nanoTime();
        List<Path> directories = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(root)) {
            for (Path entry : stream) {
                directories.add(entry);
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            skips.skipped(Kind.DIRECTORY.because(Reason.MISSING), root + ": no such directory");
            return null;
        } catch (IOException | RuntimeException e) {
            skips.skipped(Kind.DIRECTORY.because(Reason.UNREADABLE), root + ": " + e);
            return null;
        }
        directories.sort(null);
        if (stamp != null) {
            listings.keep(root, stamp, directories, listedAt);
        }
        return directories;
    }

    /**
     * Reads one container directory ({@code <podUID>_<container>}): its cache files in name order,
     * at most {@link #MAX_CACHE_FILES}, merged; null when nothing in it can be served (reported).
     */
    static ContainerUsage readContainer(Path directory, CacheFileReader reader, SkipReporter skips, FileSeen seen) {
        String name = directory.getFileName().toString();
        DirectoryStamp attributes;
        try {
            attributes = DirectoryStamp.of(directory);
        } catch (NoSuchFileException e) {
            skips.skipped(Kind.DIRECTORY.because(Reason.VANISHED), directory.toString());
            return null;
        } catch (IOException e) {
            skips.skipped(Kind.DIRECTORY.because(Reason.UNREADABLE), directory + ": " + e);
            return null;
        }
        if (attributes.symbolicLink()) {
            skips.skipped(Kind.DIRECTORY.because(Reason.SYMLINK), directory.toString());
            return null;
        }
        if (!attributes.directory()) {
            skips.skipped(Kind.DIRECTORY.because(Reason.NOT_DIRECTORY), directory.toString());
            return null;
        }
        // Pod UIDs never contain '_': the first one separates the UID from the container name.
        int split = name.indexOf('_');
        if (split <= 0 || split == name.length() - 1) {
            skips.skipped(Kind.DIRECTORY.because(Reason.NO_UNDERSCORE), directory.toString());
            return null;
        }
        List<Path> files = cacheFiles(directory, attributes, reader.keptListings(), skips);
        if (files == null) {
            return null;
        }
        ContainerAccounting accounting = new ContainerAccounting();
        boolean any = false;
        for (Path file : files) {
            ReadResult result = reader.read(file);
            seen.seen(file, result);
            if (!result.ok()) {
                skips.skipped(Kind.FILE.because(result.reason()), file + ": " + result.detail());
                continue;
            }
            any = true;
            CacheFileContent content = result.content();
            content.problems().forEach(problem -> report(skips, file, problem));
            accounting.add(content, problem -> report(skips, file, problem));
        }
        if (!any) {
            return null;
        }
        List<DeviceUsage> devices = accounting.devices();
        return new ContainerUsage(name.substring(0, split), name.substring(split + 1), devices);
    }

    /**
     * {@link #cacheFiles(Path, SkipReporter)}, or what it gave last time when the directory is unchanged
     * since ({@code listings}, when kept); a listing that reported a skip is not kept, so that its
     * skip is reported again at every read.
     */
    private static List<Path> cacheFiles(Path directory, DirectoryStamp stamp, KeptListings listings,
                                         SkipReporter skips) {
        if (listings == null) {
            return cacheFiles(directory, skips);
        }
        List<Path> kept = listings.entries(directory, stamp);
        if (kept != null) {
            return kept;
        }
        long listedAt = System.nanoTime();
        boolean[] reported = {false};
        List<Path> files = cacheFiles(directory, (key, item) -> {
            reported[0] = true;
            skips.skipped(key, item);
        });
        if (files != null && !reported[0]) {
            listings.keep(directory, stamp, files, listedAt);
        }
        return files;
    }

    /** The directory's cache files the source reads, sorted by name; null when there is none (reported). */
    static List<Path> cacheFiles(Path directory, SkipReporter skips) {
        List<Path> files = new ArrayList<>();
        int entries = 0;
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
            for (Path entry : stream) {
                if (++entries > MAX_ENTRIES) {
                    skips.skipped(Kind.DIRECTORY.because(Reason.TOO_MANY_ENTRIES),
                            directory + ": more than " + MAX_ENTRIES + " entries; the rest are not looked at");
                    break;
                }
                if (entry.getFileName().toString().endsWith(SUFFIX)) {
                    files.add(entry);
                }
            }
        } catch (NoSuchFileException e) {
            skips.skipped(Kind.DIRECTORY.because(Reason.VANISHED), directory.toString());
            return null;
        } catch (IOException | RuntimeException e) {
            skips.skipped(Kind.DIRECTORY.because(Reason.UNREADABLE), directory + ": " + e);
            return null;
        }
        if (files.isEmpty()) {
            // Normal until the container's first CUDA call; counted so that it can be seen.
            skips.skipped(Kind.DIRECTORY.because(entries == 0 ? Reason.EMPTY_DIRECTORY : Reason.NO_CACHE_FILE),
                    directory.toString());
            return null;
        }
        files.sort(null);
        if (files.size() > MAX_CACHE_FILES) {
            skips.skipped(Kind.DIRECTORY.because(Reason.TOO_MANY_CACHE_FILES),
                    directory + ": " + files.size() + " cache files; the first " + MAX_CACHE_FILES + " are read");
            return new ArrayList<>(files.subList(0, MAX_CACHE_FILES));
        }
        return files;
    }

    private static void report(SkipReporter skips, Path file, CacheFileContent.Problem problem) {
        skips.skipped(problem.kind().because(problem.reason()), file + ": " + problem.detail());
    }
}

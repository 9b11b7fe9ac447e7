package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.adapters.cachefile.Skips.Reason;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * A cache file read while its writer and its tenant may change it: a regular file, never followed
 * through a symbolic link (checked before, and closed against by {@code O_NOFOLLOW} on open), opened
 * with a deadline ({@link OpenDeadline}: a FIFO swapped in after the check would block the open). A
 * file opened for the read is checked after it not to have been replaced by another file or cut
 * below its layout's size; a file read through the channel kept for it is that channel's file,
 * which the {@code lstat} before the read named, and a cut while it is read ends a read early.
 * Everything that goes wrong is a rejection with its reason, never an exception.
 */
final class ChangingFile {
    /** Decodes an opened file's bytes. */
    interface Decoder {
        ReadResult decode(ByteSource source) throws IOException;
    }

    /** Opens a file for reading, never through a symbolic link: {@link OpenDeadline#open}. */
    interface Opener {
        FileChannel open(Path path) throws IOException;
    }

    private ChangingFile() {
    }

    static ReadResult read(Path path, Decoder decoder) {
        return read(path, decoder, null);
    }

    static ReadResult read(Path path, Decoder decoder, KeptChannels keptChannels) {
        return read(path, decoder, keptChannels, OpenDeadline.SHARED::open);
    }

    /**
     * Reads as {@link #read(Path, Decoder)} does; with {@code keptChannels}, through the channel
     * kept for the path when the path still names the file it was opened on (then without
     * {@code open}, {@code fstat}, a second {@code lstat} and {@code close}), keeping the channel
     * for the next read. Files are opened by {@code opener}.
     */
    static ReadResult read(Path path, Decoder decoder, KeptChannels keptChannels, Opener opener) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return ReadResult.rejected(Reason.VANISHED, "gone before it could be read");
        } catch (IOException e) {
            return ReadResult.rejected(Reason.IO_ERROR, "cannot stat: " + e);
        }
        if (attributes.isSymbolicLink()) {
            return ReadResult.rejected(Reason.SYMLINK, "a symbolic link; links are never followed");
        }
        if (!attributes.isRegularFile()) {
            return ReadResult.rejected(Reason.NOT_REGULAR_FILE, "not a regular file");
        }
        Object key = attributes.fileKey();
        FileChannel channel = keptChannels == null ? null : keptChannels.take(path, key);
        if (channel != null) {
            return readKept(path, decoder, keptChannels, key, channel, attributes.size());
        }
        ReadResult result;
        try {
            channel = opener.open(path);
            result = decoder.decode(ByteSource.of(channel));
        } catch (OpenDeadline.OpenBlockedException e) {
            return closed(channel, Reason.OPEN_BLOCKED, e.getMessage());
        } catch (NoSuchFileException e) {
            return closed(channel, Reason.VANISHED, "gone before it could be opened");
        } catch (AccessDeniedException e) {
            return closed(channel, Reason.UNREADABLE, "permission denied");
        } catch (IOException e) {
            if (refusedAsLink(e)) {
                return closed(channel, Reason.SYMLINK, "replaced by a symbolic link while opened");
            }
            return closed(channel, Reason.IO_ERROR, e.toString());
        } catch (RuntimeException e) {
            closed(channel, Reason.IO_ERROR, e.toString());
            throw e;
        }
        // The file opened may not be the one lstat named (replaced in between): lstat again, and
        // compare. A file cut below its layout after its reads is rejected here too.
        BasicFileAttributes afterwards;
        try {
            afterwards = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return closed(channel, Reason.VANISHED, "deleted while it was read");
        } catch (IOException e) {
            return closed(channel, Reason.IO_ERROR, "cannot stat after reading: " + e);
        }
        if (key != null && !Objects.equals(key, afterwards.fileKey())) {
            return closed(channel, Reason.REPLACED, "replaced by another file while it was read");
        }
        if (keptChannels != null) {
            keptChannels.keep(path, key, channel);
        } else {
            KeptChannels.closeQuietly(channel);
        }
        if (result.ok() && afterwards.size() < result.content().layout().structSize) {
            return ReadResult.rejected(Reason.TRUNCATED, "shrank to " + afterwards.size() + " bytes while it was read");
        }
        return result;
    }

    /**
     * Reads through the channel kept for {@code path}, which holds the inode that {@code lstat} has
     * just named ({@code key}, {@code size}): what is read is that file's, whatever happens to the
     * path meanwhile, so no second {@code lstat} follows (the node reads every container's file at
     * every scrape). A file cut while it is read ends a read early: rejected as truncated.
     */
    private static ReadResult readKept(Path path, Decoder decoder, KeptChannels keptChannels, Object key,
                                       FileChannel channel, long size) {
        ReadResult result;
        try {
            result = decoder.decode(ByteSource.of(channel, size));
        } catch (IOException e) {
            return closed(channel, Reason.IO_ERROR, e.toString());
        } catch (RuntimeException e) {
            closed(channel, Reason.IO_ERROR, e.toString());
            throw e;
        }
        keptChannels.keep(path, key, channel);
        return result;
    }

    /**
     * Whether an open failed on {@code O_NOFOLLOW} ({@code ELOOP}): a link swapped in after the check.
     * The JDK reports it as a {@link FileSystemException} or, from JDK 25, as a plain
     * {@link IOException}; both name the links.
     */
    private static boolean refusedAsLink(IOException e) {
        String why = e instanceof FileSystemException failed ? failed.getReason() : e.getMessage();
        return why != null && why.contains("symbolic links");
    }

    private static ReadResult closed(FileChannel channel, Reason reason, String detail) {
        if (channel != null) {
            KeptChannels.closeQuietly(channel);
        }
        return ReadResult.rejected(reason, detail);
    }
}

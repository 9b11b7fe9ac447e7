package io.hamiobserve.adapters.cachefile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Map;

/**
 * What one {@code lstat} says of a directory entry, and when it was asked: its type, its identity
 * (device and inode) and its change time ({@code ctime}). The change time moves whenever an entry
 * of the directory is added, removed or renamed, and no tenant can set it (setting the
 * modification time back moves it forward), so a directory with the same identity and change
 * time as before holds the same names as before — except for changes within the clock tick of
 * the last listing, which {@link #settled()} rules out.
 *
 * @param changed    the change time; null where the file system offers none (then nothing is kept)
 * @param askedAtMillis the wall-clock time just before the {@code lstat}
 */
record DirectoryStamp(boolean symbolicLink, boolean directory, long device, long inode, FileTime changed,
                      long askedAtMillis) {
    /**
     * A listing is kept only for a directory that had not changed for this long before it was
     * listed: the change time has the kernel's coarse clock's resolution, so a change in the same
     * tick as the listing could leave it unchanged.
     */
    static final long SETTLED_AFTER_MILLIS = 1_000;

    private static final int TYPE_MASK = 0170000;
    private static final int TYPE_LINK = 0120000;
    private static final int TYPE_DIRECTORY = 0040000;

    /** {@code lstat} of {@code path} (links not followed). */
    static DirectoryStamp of(Path path) throws IOException {
        long now = System.currentTimeMillis();
        if (!path.getFileSystem().supportedFileAttributeViews().contains("unix")) {
            BasicFileAttributes basic = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return new DirectoryStamp(basic.isSymbolicLink(), basic.isDirectory(), 0, 0, null, now);
        }
        Map<String, Object> unix = Files.readAttributes(path, "unix:mode,dev,ino,ctime", LinkOption.NOFOLLOW_LINKS);
        int type = (Integer) unix.get("mode") & TYPE_MASK;
        return new DirectoryStamp(type == TYPE_LINK, type == TYPE_DIRECTORY, (Long) unix.get("dev"),
                (Long) unix.get("ino"), (FileTime) unix.get("ctime"), now);
    }

    /** Whether the directory had settled when it was stamped: its last change a tick or more before. */
    boolean settled() {
        return changed != null && changed.toMillis() < askedAtMillis - SETTLED_AFTER_MILLIS;
    }

    /** Whether this names the same directory, unchanged, as {@code earlier}. */
    boolean sameAs(DirectoryStamp earlier) {
        return changed != null && directory && !symbolicLink && earlier.directory && !earlier.symbolicLink
                && device == earlier.device && inode == earlier.inode && changed.equals(earlier.changed);
    }
}

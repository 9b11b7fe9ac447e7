package io.hamiobserve.adapters.nvml;

import io.hamiobserve.domain.ProcessOwner;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the owning pod and container out of the text of {@code /proc/<pid>/cgroup}.
 *
 * <p>Formats met in the field, all handled by looking for a pod segment and taking the segment
 * right after it as the container:
 * <ul>
 *   <li>systemd driver (cgroup v1 or v2): {@code kubepods-burstable-pod<uid_with_underscores>.slice}
 *       (guaranteed pods: {@code kubepods-pod<uid>.slice}), then {@code cri-containerd-<id>.scope},
 *       {@code crio-<id>.scope} or {@code docker-<id>.scope};</li>
 *   <li>cgroupfs driver: {@code /kubepods/besteffort/pod<uid-with-dashes>/<id>} (guaranteed pods
 *       sit directly under {@code /kubepods}), the id optionally prefixed {@code crio-};</li>
 *   <li>paths relative to a private cgroup namespace ({@code 0::/../../kubepods.slice/...}).</li>
 * </ul>
 * Static pods have a 32-hex UID without dashes; it is kept as written. Processes outside any pod
 * ({@code /user.slice}, {@code /system.slice}, {@code /}) have no owner, and so has CRI-O's
 * {@code crio-conmon-<id>.scope}, which is the runtime's monitor and not the container.
 */
final class CgroupOwner {
    /** A pod segment: {@code pod<uid>} alone or after a {@code -} of a systemd slice name. */
    private static final Pattern POD = Pattern.compile("(?:^|-)pod([0-9a-fA-F][0-9a-fA-F_-]{30,34}[0-9a-fA-F])(?:\\.slice)?$");
    /** A container segment: an optional runtime prefix, the id, an optional {@code .scope}. */
    private static final Pattern CONTAINER = Pattern.compile("(?:(cri-containerd|crio|docker|containerd)-)?([0-9a-fA-F]{12,128})(?:\\.scope)?");

    private CgroupOwner() {
    }

    /** The owner named by any line of the file, preferring the unified (v2) hierarchy's line. */
    static Optional<ProcessOwner> parse(String cgroupFile) {
        ProcessOwner found = null;
        int start = 0;
        int length = cgroupFile.length();
        while (start < length) {
            int end = cgroupFile.indexOf('\n', start);
            if (end < 0) {
                end = length;
            }
            String line = cgroupFile.substring(start, end);
            start = end + 1;
            // hierarchy-ID:controller-list:path; the path itself may contain ':'.
            int first = line.indexOf(':');
            int second = first < 0 ? -1 : line.indexOf(':', first + 1);
            if (second < 0) {
                continue;
            }
            ProcessOwner owner = ownerOfPath(line.substring(second + 1).trim());
            if (owner != null) {
                if (line.startsWith("0::")) {
                    return Optional.of(owner);
                }
                if (found == null) {
                    found = owner;
                }
            }
        }
        return Optional.ofNullable(found);
    }

    /** The owner named by one cgroup path, or null. */
    static ProcessOwner ownerOfPath(String path) {
        String[] segments = path.split("/");
        for (int i = 0; i < segments.length - 1; i++) {
            Matcher pod = POD.matcher(segments[i]);
            if (!pod.find()) {
                continue;
            }
            String uid = pod.group(1).replace('_', '-');
            if (!plausibleUid(uid)) {
                return null;
            }
            Matcher container = CONTAINER.matcher(segments[i + 1]);
            if (!container.matches()) {
                return null;
            }
            return new ProcessOwner(uid.toLowerCase(java.util.Locale.ROOT), container.group(2).toLowerCase(java.util.Locale.ROOT));
        }
        return null;
    }

    /** A UUID with dashes (36 chars) or a static pod's 32-hex hash. */
    private static boolean plausibleUid(String uid) {
        if (uid.length() == 32) {
            return uid.indexOf('-') < 0;
        }
        return uid.length() == 36 && uid.charAt(8) == '-' && uid.charAt(13) == '-' && uid.charAt(18) == '-'
                && uid.charAt(23) == '-' && uid.chars().filter(c -> c == '-').count() == 4;
    }
}

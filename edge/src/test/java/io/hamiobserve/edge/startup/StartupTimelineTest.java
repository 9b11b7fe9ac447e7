package io.hamiobserve.edge.startup;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StartupTimelineTest {
    private static final Pattern ROW = Pattern.compile("^\\s+(-?\\d+)\\s+(-?\\d+)\\s+(-?\\d+)\\s+(.+?)\\s+\\[(.+)]$");

    @Test
    void printsEachMomentOnceInOrderAgainstTheProcessAndJvmStarts() throws InterruptedException {
        StartupTimeline.mark("test: first moment");
        Thread.sleep(30);
        Thread.ofPlatform().name("timeline-test-thread").start(() -> StartupTimeline.mark("test: second moment")).join();
        Thread.sleep(30);
        StartupTimeline.mark("test: first moment"); // reached again: the first time is kept

        String table = printed();

        assertTrue(table.startsWith("hami-observe: start-up timeline"), table);
        assertEquals(1, occurrences(table, "test: first moment"), table);
        assertEquals(1, occurrences(table, "test: second moment"), table);
        assertTrue(Pattern.compile("(?m)^\\s+0\\s+process started$").matcher(table).find(), table);
        assertTrue(Pattern.compile("(?m)^\\s+\\d+\\s+0\\s+JVM started$").matcher(table).find(), table);
        assertTrue(Pattern.compile("(?m)^  classes loaded: [1-9]\\d*$").matcher(table).find(), table);
        Matcher first = row(table, "test: first moment");
        Matcher second = row(table, "test: second moment");
        long apart = Long.parseLong(second.group(2)) - Long.parseLong(first.group(2));
        assertTrue(apart >= 25 && apart < 5_000, "the marks are " + apart + " ms apart:\n" + table);
        assertEquals("timeline-test-thread", second.group(5));
        assertTrue(table.indexOf("test: first moment") < table.indexOf("test: second moment"), table);
        // The process was started (exec'd) before its JVM was created.
        assertTrue(Long.parseLong(first.group(1)) >= Long.parseLong(first.group(2)), table);
    }

    private static String printed() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StartupTimeline.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static int occurrences(String table, String text) {
        return table.split(Pattern.quote(text), -1).length - 1;
    }

    private static Matcher row(String table, String moment) {
        for (String line : List.of(table.split("\n"))) {
            Matcher row = ROW.matcher(line);
            if (row.matches() && row.group(4).equals(moment)) {
                return row;
            }
        }
        throw new AssertionError("no row for " + moment + " in\n" + table);
    }
}

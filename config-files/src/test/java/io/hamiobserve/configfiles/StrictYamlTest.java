package io.hamiobserve.configfiles;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What every operator's file gets refused for, and how the refusal reads. */
class StrictYamlTest {
    @TempDir
    Path dir;

    private static String refusal(String yaml, StrictYaml.ParserMessage parserMessage) {
        return assertThrows(IllegalArgumentException.class, () -> StrictYaml.root(
                yaml.getBytes(StandardCharsets.UTF_8), "f.yml", parserMessage)).getMessage();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a duplicate key        | 'a: 1\\na: 2\\n'                        | f.yml: not valid YAML at line 2
            an alias               | 'a: &x s3cret\\nb: *x\\n'                | f.yml: YAML aliases are not supported (at line 2)
            nesting past 8 levels  | 'a: {b: {c: {d: {e: {f: {g: {h: {i: s3cret}}}}}}}}' | f.yml: not valid YAML
            not YAML at all        | 'a: [unclosed s3cret\\n'                 | f.yml: not valid YAML at line 1
            """)
    void isRefusedWithTheFileAndLineAndNoValue(String what, String yaml, String message) {
        String withheld = refusal(yaml.replace("\\n", "\n"), StrictYaml.ParserMessage.WITHHELD);

        assertTrue(withheld.startsWith(message), what + ": " + withheld);
        assertTrue(!withheld.contains("s3cret"), "a value never reaches a message: " + withheld);
    }

    @Test
    void theParsersWordsAreQuotedOnOneLineOnlyWhenAsked() {
        String quoted = refusal("a: 1\na: 2\n", StrictYaml.ParserMessage.QUOTED);

        assertTrue(quoted.startsWith("f.yml: not valid YAML at line 2: ") && quoted.contains("Duplicate"), quoted);
        assertTrue(quoted.lines().count() == 1, quoted);
    }

    @Test
    void anEmptyDocumentHasNoRootAndAnUnknownKeyIsRefusedNamingTheSupportedOnes() {
        assertTrue(StrictYaml.root(new byte[0], "f.yml", StrictYaml.ParserMessage.QUOTED).isEmpty());
        assertTrue(StrictYaml.root("# nothing yet\n".getBytes(StandardCharsets.UTF_8), "f.yml", StrictYaml.ParserMessage.QUOTED)
                .isEmpty());

        var root = StrictYaml.root("tls: {}\n\"bogus\\a\": 1\n".getBytes(StandardCharsets.UTF_8), "f.yml",
                StrictYaml.ParserMessage.QUOTED).orElseThrow();
        String refused = assertThrows(IllegalArgumentException.class,
                () -> StrictYaml.mapping(root, "the document", "section", Set.of("tls", "users"), "f.yml")).getMessage();

        assertEquals("f.yml: unsupported section bogus? (supported: tls, users)", refused);
    }

    @Test
    void onlyASmallRegularFileIsRead() throws Exception {
        Path small = Files.writeString(dir.resolve("small.yml"), "a: 1\n");
        Path large = Files.write(dir.resolve("large.yml"), new byte[65]);

        assertEquals(5, OperatorFile.read(small, 64, "config").length);
        assertEquals("config " + large + " is larger than 64 bytes",
                assertThrows(IllegalArgumentException.class, () -> OperatorFile.read(large, 64, "config")).getMessage());
        assertEquals("config " + dir + " is not a regular file",
                assertThrows(IllegalArgumentException.class, () -> OperatorFile.read(dir, 64, "config")).getMessage());
        assertEquals("config /dev/zero is not a regular file", assertThrows(IllegalArgumentException.class,
                () -> OperatorFile.read(Path.of("/dev/zero"), 64, "config")).getMessage());
    }
}

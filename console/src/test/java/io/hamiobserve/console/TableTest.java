package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.Figure;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Pattern;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TableTest {
    private record Row(String name, Figure memory) {
    }

    private static final Table<Row> TABLE = new Table<>("t", "Rows", List.of(
            Table.column("name", "Name", (Row row) -> Value.text(row.name())),
            Table.column("memory", "Memory", (Row row) -> Value.of(row.memory(), Format.Kind.BYTES))),
            "memory", true);

    private static final List<Row> ROWS = List.of(new Row("a", Figure.of(3)), new Row("b",
            Figure.missing(Absence.NO_USAGE_YET)), new Row("c", Figure.of(10)), new Row("D", Figure.of(0)));

    private static List<String> names(Map<String, String> parameters) {
        return TABLE.select(ROWS, Table.View.of(parameters, "t", "memory", true)).stream().map(Row::name).toList();
    }

    @Test
    void aMissingFigureSortsLastInEitherDirection() {
        assertEquals(List.of("c", "a", "D", "b"), names(Map.of()));
        assertEquals(List.of("D", "a", "c", "b"), names(Map.of("t.dir", "asc")));
        assertEquals(List.of("a", "b", "c", "D"), names(Map.of("t.sort", "name", "t.dir", "asc")));
    }

    @Test
    void aFilterKeepsRowsWithAnyCellContainingItIgnoringCase() {
        assertEquals(List.of("c"), names(Map.of("t.q", "C")));
        assertEquals(List.of("b"), names(Map.of("t.q", "NO DATA")));
        assertEquals(List.of(), names(Map.of("t.q", "zzz")));
    }

    @Test
    void hostileParametersFallBackToDefaults() {
        assertEquals(List.of("c", "a", "D", "b"), names(Map.of("t.sort", "<script>", "t.page", "-5", "t.size", "1e9")));
        Table.View view = Table.View.of(Map.of("t.page", "999999999999", "t.size", "100000"), "t", "memory", true);
        assertEquals(Table.MAX_PAGE_SIZE, view.size());
        assertEquals(1, view.page());
    }

    @Test
    void exportsCarryRawValuesAndSayWhyAFigureIsMissing() {
        String csv = TABLE.csv(ROWS, Map.of("t.sort", "name", "t.dir", "asc"));
        assertEquals(List.of("name,memory", "a,3", "b,", "c,10", "D,0"), csv.lines().toList());
        String json = TABLE.json(ROWS, Map.of("t.q", "b"));
        assertTrue(json.contains("\"memory\" : null"), json);
        assertTrue(json.contains("\"memory_missing\" : \"no usage yet"), json);
        String text = TABLE.text(ROWS, Map.of());
        assertEquals("Name   Memory", text.lines().findFirst().orElseThrow());
        assertTrue(text.contains("c        10 B"), text);
    }

    @Test
    void aCellThatASpreadsheetWouldReadAsAFormulaIsExportedAsText() throws Exception {
        List<Row> hostile = List.of(new Row("=HYPERLINK(\"http://evil\",\"x\")", Figure.of(-3)),
                new Row("+cmd|' /C calc'!A0", Figure.of(1)), new Row("-2+3", Figure.of(2)), new Row("@SUM(1)", Figure.of(3)),
                new Row("\t=1", Figure.of(4)), new Row("\r=1", Figure.of(5)), new Row("plain = text", Figure.of(6)));
        String csv = TABLE.csv(hostile, Map.of("t.sort", "memory", "t.dir", "asc"));
        for (String cell : List.of("'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")", "'+cmd|' /C calc'!A0", "'-2+3",
                "'@SUM(1)", "'\t=1", "'\r=1", "plain = text")) {
            assertTrue(csv.contains(cell), cell + " <- " + csv);
        }
        // No record starts a cell with a formula character; numbers stay numbers, negative ones included.
        assertFalse(Pattern.compile("(^|\n|,)\"?[=+@\t]").matcher(csv).find(), csv);
        assertTrue(csv.contains(",-3\r\n"), csv);
        String text = TABLE.text(List.of(new Row("evil\u001b]0;owned\u0007\u202Etxt", Figure.of(1))), Map.of());
        assertFalse(text.chars().anyMatch(c -> c == 0x1b || c == 0x07 || c == 0x202E), text);
        assertTrue(text.contains("evil?]0;owned??txt"), text);
    }
}

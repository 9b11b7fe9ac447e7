package io.hamiobserve.console;

import gg.jte.output.StringOutput;
import gg.jte.html.OwaspHtmlTemplateOutput;
import io.hamiobserve.console.templates.JtereportGenerated;

import java.util.List;
import java.util.Map;

/**
 * A table as a standalone HTML page for {@code --format html}: the console's table template, every
 * value escaped by jte's OWASP output as on the console's pages; every row on one page.
 */
final class ReportPage {
    private ReportPage() {
    }

    static <R> String render(String title, Table<R> table, List<R> rows) {
        StringOutput output = new StringOutput(16 * 1024);
        Map<String, String> all = Map.of(table.id() + ".size", Integer.toString(Table.MAX_PAGE_SIZE));
        JtereportGenerated.render(new OwaspHtmlTemplateOutput(output), null, title,
                table.view(rows, all, new Links(""), "", Map.of(), "", "No workloads."));
        // Escaped for HTML, and printable where a terminal shows it: a label value's control
        // characters (ESC, BEL, bidirectional overrides) become "?" as in the text table.
        return output.toString().replaceAll("[\\p{Cc}\u202A-\u202E\u2066-\u2069&&[^\n]]", "?");
    }
}

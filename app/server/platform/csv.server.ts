// CSV downloads, streamed: the response is a ReadableStream that reads the database a page at a
// time (keyset pagination) as the client reads, so an export of any size never sits in memory
// whole. Cells are escaped for CSV and defused for spreadsheets.

/**
 * One CSV cell: text that a spreadsheet would run as a formula (= + - @, or a leading tab or
 * carriage return) gets an apostrophe in front; a cell with a quote, comma or line break is quoted.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvLine = (cells: (string | number | null)[]) => `${cells.map(csvCell).join(",")}\r\n`;
/** A time for a CSV cell: ISO 8601 in UTC, or empty. */
export const isoTime = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * A CSV stream: the header, then one page after another from `nextPage` (given the last page's
 * position), each turned into lines and handed on before the next page is read.
 */
export function csvStream<T, P>(
  header: string[],
  nextPage: (after: P | null) => Promise<{ rows: T[]; next: P | null }>,
  line: (row: T) => (string | number | null)[],
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: P | null = null;
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(encoder.encode(csvLine(header)));
          return;
        }
        const page = await nextPage(after);
        if (page.rows.length > 0) controller.enqueue(encoder.encode(page.rows.map((row) => csvLine(line(row))).join("")));
        if (page.next === null) controller.close();
        else after = page.next;
      },
    },
    { highWaterMark: 0 },
  );
}

/** "orders-2025-06-01.csv": what the download is called. */
export const exportFilename = (what: string, now = Date.now()) => `${what}-${new Date(now).toISOString().slice(0, 10)}.csv`;

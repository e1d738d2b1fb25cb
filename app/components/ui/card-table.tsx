// A list drawn once: a table from 640 px up and a card per row below it, where each cell shows its
// column's name beside its value. ResponsiveTable draws the rows twice (a list of cards and a
// table, one of them hidden), which doubles what the server renders for long pages; this one is a
// single table that CSS lays out as cards on a phone, so a 50-row page writes 50 rows. Each value
// must be one element or plain text: on a phone a cell is a two-column grid row (name, value).
import { type Column, ColumnHeads } from "./responsive-table";

// Below 640 px: each row a bordered card, a two-column grid (names, values); each cell a row of it,
// its name drawn from data-label. From 640 px up: a padded table whose cells stay on one line,
// except a long-text column's (data-wrap), which wraps.
const CARDS = [
  "max-sm:[&>tbody>tr]:grid max-sm:[&>tbody>tr]:grid-cols-[auto_minmax(0,1fr)] max-sm:[&>tbody>tr]:items-center",
  "max-sm:[&>tbody>tr]:gap-x-4 max-sm:[&>tbody>tr]:gap-y-1.5 max-sm:[&>tbody>tr]:rounded-lg max-sm:[&>tbody>tr]:border",
  "max-sm:[&>tbody>tr]:border-line max-sm:[&>tbody>tr]:bg-panel-2 max-sm:[&>tbody>tr]:p-3",
  "max-sm:[&>tbody>tr>td]:col-span-2 max-sm:[&>tbody>tr>td]:grid max-sm:[&>tbody>tr>td]:grid-cols-subgrid",
  "max-sm:[&>tbody>tr>td]:items-center max-sm:[&>tbody>tr>td]:justify-items-start max-sm:[&>tbody>tr>td]:break-words",
  "max-sm:[&>tbody>tr>td]:before:text-muted max-sm:[&>tbody>tr>td]:before:content-[attr(data-label)]",
  "sm:[&>tbody>tr>td]:py-2 sm:[&>tbody>tr>td]:pr-4 sm:[&>tbody>tr>td:not([data-wrap])]:whitespace-nowrap",
].join(" ");

export function CardTable<T>({
  rows,
  columns,
  rowKey,
  label,
}: {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  label: string;
}) {
  return (
    <div className="mt-4 sm:overflow-x-auto">
      {/* The card layout and the one-line cells are written once, on the table, so that rows and cells carry no classes of their own. */}
      <table className={`w-full text-left text-sm max-sm:block ${CARDS}`} aria-label={label}>
        <ColumnHeads columns={columns} className="max-sm:hidden" />
        <tbody className="max-sm:block max-sm:space-y-3 sm:divide-y sm:divide-line">
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map(({ label: name, value, wrap }) => (
                <td
                  key={name}
                  data-label={name}
                  data-wrap={wrap ? "" : undefined}
                  className={wrap ? "sm:min-w-48 sm:align-top sm:break-words" : undefined}
                >
                  {value(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// A list drawn once: a table from 640 px up and a card per row below it, where each cell shows its
// column's name beside its value. ResponsiveTable draws the rows twice (a list of cards and a
// table, one of them hidden), which doubles what the server renders for long pages; this one is a
// single table that CSS lays out as cards on a phone, so a 50-row page writes 50 rows. Each value
// must be one element or plain text: on a phone a cell is a two-column grid row (name, value).
import type { Column } from "./responsive-table";

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
      <table className="w-full text-left text-sm max-sm:block" aria-label={label}>
        <thead className="text-muted max-sm:hidden">
          <tr>
            {columns.map(({ label: name }) => (
              <th key={name} scope="col" className="pr-4 pb-2 font-medium">
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="max-sm:block max-sm:space-y-3 sm:divide-y sm:divide-line">
          {rows.map((row) => (
            <tr
              key={rowKey(row)}
              className="max-sm:grid max-sm:grid-cols-[auto_minmax(0,1fr)] max-sm:items-center max-sm:gap-x-4 max-sm:gap-y-1.5 max-sm:rounded-lg max-sm:border max-sm:border-line max-sm:bg-panel-2 max-sm:p-3"
            >
              {columns.map(({ label: name, value, wrap }) => (
                <td
                  key={name}
                  data-label={name}
                  className={`max-sm:col-span-2 max-sm:grid max-sm:grid-cols-subgrid max-sm:items-center max-sm:break-words max-sm:before:text-muted max-sm:before:content-[attr(data-label)] sm:py-2 sm:pr-4 ${wrap ? "sm:min-w-48 sm:align-top sm:break-words" : "sm:whitespace-nowrap"}`}
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

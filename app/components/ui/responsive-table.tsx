// A list that is a table from 640 px up and a card per row below it (labelled fields), so wide
// rows stay readable on a phone. Both views read the same column definitions. A table whose rows
// carry forms (`wide`) stays cards until 1536 px: beside the back office's sidebar on a laptop it
// would otherwise push its last column out of sight.
import { Fragment, type ReactNode } from "react";

export interface Column<T> {
  label: string;
  value: (row: T) => ReactNode;
  /** Table cells stay on one line unless the column's values are long text (details, subjects). */
  wrap?: boolean;
}

export function ResponsiveTable<T>({
  rows,
  columns,
  rowKey,
  label,
  wide = false,
}: {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  label: string;
  wide?: boolean;
}) {
  return (
    <>
      <ul aria-label={label} className={`mt-4 space-y-3 ${wide ? "2xl:hidden" : "sm:hidden"}`}>
        {rows.map((row) => (
          <li key={rowKey(row)} className="rounded-lg border border-line bg-panel-2 p-3">
            <dl className="grid grid-cols-[auto_minmax(0,1fr)] items-center gap-x-4 gap-y-1.5 text-sm">
              {columns.map(({ label: name, value }) => (
                <Fragment key={name}>
                  <dt className="text-muted">{name}</dt>
                  <dd className="break-words">{value(row)}</dd>
                </Fragment>
              ))}
            </dl>
          </li>
        ))}
      </ul>
      <div className={`mt-4 hidden overflow-x-auto ${wide ? "2xl:block" : "sm:block"}`}>
        <table className="w-full text-left text-sm" aria-label={label}>
          <ColumnHeads columns={columns} />
          <tbody className="divide-y divide-line">
            {rows.map((row) => (
              <tr key={rowKey(row)}>
                {columns.map(({ label: name, value, wrap }) => (
                  <td key={name} className={`py-2 pr-4 ${wrap ? "min-w-48 align-top break-words" : "whitespace-nowrap"}`}>
                    {value(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** A table's header row: one column header per column, by its name. */
export function ColumnHeads<T>({ columns, className = "" }: { columns: Column<T>[]; className?: string }) {
  return (
    <thead className={className ? `text-muted ${className}` : "text-muted"}>
      <tr>
        {columns.map(({ label: name }) => (
          <th key={name} scope="col" className="pr-4 pb-2 font-medium">
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}

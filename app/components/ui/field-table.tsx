// A list of records that reads well at every width: below 640 px each record is a card of labelled
// fields; from there up, a table with one column per field. Both read the same field list.
import { Fragment, type ReactNode } from "react";

export interface TableField<T> {
  label: string;
  value: (row: T) => ReactNode;
  /** Table cells stay on one line unless the field's values are long (details, addresses). */
  wrap?: boolean;
}

export function FieldTable<T>({ label, rows, fields, rowKey }: { label: string; rows: T[]; fields: TableField<T>[]; rowKey: (row: T) => string | number }) {
  return (
    <>
      <ul aria-label={label} className="mt-4 space-y-3 sm:hidden">
        {rows.map((row) => (
          <li key={rowKey(row)} className="rounded-lg border border-line bg-panel-2 p-3">
            <dl className="grid grid-cols-[auto_minmax(0,1fr)] items-center gap-x-4 gap-y-1.5 text-sm">
              {fields.map((field) => (
                <Fragment key={field.label}>
                  <dt className="text-muted">{field.label}</dt>
                  <dd className="break-words">{field.value(row)}</dd>
                </Fragment>
              ))}
            </dl>
          </li>
        ))}
      </ul>
      <div className="mt-4 hidden overflow-x-auto sm:block">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">{label}</caption>
          <thead className="text-muted">
            <tr>
              {fields.map((field) => (
                <th key={field.label} scope="col" className="pr-4 pb-2 font-medium">
                  {field.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-line">
            {rows.map((row) => (
              <tr key={rowKey(row)}>
                {fields.map((field) => (
                  <td key={field.label} className={`py-2 pr-4 align-top ${field.wrap ? "min-w-48 break-words" : "whitespace-nowrap"}`}>
                    {field.value(row)}
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

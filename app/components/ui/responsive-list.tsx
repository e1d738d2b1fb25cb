// A list of records with labelled fields: below 640 px each record is a card, from there up a
// table. Both read the same field list, so they never disagree.
import { Fragment, type ReactNode } from "react";

export interface ListField<T> {
  label: string;
  value: (item: T) => ReactNode;
}

export function ResponsiveList<T>({ items, fields, keyOf, label }: { items: T[]; fields: ListField<T>[]; keyOf: (item: T) => string | number; label: string }) {
  return (
    <>
      <ul aria-label={label} className="mt-4 space-y-3 sm:hidden">
        {items.map((item) => (
          <li key={keyOf(item)} className="rounded-lg border border-line bg-panel-2 p-3">
            <dl className="grid grid-cols-[auto_minmax(0,1fr)] items-center gap-x-4 gap-y-1.5 text-sm">
              {fields.map(({ label, value }) => (
                <Fragment key={label}>
                  <dt className="text-muted">{label}</dt>
                  <dd>{value(item)}</dd>
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
              {fields.map(({ label }) => (
                <th key={label} scope="col" className="pr-4 pb-2 font-medium">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-line">
            {items.map((item) => (
              <tr key={keyOf(item)}>
                {fields.map(({ label, value }) => (
                  <td key={label} className="py-2 pr-4 whitespace-nowrap">
                    {value(item)}
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

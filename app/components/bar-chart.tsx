// Horizontal bar charts drawn as SVG on the server (decision 039): no chart library and no script.
// A row's bar may be stacked from several series; a row may carry a marker (a stock threshold).
// The drawing scales with its viewBox, sized so that its labels stay legible from 360 px phones
// up to a wide screen, and is one image to assistive technology (role="img" with a title and a
// description), with every number in a table under "Show the numbers".
import { useId } from "react";

export interface ChartSeries {
  key: string;
  label: string;
  color: string;
}

export interface ChartRow {
  key: string;
  label: string;
  /** One value per series, in the series' order. */
  values: number[];
  /** A reference value drawn as a line across the bar (a low-stock threshold). */
  marker?: number | null;
  /** Draws the row's bar in the warning colour. */
  warn?: boolean;
}

const WIDTH = 320;
const FONT = 12;
const VALUE_SPACE = 70;
const BAR = 11;
const WARN = "#f87171";
const MARKER = "#fde047";

/** Label beside the bar (short labels: days) or above it (long ones: product titles). */
type Layout = "beside" | "above";

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function BarChart({
  title,
  description,
  series,
  rows,
  format,
  layout = "above",
  markerLabel,
  labelHeader,
}: {
  title: string;
  description: string;
  series: ChartSeries[];
  rows: ChartRow[];
  format: (value: number) => string;
  layout?: Layout;
  markerLabel?: string;
  labelHeader: string;
}) {
  const id = useId();
  const labelSpace = layout === "beside" ? 46 : 0;
  const rowHeight = layout === "beside" ? 17 : 33;
  const barTop = layout === "beside" ? 3 : 18;
  const trackWidth = WIDTH - labelSpace - VALUE_SPACE;
  const totals = rows.map((row) => row.values.reduce((sum, v) => sum + v, 0));
  const largest = Math.max(1, ...totals, ...rows.map((row) => row.marker ?? 0));
  const scale = (value: number) => (value / largest) * trackWidth;
  const height = rows.length * rowHeight + 4;
  const showTotal = series.length > 1;
  return (
    <figure className="space-y-3">
      {series.length > 1 || markerLabel ? (
        <ul aria-hidden className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted">
          {series.map((s) => (
            <li key={s.key} className="flex items-center gap-1.5">
              <span className="inline-block size-3 rounded-sm" style={{ backgroundColor: s.color }} />
              {s.label}
            </li>
          ))}
          {markerLabel ? (
            <li className="flex items-center gap-1.5">
              <span className="inline-block h-3 w-0.5" style={{ backgroundColor: MARKER }} />
              {markerLabel}
            </li>
          ) : null}
        </ul>
      ) : null}
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        className="block h-auto w-full max-w-lg"
        fontSize={FONT}
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        {rows.map((row, index) => {
          const y = index * rowHeight + 2;
          let x = labelSpace;
          return (
            <g key={row.key}>
              <text x={0} y={layout === "beside" ? y + barTop + BAR - 1.5 : y + FONT - 1} fill="#a1a1aa">
                {truncate(row.label, layout === "beside" ? 8 : 46)}
              </text>
              <rect x={labelSpace} y={y + barTop} width={trackWidth} height={BAR} rx={2} fill="#27272a" />
              {row.values.map((value, i) => {
                const width = scale(value);
                const segment = (
                  <rect key={series[i]!.key} x={x} y={y + barTop} width={width} height={BAR} fill={row.warn ? WARN : series[i]!.color} />
                );
                x += width;
                return segment;
              })}
              {row.marker != null ? (
                <line
                  x1={labelSpace + scale(row.marker)}
                  x2={labelSpace + scale(row.marker)}
                  y1={y + barTop - 2}
                  y2={y + barTop + BAR + 2}
                  stroke={MARKER}
                  strokeWidth={2}
                />
              ) : null}
              <text x={labelSpace + trackWidth + 4} y={y + barTop + BAR - 1.5} fill="#e4e4e7">
                {format(totals[index]!)}
              </text>
            </g>
          );
        })}
      </svg>
      <details className="text-sm">
        <summary className="cursor-pointer text-muted hover:text-white">Show the numbers</summary>
        <div className="mt-2 overflow-x-auto">
          <table className="w-full text-left">
            <caption className="sr-only">{title}</caption>
            <thead className="text-muted">
              <tr>
                <th scope="col" className="pr-4 pb-1 font-medium">
                  {labelHeader}
                </th>
                {series.map((s) => (
                  <th key={s.key} scope="col" className="pr-4 pb-1 text-right font-medium">
                    {s.label}
                  </th>
                ))}
                {markerLabel ? (
                  <th scope="col" className="pr-4 pb-1 text-right font-medium">
                    {markerLabel}
                  </th>
                ) : null}
                {showTotal ? (
                  <th scope="col" className="pb-1 text-right font-medium">
                    Total
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody className="divide-y divide-line">
              {rows.map((row, index) => (
                <tr key={row.key}>
                  <th scope="row" className="py-1 pr-4 font-normal">
                    {row.label}
                  </th>
                  {row.values.map((value, i) => (
                    <td key={series[i]!.key} className="py-1 pr-4 text-right tabular-nums">
                      {format(value)}
                    </td>
                  ))}
                  {markerLabel ? (
                    <td className="py-1 pr-4 text-right tabular-nums">{row.marker == null ? "—" : format(row.marker)}</td>
                  ) : null}
                  {showTotal ? <td className="py-1 text-right tabular-nums">{format(totals[index]!)}</td> : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

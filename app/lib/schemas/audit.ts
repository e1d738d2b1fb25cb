// The audit log page's filters, as its GET form sends them. Anything unreadable is shown next to
// its field (and answered 400), never turned into a server error.
import * as v from "valibot";

const text = () => v.optional(v.string(), "");
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** "YYYY-MM-DD" as the start of that UTC day (epoch ms), when it is a real date. */
export function utcDayStart(day: string): number | null {
  if (!DAY.test(day)) return null;
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day ? null : ms;
}

const dayField = (message: string) =>
  v.pipe(
    text(),
    v.trim(),
    v.check((day) => day === "" || utcDayStart(day) !== null, message),
  );

export const auditFiltersSchema = v.pipe(
  v.object({
    // A username, an e-mail address, an account id, or "system" for the shop's own jobs.
    actor: v.pipe(text(), v.trim(), v.maxLength(254, "Enter a username or e-mail address")),
    // An action ("licence.ban") or a group of them ("licence.").
    kind: v.pipe(text(), v.trim(), v.regex(/^(?:[a-z0-9-]{1,40}(?:\.(?:[a-z0-9-]{1,40})?)?)?$/, "Choose a kind from the list")),
    from: dayField("Enter the first day as a date"),
    to: dayField("Enter the last day as a date"),
    // Where the previous page ended: "<created_at>.<id>" of its last entry.
    cursor: v.pipe(text(), v.regex(/^(?:\d{1,15}\.\d{1,15})?$/, "That page link is broken; start again from the newest entries")),
  }),
  v.forward(
    v.check(({ from, to }) => from === "" || to === "" || from <= to, "The last day cannot be before the first"),
    ["to"],
  ),
);

export type AuditFilters = v.InferOutput<typeof auditFiltersSchema>;

// A block's optional expiry, as every form that blocks asks for it: a date, the block standing
// until the end of that day in UTC (decision 093).
import { Field } from "./ui/field";

export function BlockExpiryField({ error }: { error?: string }) {
  return <Field label="Expires (optional)" name="expires" type="date" hint="Blocked until the end of that day (UTC)" error={error} />;
}

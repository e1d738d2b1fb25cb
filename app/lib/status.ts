// The service status badge, derived from the most recent status update.
export type ServiceState = "working" | "updating" | "down";

const RECENT_MS = 24 * 60 * 60 * 1000;

/** A maintenance or incident post from the last day says the service is not simply working. */
export function serviceState(latest: { type: string; createdAt: number } | undefined, now: number): ServiceState {
  if (!latest || now - latest.createdAt > RECENT_MS) return "working";
  if (latest.type === "maintenance") return "updating";
  if (latest.type === "incident") return "down";
  return "working";
}

/** Badge text: working and updating by name, anything else "Not Working". */
export function serviceBadge(state: string): { label: string; tone: "green" | "yellow" | "red" } {
  if (state === "working") return { label: "Working", tone: "green" };
  if (state === "updating") return { label: "Updating", tone: "yellow" };
  return { label: "Not Working", tone: "red" };
}

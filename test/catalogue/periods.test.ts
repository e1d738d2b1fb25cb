import { describe, expect, it } from "vitest";
import { periodStart } from "~/lib/periods";

describe("sold-code periods", () => {
  // Wednesday 2026-11-18 15:30 UTC
  const now = Date.UTC(2026, 10, 18, 15, 30);

  it("starts today at midnight, the week on Sunday and the month on the 1st (UTC)", () => {
    expect(periodStart("all", now)).toBeUndefined();
    expect(periodStart("today", now)).toBe(Date.UTC(2026, 10, 18));
    expect(periodStart("week", now)).toBe(Date.UTC(2026, 10, 15));
    expect(periodStart("month", now)).toBe(Date.UTC(2026, 10, 1));
  });

  it("uses the admin's own midnight", () => {
    // UTC+9 (getTimezoneOffset = -540): it is already Thursday 00:30 there.
    expect(periodStart("today", now, -540)).toBe(Date.UTC(2026, 10, 18, 15, 0));
    // UTC-8 (offset 480): still Wednesday 07:30 there; midnight was 08:00 UTC.
    expect(periodStart("today", now, 480)).toBe(Date.UTC(2026, 10, 18, 8, 0));
  });

  it("handles a week that began in the previous month", () => {
    const tuesday = Date.UTC(2026, 11, 1, 12); // Tuesday 1 December
    expect(periodStart("week", tuesday)).toBe(Date.UTC(2026, 10, 29));
    expect(periodStart("month", tuesday)).toBe(Date.UTC(2026, 11, 1));
  });
});

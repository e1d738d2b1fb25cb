// A clock a browser test can move forward, for what takes days to happen (an affiliate's
// commission is held for 30 days): a cookie holding how many days ahead this browser lives. Only
// in development and tests; a production build reads no such cookie and always uses the real time.
import { DAY_MS } from "~/lib/time";
import { readCookie, serializeCookie } from "./cookies.server";

export const TEST_CLOCK_ENABLED = import.meta.env.MODE !== "production";
const TEST_CLOCK_COOKIE = "__Host-test-clock";
export const MAX_TEST_CLOCK_DAYS = 3650;

/** How many days ahead this browser's clock is (0 in production). */
export function testClockDays(request: Request): number {
  if (!TEST_CLOCK_ENABLED) return 0;
  const days = Number(readCookie(request, TEST_CLOCK_COOKIE) ?? 0);
  return Number.isInteger(days) && days >= 0 && days <= MAX_TEST_CLOCK_DAYS ? days : 0;
}

/** Now, for this request: the real time, moved ahead by the test clock where there is one. */
export const clockNow = (request: Request) => Date.now() + testClockDays(request) * DAY_MS;

export const testClockCookie = (days: number) => serializeCookie(TEST_CLOCK_COOKIE, String(days), 24 * 60 * 60);

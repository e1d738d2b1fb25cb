// The paths the Worker's entry dispatches on before it loads the code that answers them: kept apart
// from that code, so matching a path evaluates nothing but this module (decision 107).
export const API_PREFIX = "/api/v1/";
export const SELLER_PREFIX = "/api/v1/seller/";
export const HEALTH_PATH = "/api/health";
export const CHAT_PATH = "/chat/ws";
export const REMINDER_UNSUBSCRIBE_PATH = "/reminders/unsubscribe";
export const DEV_RECEIVER_PATH = "/dev/webhooks";

/** The signed-in area: the member's hub and the back office, rendered for one person each. */
export const DASHBOARD_PATH = "/dashboard";
// Case-insensitive as the router's own patterns are (ASCII letters only, without the `u` flag).
const SIGNED_IN_AREA = new RegExp(`^${DASHBOARD_PATH}(?:$|[/.])`, "i");

/**
 * Whether a path is in the signed-in area, its pages' data requests (`/dashboard.data`) included.
 * Its answers are never public, so the page cache is not consulted for them (decision 126). Read as
 * the router matches it: escapes decoded (unless malformed, as the router leaves them), any case.
 */
export function inSignedInArea(pathname: string): boolean {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // Malformed escapes: the router matches the path as written, and so does this.
  }
  return SIGNED_IN_AREA.test(path);
}

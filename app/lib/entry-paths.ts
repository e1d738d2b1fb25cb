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
/**
 * Whether a path is in the signed-in area, its pages' data requests (`/dashboard.data`) included.
 * Its answers are never public, so the page cache is not consulted for them (decision 126).
 */
export const inSignedInArea = (pathname: string) =>
  pathname.startsWith(DASHBOARD_PATH) && /^(?:$|[/.])/.test(pathname.slice(DASHBOARD_PATH.length));

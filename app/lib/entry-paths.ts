// The paths the Worker's entry dispatches on before it loads the code that answers them: kept apart
// from that code, so matching a path evaluates nothing but this module (decision 107).
export const API_PREFIX = "/api/v1/";
export const SELLER_PREFIX = "/api/v1/seller/";
export const HEALTH_PATH = "/api/health";
export const CHAT_PATH = "/chat/ws";
export const REMINDER_UNSUBSCRIBE_PATH = "/reminders/unsubscribe";
export const DEV_RECEIVER_PATH = "/dev/webhooks";

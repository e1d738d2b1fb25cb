// Flash toasts that survive a redirect: the action stores one in a short-lived cookie, with the
// path of the page it is for, and the private viewer endpoint hands it to that page once, then
// clears it. A viewer request from another page (one still loading as the browser leaves it,
// another tab) leaves the toast where it is.
import type { Toast } from "~/lib/toast";
import { clearCookie, readCookie, serializeCookie } from "./cookies.server";
import { fromBase64, toBase64 } from "../server/platform/tokens.server";

const TOAST_COOKIE = "__Host-toast";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function toastCookie(toast: Toast, page: string): string {
  return serializeCookie(TOAST_COOKIE, encodeURIComponent(toBase64(encoder.encode(JSON.stringify({ ...toast, page })))), 60);
}

/**
 * The toast waiting for `page` (a path), and the header that clears it once handed out. With no
 * page named (a client that is not one of our pages), any waiting toast is handed out.
 */
export function readToast(request: Request, page: string | null): { toast: Toast | null; clear: string | null } {
  const raw = readCookie(request, TOAST_COOKIE);
  if (!raw) return { toast: null, clear: null };
  try {
    const value = JSON.parse(decoder.decode(fromBase64(decodeURIComponent(raw)))) as Partial<Toast> & { page?: unknown };
    if (page !== null && typeof value.page === "string" && value.page !== page) return { toast: null, clear: null };
    const toast =
      typeof value.title === "string"
        ? {
            title: value.title,
            description: typeof value.description === "string" ? value.description : undefined,
            variant: value.variant === "destructive" ? ("destructive" as const) : ("default" as const),
          }
        : null;
    return { toast, clear: clearCookie(TOAST_COOKIE) };
  } catch {
    return { toast: null, clear: clearCookie(TOAST_COOKIE) };
  }
}

/** A redirect that shows `toast` on the page it lands on. */
export function redirectWithToast(to: string, toast: Toast, init: { headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Location", to);
  headers.append("Set-Cookie", toastCookie(toast, new URL(to, "http://localhost").pathname));
  return new Response(null, { status: 302, headers });
}

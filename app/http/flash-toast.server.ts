// Flash toasts that survive a redirect: the action stores one in a short-lived cookie and the
// private viewer endpoint hands it to the browser once, then clears it.
import type { Toast } from "~/lib/toast";
import { clearCookie, readCookie, serializeCookie } from "../server/platform/cookies.server";
import { fromBase64, toBase64 } from "../server/platform/tokens.server";

const TOAST_COOKIE = "__Host-toast";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function toastCookie(toast: Toast): string {
  return serializeCookie(TOAST_COOKIE, encodeURIComponent(toBase64(encoder.encode(JSON.stringify(toast)))), 60);
}

export function readToast(request: Request): { toast: Toast | null; clear: string | null } {
  const raw = readCookie(request, TOAST_COOKIE);
  if (!raw) return { toast: null, clear: null };
  try {
    const value = JSON.parse(decoder.decode(fromBase64(decodeURIComponent(raw)))) as Partial<Toast>;
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
  headers.append("Set-Cookie", toastCookie(toast));
  return new Response(null, { status: 302, headers });
}

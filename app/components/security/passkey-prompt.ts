// Running a passkey prompt from a page: ask our server for the ceremony's options, hand them to the
// browser's WebAuthn prompt and return its answer as the JSON text the server's form expects. The
// WebAuthn library is loaded only here, on the click, so pages that merely show the button (the
// login page) do not carry it. A prompt the person closed is "cancelled", not an error.
import { useSyncExternalStore } from "react";
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import type { Toast } from "~/lib/toast";

/**
 * The prompt's answer; or it was cancelled (closed, timed out); or the page is on its way elsewhere;
 * or it failed, with the toast that says why.
 */
export type PromptOutcome = { ok: true; response: string } | { ok: false; cancelled: boolean; toast?: Toast };

const failed = (toast: Toast) => ({ ok: false as const, cancelled: false, toast });

const UNREACHABLE: Toast = {
  title: "Connection problem",
  description: "We could not reach the server. Check your connection and try again.",
  variant: "destructive",
};

const noSubscription = () => () => {};

/** Whether this browser can use passkeys at all; assumed so on the server and while hydrating. */
export function useWebAuthnSupport(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => typeof window.PublicKeyCredential === "function",
    () => true,
  );
}

/** Asks `action` for options (form field intent=options); the answer sets the ceremony's cookie. */
async function fetchOptions(action: string): Promise<{ ok: true; options: unknown } | Extract<PromptOutcome, { ok: false }>> {
  const body = new FormData();
  body.set("intent", "options");
  let response: Response;
  try {
    response = await fetch(action, { method: "POST", body });
  } catch {
    return failed(UNREACHABLE);
  }
  // The server sent the browser elsewhere (a sign-in that timed out starts over on /auth, with a
  // toast waiting there): go, so that page can say why.
  if (response.redirected) {
    window.location.assign(response.url);
    return { ok: false, cancelled: false };
  }
  try {
    const answer = (await response.json()) as { ok: boolean; toast: Toast; value?: unknown };
    return answer.ok ? { ok: true, options: answer.value } : failed(answer.toast);
  } catch {
    return failed(UNREACHABLE);
  }
}

/** Runs a ceremony: `register` makes a new passkey, `authenticate` signs with one. */
export async function promptForPasskey(action: string, kind: "register" | "authenticate"): Promise<PromptOutcome> {
  const started = await fetchOptions(action);
  if (!started.ok) return started;
  try {
    // Only a browser runs a ceremony: the Worker's build leaves the browser library out.
    if (import.meta.env.SSR) throw new Error("Passkey ceremonies run in the browser");
    const { startAuthentication, startRegistration } = await import("@simplewebauthn/browser");
    const answer =
      kind === "register"
        ? await startRegistration({ optionsJSON: started.options as PublicKeyCredentialCreationOptionsJSON })
        : await startAuthentication({ optionsJSON: started.options as PublicKeyCredentialRequestOptionsJSON });
    return { ok: true, response: JSON.stringify(answer) };
  } catch (error) {
    const name = error instanceof Error ? error.name : "";
    // Closing the prompt, letting it time out, or choosing nothing all read NotAllowedError.
    if (name === "NotAllowedError" || name === "AbortError") return { ok: false, cancelled: true };
    if (name === "InvalidStateError" && kind === "register") {
      return failed({ title: "Already added", description: "This device already holds a passkey for your account." });
    }
    return failed({
      title: "Passkey Error",
      description: "Your browser or device could not use a passkey here. Please try again.",
      variant: "destructive",
    });
  }
}

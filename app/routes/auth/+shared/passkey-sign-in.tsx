// "Sign in with a passkey" (login page) and "Use a passkey instead" (second step): one button that
// runs the prompt and sends its answer with a fetcher, so the server's redirect (signed in) or
// problem (toast) is handled like any other form.
import { useState } from "react";
import { useFetcher } from "react-router";
import type { Toast } from "~/lib/toast";
import { KeyRound } from "~/components/icons";
import { useToast } from "~/components/toaster";
import { Button } from "~/components/ui/button";
import { type ActionAnswer, useResultToast } from "~/components/use-result-toast";
import { promptForPasskey, useWebAuthnSupport } from "~/components/security/passkey-prompt";

export function PasskeySignInButton({
  action,
  label,
  cancelled,
  className = "",
}: {
  action: string;
  label: string;
  cancelled: Toast;
  className?: string;
}) {
  const fetcher = useFetcher<ActionAnswer>();
  useResultToast(fetcher);
  const { toast } = useToast();
  const supported = useWebAuthnSupport();
  const [prompting, setPrompting] = useState(false);
  const busy = prompting || fetcher.state !== "idle";

  if (!supported) {
    return (
      <p className={`text-center text-sm text-muted ${className}`}>This browser cannot use passkeys. Sign in with your password instead.</p>
    );
  }

  async function signIn() {
    setPrompting(true);
    try {
      const outcome = await promptForPasskey(action, "authenticate");
      if (outcome.ok) await fetcher.submit({ intent: "verify", response: outcome.response }, { method: "post", action });
      else if (outcome.cancelled) toast(cancelled);
      else if (outcome.toast) toast(outcome.toast);
    } finally {
      setPrompting(false);
    }
  }

  return (
    <Button variant="secondary" className={`w-full ${className}`} disabled={busy} onClick={signIn}>
      <KeyRound className="size-4" aria-hidden /> {busy ? "Waiting for your passkey..." : label}
    </Button>
  );
}

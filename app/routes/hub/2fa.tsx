// /dashboard/2fa: turn two-factor authentication on (scan, confirm a code, keep the recovery codes)
// or off (with a current code). The status shown is the real one. Codes here share the sign-in
// challenge's limit (429 with Retry-After), and either change signs out the account's other sessions.
import { useFetcher, useRevalidator } from "react-router";
import { copyText } from "~/components/copy";
import { KeyRound, ShieldCheck, Smartphone } from "~/components/icons";
import { useToast } from "~/components/toaster";
import { useFormCheck } from "~/components/use-form-check";
import { useResultToast } from "~/components/use-result-toast";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { BRAND } from "~/lib/brand";
import { twoFactorSettingsSchema } from "~/lib/schemas/auth";
import { confirmEnrolment, disableTwoFactor, startEnrolment, twoFactorStatus } from "~/server/accounts/two-factor.server";
import { app, sessionDeps } from "~/http/context.server";
import { answer, answerInvalid } from "~/http/answer.server";
import { passRetryAfter, throttledTitles } from "~/http/retry-after.server";
import { currentViewer } from "~/http/guards.server";
import { readSubmission } from "~/http/submission.server";
import type { Route } from "./+types/2fa";
import { callerOf } from "~/http/caller.server";

export const meta: Route.MetaFunction = () => [{ title: `Two-Factor Authentication | ${BRAND}` }];

export const headers = passRetryAfter;

const OTHER_SESSIONS_ENDED = "You were signed out everywhere else.";

export async function loader({ context }: Route.LoaderArgs) {
  return twoFactorStatus(app(context).db, currentViewer(context).id);
}

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env } = app(context);
  const viewer = currentViewer(context);
  const submission = await readSubmission(request, twoFactorSettingsSchema);
  if (!submission.ok) return answerInvalid(submission);
  const form = submission.value;
  switch (form.intent) {
    case "start":
      return answer(await startEnrolment(db, env.TOTP_ENCRYPTION_KEY, viewer), {
        success: { title: "Scan the QR code", description: "Then enter the 6-digit code your app shows." },
        intent: form.intent,
      });
    case "confirm":
      return answer(await confirmEnrolment(sessionDeps(context), env.TOTP_ENCRYPTION_KEY, viewer, callerOf(request), form.code), {
        success: { title: "Two-factor authentication enabled", description: OTHER_SESSIONS_ENDED },
        titles: throttledTitles,
        intent: form.intent,
      });
    case "disable":
      return answer(await disableTwoFactor(sessionDeps(context), env.TOTP_ENCRYPTION_KEY, viewer, callerOf(request), form.code), {
        success: { title: "Two-factor authentication disabled", description: OTHER_SESSIONS_ENDED },
        titles: throttledTitles,
        intent: form.intent,
      });
  }
}

/** A 6-digit code from the authenticator app. */
function CodeField({ label, error }: { label: string; error?: string }) {
  return (
    <Field
      label={label}
      name="code"
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={6}
      required
      className="sm:flex-1"
      error={error}
    />
  );
}

/** "JBSW Y3DP EHPK 3PXP": easier to type by hand. */
const grouped = (secret: string) => secret.replace(/(.{4})/g, "$1 ").trim();

export default function TwoFactor({ loaderData }: Route.ComponentProps) {
  const { enabled, recoveryCodesLeft } = loaderData;
  const { toast } = useToast();
  const revalidator = useRevalidator();
  const setup = useFetcher<typeof action>({ key: "2fa-setup" });
  const confirm = useFetcher<typeof action>({ key: "2fa-confirm" });
  const disable = useFetcher<typeof action>();
  useResultToast(setup);
  useResultToast(confirm);
  useResultToast(disable);
  // A code field shows the server's word on a wrong code until the form is sent again.
  const confirmCheck = useFormCheck(twoFactorSettingsSchema, { title: "Error", answer: confirm.data });
  const disableCheck = useFormCheck(twoFactorSettingsSchema, { title: "Error", answer: disable.data });
  const started = setup.data?.ok && setup.data.value && "secret" in setup.data.value ? setup.data.value : undefined;
  const codes =
    confirm.data?.ok && confirm.data.value && "recoveryCodes" in confirm.data.value ? confirm.data.value.recoveryCodes : undefined;

  return (
    <div className="max-w-3xl space-y-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-3xl font-black">Two-Factor Authentication</h1>
        <Badge tone={enabled ? "green" : "gray"}>{enabled ? "Enabled" : "Disabled"}</Badge>
      </div>
      <Card className="space-y-3 text-sm text-muted">
        <p className="flex items-center gap-2 font-semibold text-zinc-100">
          <ShieldCheck className="size-5 text-accent" aria-hidden /> Protect your account and your keys
        </p>
        <p>
          With two-factor authentication on, signing in takes your password and a 6-digit code from an authenticator app on your phone
          (Google Authenticator, Authy, 1Password, Bitwarden and others). Someone who learns your password still cannot get in.
        </p>
      </Card>

      {codes ? (
        <Card className="space-y-4">
          <h2 className="font-bold">Save your recovery codes</h2>
          <p className="text-sm text-muted">
            Each code signs you in once if you lose your phone. They are shown only now: store them somewhere safe.
          </p>
          <ul className="grid grid-cols-2 gap-2 font-mono text-sm sm:grid-cols-5" aria-label="Recovery codes">
            {codes.map((c) => (
              <li key={c} className="rounded bg-panel-2 px-2 py-1 text-center">
                {c}
              </li>
            ))}
          </ul>
          <div className="flex flex-wrap gap-2">
            <Button
              variant="outline"
              onClick={() =>
                copyText(codes.join("\n"), toast, { title: "Copied!", description: `${codes.length} codes copied to clipboard` })
              }
            >
              Copy codes
            </Button>
            <Button onClick={() => revalidator.revalidate()}>I have saved them</Button>
          </div>
        </Card>
      ) : enabled ? (
        <Card className="space-y-4">
          <p className="text-sm">
            Two-factor authentication is on. Recovery codes left: <strong>{recoveryCodesLeft}</strong>.
          </p>
          <disable.Form method="post" className="flex flex-col gap-3 sm:flex-row sm:items-end" onSubmit={disableCheck.onSubmit}>
            <input type="hidden" name="intent" value="disable" />
            <CodeField label="Current code from your app" error={disableCheck.errors.code} />
            <Button type="submit" variant="danger" disabled={disable.state !== "idle"}>
              Disable
            </Button>
          </disable.Form>
        </Card>
      ) : started ? (
        <Card className="grid grid-cols-1 gap-6 sm:grid-cols-[auto_1fr]">
          <img src={started.qrDataUrl} alt="QR code for your authenticator app" width={200} height={200} className="rounded-lg bg-white" />
          <div className="space-y-4">
            <div>
              <p className="flex items-center gap-2 font-semibold">
                <Smartphone className="size-4 text-accent" aria-hidden /> Scan with your authenticator app
              </p>
              <p className="mt-1 text-sm text-muted">Can't scan? Enter this key by hand:</p>
              <p className="mt-1 font-mono text-sm break-all" data-testid="totp-secret">
                {grouped(started.secret)}
              </p>
            </div>
            <confirm.Form method="post" className="flex flex-col gap-3 sm:flex-row sm:items-end" onSubmit={confirmCheck.onSubmit}>
              <input type="hidden" name="intent" value="confirm" />
              <CodeField label="6-digit code" error={confirmCheck.errors.code} />
              <Button type="submit" disabled={confirm.state !== "idle"}>
                {confirm.state !== "idle" ? "Checking..." : "Turn on"}
              </Button>
            </confirm.Form>
          </div>
        </Card>
      ) : (
        <setup.Form method="post">
          <input type="hidden" name="intent" value="start" />
          <Button type="submit" disabled={setup.state !== "idle"}>
            <KeyRound className="size-4" aria-hidden /> Enable
          </Button>
        </setup.Form>
      )}
    </div>
  );
}

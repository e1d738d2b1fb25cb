// /auth/2fa: the second step of signing in, for accounts with two-factor authentication.
import { useEffect } from "react";
import { data, Form, Link, redirect, useActionData, useNavigation } from "react-router";
import { ArrowLeft, KeyRound } from "~/components/icons";
import { useToast } from "~/components/toaster";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { BRAND } from "~/lib/brand";
import { clientAddress } from "~/server/accounts/registration.server";
import { app } from "~/server/platform/context.server";
import { readForm } from "~/server/platform/request-body.server";
import { completeChallenge, hasOpenChallenge } from "~/server/accounts/login-challenge.server";
import { passRetryAfter } from "~/server/accounts/throttle.server";
import { toastCookie } from "~/http/flash-toast.server";
import type { Route } from "./+types/auth.2fa";

export const meta: Route.MetaFunction = () => [{ title: `Two-factor authentication | ${BRAND}` }, { name: "robots", content: "noindex" }];

export const headers = passRetryAfter;

export async function loader({ request, context }: Route.LoaderArgs) {
  if (!(await hasOpenChallenge(app(context).db, request))) throw redirect("/auth");
  return null;
}

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env } = app(context);
  const form = await readForm(request);
  const outcome = await completeChallenge(db, env.TOTP_ENCRYPTION_KEY, request, form.get("code"), clientAddress(request));
  const headers = new Headers();
  for (const cookie of outcome.cookies ?? []) headers.append("Set-Cookie", cookie);
  if (outcome.ok) {
    headers.append("Set-Cookie", toastCookie(outcome.toast));
    throw redirect("/", { headers });
  }
  if (outcome.restart) {
    headers.append("Set-Cookie", toastCookie(outcome.toast));
    throw redirect("/auth", { headers });
  }
  if (outcome.retryAfterSeconds) headers.set("Retry-After", String(outcome.retryAfterSeconds));
  return data({ toast: outcome.toast }, { status: outcome.status, headers });
}

export default function TwoFactorSignIn() {
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const { toast } = useToast();
  useEffect(() => {
    if (result) toast(result.toast);
  }, [result, toast]);
  return (
    <div className="mx-auto flex min-h-[calc(100dvh-4rem)] max-w-md flex-col justify-center px-4 py-12">
      <Link to="/auth" className="mb-6 inline-flex items-center gap-2 text-sm text-muted hover:text-white">
        <ArrowLeft className="size-4" aria-hidden /> Back to sign in
      </Link>
      <Card>
        <KeyRound className="size-8 text-accent" aria-hidden />
        <h1 className="mt-3 text-2xl font-bold">Two-factor authentication</h1>
        <p className="mt-1 text-sm text-muted">Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
        <Form method="post" className="mt-6 space-y-4">
          <Field label="Code" name="code" inputMode="text" autoComplete="one-time-code" required maxLength={11} autoFocus />
          <Button type="submit" className="w-full" disabled={busy}>
            {busy ? "Verifying..." : "Verify"}
          </Button>
        </Form>
      </Card>
    </div>
  );
}

// POST /auth/passkey: signing in with a passkey alone. The login page asks for options (which
// opens a ceremony), the browser's passkey prompt answers them, and the answer comes back here.
import { answerProblem, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { answerCeremonyOptions, readPasskeySignIn } from "~/http/passkeys.server";
import { throttledTitles } from "~/http/retry-after.server";
import { redirectAfterSignIn, refusedSignInTitle } from "~/http/sign-in-redirect.server";
import { signInOptions, signInWithPasskey } from "~/server/accounts/passkey-sign-in.server";
import type { Route } from "./+types/passkey";
import { callerOf, tokenCookie } from "~/http/caller.server";
import { forgetToken } from "~/server/platform/caller.server";

const titles: ProblemTitles = {
  invalid: "Passkey Error",
  unauthenticated: "Login Failed",
  forbidden: refusedSignInTitle,
  unavailable: "Passkeys Unavailable",
  ...throttledTitles,
};

export async function action({ request, context }: Route.ActionArgs) {
  const read = await readPasskeySignIn(request, context, titles);
  if ("refused" in read) return read.refused;
  const { form, rp } = read;
  const { db } = app(context);
  if (form.intent === "options") return answerCeremonyOptions(await signInOptions(db, rp, callerOf(request)), titles);
  const result = await signInWithPasskey(db, rp, callerOf(request), form.response);
  // Signed in: the ceremony is spent, and so is any password sign-in waiting for its second step.
  if (result.ok) return redirectAfterSignIn(request, result.value, [forgetToken("ceremony"), forgetToken("challenge")]);
  return answerProblem(result.problem, { titles, intent: form.intent, headers: { "Set-Cookie": tokenCookie(forgetToken("ceremony")) } });
}

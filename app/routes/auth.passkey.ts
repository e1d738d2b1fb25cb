// POST /auth/passkey: signing in with a passkey alone. The login page asks for options (which
// opens a ceremony), the browser's passkey prompt answers them, and the answer comes back here.
import { answerProblem, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { answerCeremonyOptions, relyingPartyFor } from "~/http/passkeys.server";
import { throttledTitles } from "~/http/retry-after.server";
import { redirectAfterSignIn } from "~/http/sign-in-redirect.server";
import { readSubmission } from "~/http/submission.server";
import { passkeySignInSchema } from "~/lib/schemas/passkeys";
import { clearChallengeCookie } from "~/server/accounts/login-challenge.server";
import { clearCeremonyCookie, signInOptions, signInWithPasskey } from "~/server/accounts/passkeys.server";
import type { Route } from "./+types/auth.passkey";

const titles: ProblemTitles = {
  invalid: "Passkey Error",
  unauthenticated: "Login Failed",
  forbidden: "Email Not Verified",
  unavailable: "Passkeys Unavailable",
  ...throttledTitles,
};

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readSubmission(request, passkeySignInSchema);
  if (!submission.ok) return answerProblem(submission.problem, { titles });
  const rp = relyingPartyFor(context, request);
  if (!rp.ok) return answerProblem(rp.problem, { titles });
  const { db } = app(context);
  const form = submission.value;
  if (form.intent === "options") return answerCeremonyOptions(await signInOptions(db, rp.value, request), titles);
  const result = await signInWithPasskey(db, rp.value, request, form.response);
  // Signed in: the ceremony is spent, and so is any password sign-in waiting for its second step.
  if (result.ok) return redirectAfterSignIn(result.value, [clearCeremonyCookie(), clearChallengeCookie()]);
  return answerProblem(result.problem, { titles, intent: form.intent, headers: { "Set-Cookie": clearCeremonyCookie() } });
}

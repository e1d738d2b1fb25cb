// The small pages around signing in (the second factor, a forgotten password, a new password):
// one card with a way back to sign-in, as /auth looks, and one way to run their single form.
import { type ComponentType, type InputHTMLAttributes, type ReactNode, useEffect } from "react";
import { useNavigation } from "react-router";
import { Link } from "~/components/link";
import type * as v from "valibot";
import { ArrowLeft } from "~/components/icons";
import { useToast } from "~/components/toaster";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { useFormCheck } from "~/components/use-form-check";
import { BRAND } from "~/lib/brand";
import type { FieldErrors } from "~/lib/form-schema";
import type { Problem } from "~/lib/result";
import { PASSWORD_MAX, PASSWORD_MIN } from "~/lib/schemas/auth";
import type { Toast } from "~/lib/toast";

export function AuthPage({
  icon: Icon,
  children,
}: {
  icon: ComponentType<{ className?: string; "aria-hidden"?: boolean }>;
  children: ReactNode;
}) {
  return (
    <div className="mx-auto flex min-h-[calc(100dvh-4rem)] max-w-md flex-col justify-center px-4 py-12">
      <Link to="/auth" className="mb-6 inline-flex items-center gap-2 text-sm text-muted hover:text-white">
        <ArrowLeft className="size-4" aria-hidden /> Back to sign in
      </Link>
      <Card>
        <Icon className="size-8 text-accent" aria-hidden />
        {children}
      </Card>
    </div>
  );
}

/**
 * A page's one form: checked with its schema before sending, the action's answer toasted and its
 * field problem shown, and `busy` while it is on its way.
 */
export function useAnsweredForm<S extends v.GenericSchema>(
  schema: S,
  answer: { ok: boolean; problem?: Problem; fieldErrors?: FieldErrors; toast: Toast } | undefined,
) {
  const busy = useNavigation().state === "submitting";
  const { toast } = useToast();
  const check = useFormCheck(schema, { title: "Validation Error", answer });
  useEffect(() => {
    if (answer) toast(answer.toast);
  }, [answer, toast]);
  return { ...check, busy };
}

/** Where a member chooses a password (sign-up, reset), with the sign-up rules as its hint. */
export function NewPasswordField({
  label = "Password",
  ...props
}: InputHTMLAttributes<HTMLInputElement> & { label?: string; error?: string }) {
  return (
    <Field
      label={label}
      name="password"
      type="password"
      autoComplete="new-password"
      required
      maxLength={PASSWORD_MAX}
      hint={`At least ${PASSWORD_MIN} characters`}
      {...props}
    />
  );
}

/** The meta of a page an e-mailed link opens: never indexed, and no Referer leaves it with the link's token. */
export const linkPageMeta = (title: string) => [
  { title: `${title} | ${BRAND}` },
  { name: "robots", content: "noindex" },
  { name: "referrer", content: "no-referrer" },
];

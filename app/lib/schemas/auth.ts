// Sign-in, sign-up, password reset and two-factor forms: one schema each, checked in the browser before submitting
// and again on the server, which never trusts the browser's verdict.
import * as v from "valibot";

/** What every sign-in of a banned account answers (password, passkey, Discord, second factor). */
export const ACCOUNT_SUSPENDED = "This account has been suspended. Contact support.";

export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 128;
export const USERNAME_MIN = 3;
export const USERNAME_MAX = 24;

// A missing field reads as empty, so it gets the same message as a blank one.
const text = () => v.optional(v.string(), "");

const password = v.pipe(
  text(),
  v.minLength(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`),
  v.maxLength(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`),
);

export const loginSchema = v.object({
  emailOrUsername: v.pipe(text(), v.trim(), v.minLength(1, "Email or username is required"), v.maxLength(254)),
  password,
});

export const signupSchema = v.object({
  username: v.pipe(
    text(),
    v.trim(),
    v.minLength(USERNAME_MIN, `Username must be at least ${USERNAME_MIN} characters`),
    v.maxLength(USERNAME_MAX, `Username must be at most ${USERNAME_MAX} characters`),
    // No "@": sign-in treats anything containing "@" as an e-mail address.
    v.regex(/^[A-Za-z0-9_.-]+$/, "Username can only contain letters, numbers, dots, dashes and underscores"),
  ),
  email: v.pipe(text(), v.trim(), v.toLowerCase(), v.email("Invalid email address"), v.maxLength(254, "Invalid email address")),
  password,
});

export const resendSchema = v.object({
  email: v.pipe(text(), v.trim(), v.toLowerCase(), v.email("Invalid email address"), v.maxLength(254)),
});

/** Asking for a password reset link: the account's e-mail address or username, as at sign-in. */
export const resetRequestSchema = v.pick(loginSchema, ["emailOrUsername"]);

/** The new password a reset link sets: the sign-up rules, from the sign-up schema. */
export const newPasswordSchema = v.pick(signupSchema, ["password"]);

/** The /auth page's three forms, told apart by their hidden `intent`. */
export const authSchema = v.variant(
  "intent",
  [
    v.object({ intent: v.literal("login"), ...loginSchema.entries }),
    v.object({ intent: v.literal("signup"), ...signupSchema.entries }),
    v.object({ intent: v.literal("resend"), ...resendSchema.entries }),
  ],
  "Unknown request",
);

/** A code from the authenticator app or a recovery code; whether it is right is the server's call. */
export const secondFactorSchema = v.object({ code: text() });

/** Turning two-factor authentication on (start, then confirm with a code) or off (with a code). */
export const twoFactorSettingsSchema = v.variant(
  "intent",
  [
    v.object({ intent: v.literal("start") }),
    v.object({ intent: v.literal("confirm"), code: text() }),
    v.object({ intent: v.literal("disable"), code: text() }),
  ],
  "Unknown request",
);

const currentPassword = v.pipe(text(), v.minLength(1, "Current password is required"), v.maxLength(PASSWORD_MAX, "Invalid credentials"));

/**
 * Confirming an address on the page the verification link opens: the account the page named, and
 * the password chosen at sign-up (the mailbox alone does not make the confirmer the registrant).
 */
export const confirmEmailSchema = v.object({
  account: v.pipe(text(), v.uuid("Unknown account")),
  password: v.pipe(
    text(),
    v.minLength(1, "Please enter the password you chose when signing up"),
    v.maxLength(PASSWORD_MAX, "Invalid credentials"),
  ),
});

/** Leaving for Discord from a form: to link it (with the password, where the account has one), or to confirm an address with it. */
export const discordStartSchema = v.variant(
  "intent",
  [
    v.object({ intent: v.literal("link"), password: v.pipe(text(), v.maxLength(PASSWORD_MAX, "Invalid credentials")) }),
    v.object({ intent: v.literal("confirm") }),
  ],
  "Unknown request",
);

/** A session's public name, as the Security page sends it back. */
const sessionName = v.pipe(text(), v.regex(/^[A-Za-z0-9_-]{43}$/, "Unknown session"));

/**
 * Deleting one's own account: the password, and a code from the authenticator app (or a recovery
 * code) when two-factor is on; the server says whether one is needed (decision 099).
 */
export const deleteAccountSchema = v.object({
  intent: v.literal("delete-account"),
  password: v.pipe(text(), v.minLength(1, "Enter your password to delete your account"), v.maxLength(PASSWORD_MAX, "Invalid credentials")),
  code: v.pipe(text(), v.maxLength(64, "That code is not right")),
});

/** The Security page: end one session, end all others, change the password, delete the account. */
export const securitySchema = v.variant(
  "intent",
  [
    v.object({ intent: v.literal("end-session"), session: sessionName }),
    v.object({ intent: v.literal("end-other-sessions") }),
    v.object({ intent: v.literal("change-password"), currentPassword, newPassword: password }),
    v.object({ intent: v.literal("unlink-discord") }),
    // Linking the simulated Discord of development: the password, as for the real one (decision 044).
    v.object({ intent: v.literal("link-simulated-discord"), password: v.optional(v.string(), "") }),
    deleteAccountSchema,
  ],
  "Unknown request",
);

export type LoginInput = v.InferOutput<typeof loginSchema>;
export type SignupInput = v.InferOutput<typeof signupSchema>;
export type ResendInput = v.InferOutput<typeof resendSchema>;
export type PasswordChangeInput = Omit<Extract<v.InferOutput<typeof securitySchema>, { intent: "change-password" }>, "intent">;
export type ResetRequestInput = v.InferOutput<typeof resetRequestSchema>;
export type ConfirmEmailInput = v.InferOutput<typeof confirmEmailSchema>;
